import Foundation
import Stores
import Testing

@testable import FrontDoor

@Suite("The front door's pages in the browser's language")
struct DoorPagesTests {
    @Test("A deletion's receipt in Japanese for a browser that asks for it first, in English otherwise, every value escaped")
    func receiptInEachLanguage() {
        let deletion = DoorDeletion(schema: "bot_7", keys: 12, networkName: "<Net>", at: Date(timeIntervalSince1970: 1_795_000_000))
        let japanese = DoorPages.deleted(DoorText.preferred("ja,en;q=0.8"), deletion)
        #expect(japanese.contains("lang=\"ja\"") && japanese.contains("Redis の単語の数のキー 12 個") && japanese.contains("スキーマ bot_7"))
        #expect(japanese.contains("&lt;Net&gt; で承認されたまま") && !japanese.contains("<Net>"))
        let english = DoorPages.deleted(DoorText.preferred("en-GB"), deletion)
        #expect(english.contains("12 word-count keys in Redis") && english.contains("still approved on &lt;Net&gt;"))
        #expect(deletion.lines(language: "ja").count == deletion.lines(language: "en").count)
    }

    @Test(
        "The operator's page: a failure shown as one, a person's pause not the operator's to lift, an open invitation withdrawable and a used one not, the processes with their bots, every value escaped"
    )
    func operatorsOverview() {
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        let bots = [
            DoorOverview.Bot(
                name: "door-1", network: "mastodon", pauseReason: "paused by its person", pausedByItsPerson: true, failed: false, holder: nil,
                createdAt: now.addingTimeInterval(-3_600)),
            DoorOverview.Bot(
                name: "door-2", network: "bluesky", pauseReason: "the <account> was suspended", pausedByItsPerson: false, failed: true, holder: nil,
                createdAt: now.addingTimeInterval(-10 * 86_400)),
            DoorOverview.Bot(
                name: "alice", network: "x", pauseReason: nil, pausedByItsPerson: false, failed: false, holder: "p1", createdAt: nil),
        ]
        let overview = DoorOverview(
            bots: bots, processes: [.init(id: "p1", heardAt: now.addingTimeInterval(-4))],
            invitations: [
                .init(id: 2, note: "for <bob>", createdAt: now, expiresAt: now.addingTimeInterval(86_400)),
                .init(id: 1, note: "for alice", createdAt: now, expiresAt: now.addingTimeInterval(86_400), usedAt: now, usedFor: "door-1"),
            ],
            audit: [.init(at: now, actor: "mirror_bot bots on host", action: "paused", bot: "alice", detail: "<by hand>")], maxMirrors: 5)
        let html = OperatorPages.overview(overview, csrf: "t", signUp: .invitations, now: now)
        #expect(html.contains("2 of 5 mirrors made at the door (DOOR_MAX_MIRRORS); 1 in the last day, 1 in the last week."), "\(html)")
        #expect(html.contains("3 bots: 1 running, 0 waiting for a process, 2 paused, <span class=\"failed\">1 after a failure</span>"))
        #expect(html.contains("<span class=\"failed\">failed: the &lt;account&gt; was suspended</span>") && !html.contains("<account>"))
        // door-1's pause is its person's: no Resume; door-2's failure has one; alice runs: Pause.
        let rows = html.matches(of: /<tr data-bot="([^"]+)">(.*?)<\/tr>/).map { (String($0.1), String($0.2)) }
        #expect(rows.map(\.0) == ["door-1", "door-2", "alice"])
        #expect(rows[0].1.contains("its person's") && !rows[0].1.contains("<form"))
        #expect(rows[1].1.contains("action=\"/operator/resume\"") && rows[1].1.contains("value=\"door-2\""))
        #expect(rows[2].1.contains("action=\"/operator/pause\"") && rows[2].1.contains("running on p1"))
        #expect(html.contains("<li>p1: heard 4 s ago, runs 1 bot</li>"))
        let invitations = html.matches(of: /<tr data-invitation="([0-9]+)">(.*?)<\/tr>/).map { (String($0.1), String($0.2)) }
        #expect(invitations.count == 2 && invitations[0].1.contains("for &lt;bob&gt;") && invitations[0].1.contains("/operator/invitations/withdraw"))
        #expect(invitations[1].1.contains("used 2026-11-18") && invitations[1].1.contains("for door-1") && !invitations[1].1.contains("<form"))
        #expect(html.contains("mirror_bot bots on host: paused alice (&lt;by hand&gt;)"))
        #expect(
            html.components(separatedBy: "name=\"csrf\" value=\"t\"").count - 1 == html.components(separatedBy: "<form").count - 1,
            "a token in every form")
    }

    @Test("An invitation brought as its code or as its whole link, pasted with spaces, gives its code")
    func invitationCodes() {
        #expect(FrontDoorServer.invitationCode(in: " abc-_12 ") == "abc-_12")
        #expect(FrontDoorServer.invitationCode(in: "https://door.example/?invitation=abc-_12") == "abc-_12")
        #expect(FrontDoorServer.invitationCode(in: String(repeating: "a", count: 1_000)).count == 200)
    }

    @Test(
        "The choices: who sees the posts only where the network's posts say so; blocked words split on commas (、 and ，too) and lines, each once, within the limits"
    )
    func choices() {
        let current = MirrorChoices(timeZone: "UTC", style: .copy, likes: false, visibility: .private, blockedWords: ["a<b", "秘密"])
        let offered = DoorPages.choiceFields(.english, current, offersVisibility: true)
        #expect(offered.contains("name=\"visibility\" value=\"private\" checked") && offered.contains(">a&lt;b, 秘密</textarea>"), "\(offered)")
        #expect(!DoorPages.choiceFields(.english, nil, offersVisibility: false).contains("name=\"visibility\""))
        #expect(MirrorChoices.blockedWords(in: " secret、秘密,secret\n株価 ， ,") == ["secret", "秘密", "株価"])
        #expect(MirrorChoices.blockedWords(in: "") == [])
        #expect(MirrorChoices.blockedWords(in: String(repeating: "x", count: 61)) == nil)
        #expect(MirrorChoices.blockedWords(in: (1...101).map(String.init).joined(separator: ",")) == nil)
        let form = ["tz": "UTC", "style": "remix", "blocked": "a, b"]
        #expect(FrontDoorServer.choices(form, offersVisibility: true)?.visibility == .unlisted, "the network's default when the form has none")
        #expect(FrontDoorServer.choices(form, offersVisibility: false)?.visibility == nil)
        #expect(FrontDoorServer.choices(form.merging(["visibility": "direct"]) { $1 }, offersVisibility: true) == nil)
        #expect(FrontDoorServer.choices(form, offersVisibility: false)?.blockedWords == ["a", "b"])
    }

    @Test(
        "Why it did not post or answer, in Japanese where the recorded wording is known (its times, counts and names carried over), as recorded otherwise; in English as recorded"
    )
    func reasonsInJapanese() {
        let cases: [(String, String)] = [
            ("missed: the bot was not running at 08:15 (42 minutes ago)", "見送り: 08:15 にミラーが動いていませんでした(42 分前)"),
            (
                "paused by the person (posting since 2026-11-29 07:00; a mention of the bot from their account saying \"resume\" or 「再開」 ends it)",
                "あなたが投稿を一時停止しています(2026-11-29 07:00 から)。ボットに「再開」とメンションすると再開します"
            ),
            ("interrupted while posting; the post may or may not exist, so it is not sent again", "投稿の途中で中断されました。投稿されたか分からないため、もう一度は送りません"),
            ("Mastodon refused 3 picks (duplicates, or too long)", "Mastodon が候補 3 件を断りました(重複、または長すぎ)"),
            (
                "Nothing to post at 09:00: the archive has no postable tweet (empty, all posted in the last 30 days, or all mention someone). Run `mirror_bot train scheduler` or `mirror_bot import`.",
                "投稿できるものがありません。アーカイブに今使える投稿がありません(空、最近投稿した、他の人へのメンション、使わない言葉など)"
            ),
            ("already answered @bob 3 times in the last hour", "この1時間に @bob へすでに 3 回返信しました"),
            ("no past reply of the human to this user", "この人へのあなたの過去の返信がありません"),
            ("a reason nobody translated", "a reason nobody translated"),
        ]
        for (english, japanese) in cases {
            #expect(DoorReasons.inJapanese(english) == japanese, "\(english)")
            #expect(DoorReasons.shown(english, in: .english) == english)
        }
        // The stores' own sentences, as they are recorded.
        for recorded in [PlanSlot.interruptedReason, MentionState.interruptedReason] {
            #expect(DoorReasons.inJapanese(recorded) != recorded, "\(recorded): its wording changed, and the door no longer knows it")
        }
        let action = DoorMirror.Action(kind: .skipped, at: "2026-11-29 08:15", text: nil, link: nil, reason: cases[0].0)
        #expect(DoorPages.lately(.japanese, action).contains("(見送り: 08:15 にミラーが動いていませんでした(42 分前))"))
    }
}
