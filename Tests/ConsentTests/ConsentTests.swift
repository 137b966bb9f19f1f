import Consent
import Foundation
import Stores
import TestSupport
import Testing

@Suite("Consent: opt-out words, accounts, the person's commands")
struct ConsentTests {
    @Test("Words match case- and width-insensitively; an ASCII word only as a whole word; Japanese anywhere")
    func words() {
        let list = WordList(["stop", "やめて", "#nobot", "opt out"])
        #expect(list.firstMatch(in: "@bot STOP please") == "stop")
        #expect(list.firstMatch(in: "@bot ＳＴＯＰ") == "stop")  // full-width letters
        #expect(list.firstMatch(in: "Stop.") == "stop")
        #expect(list.firstMatch(in: "my stopwatch broke") == nil)
        #expect(list.firstMatch(in: "nonstop fun") == nil)
        #expect(list.firstMatch(in: "もうやめてください") == "やめて")
        #expect(list.firstMatch(in: "ﾔﾒﾃ") == nil)  // half-width katakana folds to katakana, not hiragana
        #expect(WordList(["ヤメテ"]).firstMatch(in: "ﾔﾒﾃ!") == "ヤメテ")  // ... which a katakana word finds
        #expect(list.firstMatch(in: "#NoBot here") == "#nobot")
        #expect(list.firstMatch(in: "I'd like to OPT  OUT") == nil)  // two spaces: not the phrase
        #expect(list.firstMatch(in: "please opt out") == "opt out")
        #expect(WordList(["", "  "]).isEmpty)
    }

    @Test("Accounts by id or handle, with or without @, case-insensitively")
    func accounts() {
        let set = AccountSet(["12345", "@Bob", "carol@example.social", " "])
        #expect(set.contains(id: "12345", handle: nil))
        #expect(!set.contains(id: "1234", handle: nil))
        #expect(set.contains(id: nil, handle: "bob"))
        #expect(set.contains(id: "9", handle: "@BOB"))
        #expect(set.contains(id: nil, handle: "Carol@Example.Social"))
        #expect(!set.contains(id: nil, handle: "carol"))  // another instance's carol is someone else
        #expect(!set.contains(id: nil, handle: nil))
    }

    @Test("A typed account is an id as the network's rule reads one; with @ in front always a handle")
    func typedByTheNetworksRule() {
        let didRule: (String) -> String? = { $0.hasPrefix("did:") ? $0 : nil }
        let set = AccountSet(["did:plc:abc", "@did:plc:xyz", "12345", "bob.example"], accountID: didRule)
        #expect(set.ids == ["did:plc:abc"])
        #expect(set.handles == ["did:plc:xyz", "12345", "bob.example"])
        // The default rule: digits.
        #expect(AccountSet(["12345", "@12345", "abc"]).ids == ["12345"])
        #expect(AccountSet(["12345", "@12345", "abc"]).handles == ["12345", "abc"])
    }

    @Test(
        "The person's commands in English and Japanese; anything else is no command",
        arguments: [
            ("pause", OwnerCommand.pausePosting), ("Pause posting.", .pausePosting), ("停止", .pausePosting), ("一時停止。", .pausePosting),
            ("ＳＴＯＰ", .pausePosting), ("pause all", .pauseEverything), ("stop   everything!", .pauseEverything), ("全部停止", .pauseEverything),
            ("resume", .resume), ("再開", .resume), ("すべて再開！", .resume),
            ("forget https://x.com/hanako/status/123", .forget("https://x.com/hanako/status/123")),
            ("忘れて https://mastodon.example/@Hanako/109", .forget("https://mastodon.example/@Hanako/109")),
            ("忘れてhttps://x.com/a/status/5", .forget("https://x.com/a/status/5")),
        ])
    func commands(_ text: String, _ command: OwnerCommand) {
        #expect(OwnerCommand.parse(text) == command)
    }

    @Test("Texts that are no command", arguments: ["pause the music", "停止してほしいな", "resume?", "forget", "forget it now", "元気？", ""])
    func noCommands(_ text: String) {
        #expect(OwnerCommand.parse(text) == nil)
    }

    @Test(
        "The opt-out list is kept in the bot's state: added once, listed, checked by id or handle, removed; train clear's emptying of the archive leaves it",
        arguments: StoreBackends.archives)
    func optOutList(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let list = OptOutList(state: database.state)
            let at = Date(timeIntervalSince1970: 1_795_000_000)
            #expect(try await list.add(OptOut(accountID: "300", handle: "taro", reason: "asked the bot to stop (\"やめて\")", at: at)))
            #expect(try await !list.add(OptOut(accountID: "300", handle: "taro", reason: "again", at: at.addingTimeInterval(60))))
            #expect(
                try await list.add(OptOut(accountID: nil, handle: "@Jiro@example.social", reason: "added by hand", at: at.addingTimeInterval(120))))
            let all = try await list.all()
            #expect(all.map(\.who) == ["@taro (300)", "@jiro@example.social"])
            #expect(all.first?.reason == "asked the bot to stop (\"やめて\")")
            #expect(try await list.contains(id: "300", handle: nil))
            #expect(try await list.contains(id: nil, handle: "TARO"))
            #expect(try await list.contains(id: "555", handle: "jiro@example.social"))
            #expect(try await !list.contains(id: "301", handle: "saburo"))

            // `train clear` empties the archive and the word counts, never the bot's state.
            let archive = database.archive(timeZone: .gmt, rowLimit: 100)
            try await archive.insert([ArchivedPost(postID: 1, text: "a", createdAt: at)])
            try await archive.removeAll()
            #expect(try await list.all().count == 2)

            #expect(try await list.remove("taro").map(\.accountID) == ["300"])
            #expect(try await list.remove("taro").isEmpty)
            #expect(try await !list.contains(id: "300", handle: nil))
            let rules = ContactRules(state: database.state, blocked: AccountSet(["400"]))
            #expect(try await rules.refusal(id: "400", handle: nil) == "the account is in BLOCKED_ACCOUNTS")
            #expect(try await rules.refusal(id: "1", handle: "jiro@example.social")?.hasPrefix("the account opted out on") == true)
            #expect(try await rules.refusal(id: "300", handle: "taro") == nil)
        }
    }

    @Test("The person's pause is kept in the bot's state, with when it began")
    func pauseKept() async throws {
        try await TestServers.withIsolatedDatabase(.sqlite) { database async throws in
            let control = OwnerControl(state: database.state)
            #expect(try await control.current() == nil)
            let at = Date(timeIntervalSince1970: 1_795_000_000)
            try await control.pause(.everything, at: at)
            // Another process reading the same database (a restart) sees it.
            #expect(try await OwnerControl(state: database.state).current() == OwnerControl.Paused(pause: .everything, since: at))
            #expect(try await control.everythingPaused())
            try await control.pause(.posting, at: at)
            let (posting, everything) = (try await control.postingPaused(), try await control.everythingPaused())
            #expect(posting && !everything)
            #expect(try await control.resume()?.pause == .posting)
            #expect(try await control.current() == nil)
        }
    }

    @Test(
        "An archive is the person's when it names the account they signed in as (on Mastodon: their username on their instance); on another network the first account is taken on their word, another refused"
    )
    func archiveOwnership() {
        let signedIn = Date(timeIntervalSince1970: 1_795_000_000)
        let x = PersonConsent(
            network: "X", personAccount: "1234567", personHandle: "hanako", signedInAt: signedIn, how: "auth x",
            botAccount: nil, agreedTo: [.learnPosts, .copies], credentialDigest: nil)
        #expect(x.ownership(ofArchiveOf: "1234567", on: "X", handle: "hanako_renamed", actorAddress: nil) == .theirs)
        guard case .someoneElse(let why) = x.ownership(ofArchiveOf: "999", on: "X", handle: "taro", actorAddress: nil) else {
            Issue.record("another X account's archive was taken as the person's")
            return
        }
        #expect(
            why
                == "this archive is @taro (X 999)'s, not the person's who signed in: @hanako (1234567 on X). An archive is imported only for the person it belongs to"
        )

        let mastodon = PersonConsent(
            network: "Mastodon", personAccount: "100@mastodon.example", personHandle: "Hanako", signedInAt: signedIn,
            how: "auth mastodon", botAccount: nil, agreedTo: [.learnPosts, .copies], credentialDigest: nil)
        #expect(
            mastodon.ownership(
                ofArchiveOf: "https://mastodon.example/users/hanako", on: "Mastodon", handle: "hanako",
                actorAddress: ("hanako", "mastodon.example")) == .theirs)
        for (username, server) in [("taro", "mastodon.example"), ("hanako", "other.example")] {
            guard
                case .someoneElse = mastodon.ownership(
                    ofArchiveOf: "https://\(server)/users/\(username)", on: "Mastodon", handle: username,
                    actorAddress: (username, server))
            else {
                Issue.record("@\(username)@\(server)'s archive was taken as @hanako@mastodon.example's")
                continue
            }
        }

        // The person moved from X to Mastodon: their X archive cannot be proven theirs by their Mastodon sign-in.
        var moved = mastodon
        #expect(moved.ownership(ofArchiveOf: "1234567", on: "X", handle: "hanako", actorAddress: nil) == .elsewhere(key: "X 1234567 @hanako"))
        moved.archivesFromElsewhere = ["X 1234567 @hanako"]
        #expect(moved.ownership(ofArchiveOf: "1234567", on: "X", handle: "hanako2", actorAddress: nil) == .elsewhere(key: "X 1234567 @hanako2"))
        guard case .someoneElse(let other) = moved.ownership(ofArchiveOf: "999", on: "X", handle: "taro", actorAddress: nil) else {
            Issue.record("a second X account's archive was taken on the person's word")
            return
        }
        #expect(other.contains("an archive of another X account (1234567 @hanako) was imported"), "\(other)")
        #expect(moved.ownership(ofArchiveOf: "did:plc:abc", on: "Bluesky", handle: nil, actorAddress: nil) == .elsewhere(key: "Bluesky did:plc:abc"))
    }

    @Test(
        "A record written before servers were named as DNS compares them is still the person's: case, a trailing dot and a default port aside; another id or server is not"
    )
    func accountsAsDNSComparesServers() {
        let old = PersonConsent(
            network: "Mastodon", personAccount: "42@Mastodon.Example.:443", personHandle: "hanako", signedInAt: Date(timeIntervalSince1970: 0),
            how: "auth mastodon", botAccount: nil, agreedTo: [.learnPosts], credentialDigest: nil)
        for same in ["42@mastodon.example", "42@MASTODON.example:443", "42@mastodon.example.", "42@mastodon.example:80"] {
            #expect(old.isPerson(same), "\(same)")
        }
        for other in ["43@mastodon.example", "42@mastodon.example:3000", "42@other.example", "42", "42@mastodon.examplex"] {
            #expect(!old.isPerson(other), "\(other)")
        }
        #expect(
            old.ownership(
                ofArchiveOf: "https://mastodon.example/users/hanako", on: "Mastodon", handle: "hanako", actorAddress: ("hanako", "mastodon.example"))
                == .theirs)
        let x = PersonConsent(
            network: "X", personAccount: "1234567", personHandle: "hanako", signedInAt: Date(timeIntervalSince1970: 0), how: "auth x",
            botAccount: nil, agreedTo: [.learnPosts], credentialDigest: nil)
        #expect(x.isPerson("1234567") && !x.isPerson("12345678"))
        let bluesky = PersonConsent(
            network: "Bluesky", personAccount: "did:plc:Abc", personHandle: "hanako", signedInAt: Date(timeIntervalSince1970: 0), how: "auth bluesky",
            botAccount: nil, agreedTo: [.learnPosts], credentialDigest: nil)
        #expect(bluesky.isPerson("did:plc:Abc") && !bluesky.isPerson("did:plc:abc"), "a DID is compared exactly")
    }
}
