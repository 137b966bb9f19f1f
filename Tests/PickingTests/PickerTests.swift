import BotCore
import Consent
import Foundation
import Logging
import Picking
import Schedule
import Stores
import TestSupport
import Testing

@Suite("Picking what to post and what to answer")
struct PickerTests {
    static let utc = TimeZone(identifier: "UTC")!
    static let day = Date(timeIntervalSince1970: 1_717_200_000)  // 2024-06-01 00:00 UTC

    static var logger: Logger {
        var logger = Logger(label: "picking-tests")
        logger.logLevel = .critical
        return logger
    }

    func at(_ hour: Int, _ minute: Int, daysAgo: Int = 10) -> Date {
        Self.day.addingTimeInterval(Double(hour * 3_600 + minute * 60 - daysAgo * 86_400))
    }

    @Test("A post from ±30 minutes; with none there, the window widens instead of failing", arguments: StoreBackends.archives)
    func widening(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let archive = database.archive(timeZone: Self.utc, rowLimit: 100)
            try await archive.prepare()
            try await archive.insert([ArchivedPost(postID: 1, text: "お昼", createdAt: at(12, 0))])
            let picker = PostPicker(archive: archive, repostAfterDays: 30, allowsMentions: false, logger: Self.logger)
            var generator = SplitMix64(seed: 1)
            let near = try await picker.pick(at: PickerTests.day.addingTimeInterval(12 * 3_600 + 600), using: &generator)
            #expect(near?.post == ArchivedPost(postID: 1, text: "お昼", createdAt: at(12, 0)))
            #expect(near?.radius == 30)
            let far = try await picker.pick(at: PickerTests.day.addingTimeInterval(60), using: &generator)
            #expect(far?.radius == 720)
            #expect(far?.post.postID == 1)
        }
    }

    @Test("Never a post the bot posted in the last REPOST_AFTER_DAYS; never one with @-mentions unless allowed", arguments: StoreBackends.archives)
    func repostsAndMentions(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let archive = database.archive(timeZone: Self.utc, rowLimit: 100)
            try await archive.prepare()
            try await archive.insert([
                ArchivedPost(postID: 1, text: "朝ごはん", createdAt: at(8, 0)),
                ArchivedPost(postID: 2, text: "おはよう @friend", createdAt: at(8, 5)),
                ArchivedPost(postID: 3, text: "mail me: me@example.com", createdAt: at(8, 10)),
                ArchivedPost(postID: 4, text: "＠friend 元気？", createdAt: at(8, 15)),  // a full-width ＠ mentions too
            ])
            let now = Self.day.addingTimeInterval(8 * 3_600)
            try await archive.recordBotPost(sourcePostID: 1, botPostID: 900, postedAt: now.addingTimeInterval(-86_400))
            let picker = PostPicker(archive: archive, repostAfterDays: 30, allowsMentions: false, logger: Self.logger)
            var generator = SplitMix64(seed: 5)
            var picked = Set<PostID>()
            for _ in 0..<30 { if let pick = try await picker.pick(at: now, using: &generator) { picked.insert(pick.post.postID) } }
            #expect(picked == [3])  // 1 was posted yesterday; 2 and 4 mention someone; an e-mail address is no mention

            let permissive = PostPicker(archive: archive, repostAfterDays: 0, allowsMentions: true, logger: Self.logger)
            picked = []
            for _ in 0..<60 { if let pick = try await permissive.pick(at: now, using: &generator) { picked.insert(pick.post.postID) } }
            #expect(picked == [1, 2, 3, 4])
            #expect(try await picker.pick(at: now, excluding: [3], using: &generator) == nil)
        }
    }

    /// An archive of the person saying one thing twice (posts 1 and 2, 20 and 10 days ago) and another once (3,
    /// today), on `backend`, with the moment of the test's slot (08:00 today).
    func withTwins(_ backend: StoreBackends.ArchiveKind, _ body: (any PostArchive, Date) async throws -> Void) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let archive = database.archive(timeZone: Self.utc, rowLimit: 100)
            try await archive.prepare()
            try await archive.insert([
                ArchivedPost(postID: 1, text: "今日は寿司の日", createdAt: at(8, 0, daysAgo: 20)),
                ArchivedPost(postID: 2, text: "今日は寿司の日", createdAt: at(8, 5, daysAgo: 10)),
                ArchivedPost(postID: 3, text: "朝ごはん", createdAt: at(8, 10)),
            ])
            try await body(archive, Self.day.addingTimeInterval(8 * 3_600))
        }
    }

    @Test(
        "Nor the twin of a post another slot is sending (its post not recorded yet): an excluded post keeps its text out too",
        arguments: StoreBackends.archives)
    func sameTextAsOneUnderWay(_ backend: StoreBackends.ArchiveKind) async throws {
        try await withTwins(backend) { archive, now in
            let picker = PostPicker(archive: archive, repostAfterDays: 30, allowsMentions: false, logger: Self.logger)
            var generator = SplitMix64(seed: 11)
            var picked = Set<PostID>()
            // Post 1 is under way in another slot: neither it nor its twin 2 is picked.
            for _ in 0..<30 { if let pick = try await picker.pick(at: now, excluding: [1], using: &generator) { picked.insert(pick.post.postID) } }
            #expect(picked == [3])
            picked = []
            for _ in 0..<60 { if let pick = try await picker.pick(at: now, using: &generator) { picked.insert(pick.post.postID) } }
            #expect(picked == [1, 2, 3])
        }
    }

    @Test(
        "Nor another post with the same text as one posted in those days (the person said it twice; the copy does not)",
        arguments: StoreBackends.archives)
    func sameTextNotTwice(_ backend: StoreBackends.ArchiveKind) async throws {
        try await withTwins(backend) { archive, now in
            try await archive.recordBotPost(sourcePostID: 1, botPostID: 900, postedAt: now.addingTimeInterval(-3_600))
            let picker = PostPicker(archive: archive, repostAfterDays: 30, allowsMentions: false, logger: Self.logger)
            var generator = SplitMix64(seed: 9)
            var picked = Set<PostID>()
            for _ in 0..<30 { if let pick = try await picker.pick(at: now, using: &generator) { picked.insert(pick.post.postID) } }
            #expect(picked == [3])
            // Past the days, both may come again.
            let later = PostPicker(archive: archive, repostAfterDays: 0, allowsMentions: false, logger: Self.logger)
            picked = []
            for _ in 0..<60 { if let pick = try await later.pick(at: now, using: &generator) { picked.insert(pick.post.postID) } }
            #expect(picked == [1, 2, 3])
            // But not on a network that refuses a repeat within a day (X): posted an hour ago, neither text comes again.
            let onX = PostPicker(archive: archive, repostAfterDays: 0, allowsMentions: false, repeatWindow: 86_400, logger: Self.logger)
            picked = []
            for _ in 0..<60 { if let pick = try await onX.pick(at: now, using: &generator) { picked.insert(pick.post.postID) } }
            #expect(picked == [3])
            // A day later (the same minute), they may.
            picked = []
            for _ in 0..<60 {
                if let pick = try await onX.pick(at: now.addingTimeInterval(86_400), using: &generator) { picked.insert(pick.post.postID) }
            }
            #expect(picked == [1, 2, 3])
        }
    }

    @Test("An empty archive gives no post and no crash", arguments: StoreBackends.archives)
    func emptyArchive(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let archive = database.archive(timeZone: Self.utc, rowLimit: 100)
            let picker = PostPicker(archive: archive, repostAfterDays: 30, allowsMentions: false, logger: Self.logger)
            var generator = SplitMix64(seed: 1)
            #expect(try await picker.pick(at: Date(), using: &generator) == nil)
        }
    }

    @Test("A reply is one the human sent to that author, without its leading @names; fallback none or any", arguments: StoreBackends.archives)
    func replies(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let archive = database.archive(timeZone: Self.utc, rowLimit: 100)
            try await archive.insert([
                ArchivedPost(postID: 1, text: "@taro @hanako それな！ @taro", replyUserID: 300, createdAt: at(9, 0)),
                ArchivedPost(postID: 2, text: "@taro", replyUserID: 300, createdAt: at(9, 1)),
                ArchivedPost(postID: 3, text: "@jiro おつかれ", replyUserID: 400, createdAt: at(9, 2)),
            ])
            var generator = SplitMix64(seed: 3)
            let strict = ReplyPicker(archive: archive, fallback: .none)
            for _ in 0..<10 {
                let pick = try await strict.pick(forAuthor: 300, using: &generator)
                #expect(pick?.text == "それな！ @taro")  // the reply that is only "@taro" is never sent
                #expect(pick?.isFallback == false)
            }
            #expect(try await strict.pick(forAuthor: 999, using: &generator) == nil)
            let lenient = ReplyPicker(archive: archive, fallback: .any)
            let fallback = try await lenient.pick(forAuthor: 999, using: &generator)
            #expect(fallback?.isFallback == true)
            #expect(["それな！ @taro", "おつかれ"].contains(fallback?.text ?? ""))
        }
    }

    @Test("Leading @names and full-width ＠names are removed; others stay")
    func leadingMentions() {
        #expect(ReplyPicker.removingLeadingMentions("@a @b_2  hello @c") == "hello @c")
        #expect(ReplyPicker.removingLeadingMentions("＠taro 元気") == "元気")
        #expect(ReplyPicker.removingLeadingMentions("@ alone") == "@ alone")
        #expect(ReplyPicker.removingLeadingMentions("@only") == "")
        #expect(ReplyPicker.removingLeadingMentions("@bob@example.social @alice.bsky.social hi @carol") == "hi @carol")
        #expect(ReplyPicker.removingLeadingMentions("@taroそれな") == "それな")
    }
}

@Suite("Links cost 13 times more on X: not posted unless allowed")
struct LinkPickingTests {
    static let utc = TimeZone(identifier: "UTC")!
    static let day = Date(timeIntervalSince1970: 1_717_200_000)  // 2024-06-01 00:00 UTC

    @Test(
        "The post picker skips the human's posts with a link unless POST_LINKS; so does the reply picker, and says why when only those are left",
        arguments: StoreBackends.archives)
    func linksSkipped(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let archive = database.archive(timeZone: Self.utc, rowLimit: 100)
            try await archive.prepare()
            let morning = Self.day.addingTimeInterval(8 * 3_600 - 10 * 86_400)
            try await archive.insert([
                ArchivedPost(postID: 1, text: "朝ごはん", createdAt: morning),
                ArchivedPost(postID: 2, text: "この記事よかった https://news.example.jp/a/1", createdAt: morning.addingTimeInterval(60)),
                ArchivedPost(postID: 3, text: "example.com を見て", createdAt: morning.addingTimeInterval(120)),
                ArchivedPost(postID: 4, text: "@friend これ https://example.com/x", replyUserID: 300, createdAt: morning),
                ArchivedPost(postID: 5, text: "@friend いいね", replyUserID: 300, createdAt: morning),
                ArchivedPost(postID: 6, text: "@other 読んで www.example.org", replyUserID: 400, createdAt: morning),
            ])
            let now = Self.day.addingTimeInterval(8 * 3_600)
            let logger = Logger(label: "links", factory: { _ in SwiftLogNoOpLogHandler() })
            var generator = SplitMix64(seed: 3)
            var picked = Set<PostID>()
            let picker = PostPicker(archive: archive, repostAfterDays: 30, allowsMentions: false, allowsLinks: false, logger: logger)
            for _ in 0..<30 { if let pick = try await picker.pick(at: now, using: &generator) { picked.insert(pick.post.postID) } }
            #expect(picked == [1])
            let withLinks = PostPicker(archive: archive, repostAfterDays: 30, allowsMentions: false, allowsLinks: true, logger: logger)
            for _ in 0..<60 { if let pick = try await withLinks.pick(at: now, using: &generator) { picked.insert(pick.post.postID) } }
            #expect(picked == [1, 2, 3])

            let replies = ReplyPicker(archive: archive, fallback: .none, allowsLinks: false)
            var answers = Set<PostID>()
            for _ in 0..<20 { if let pick = try await replies.pick(forAuthor: 300, using: &generator) { answers.insert(pick.source.postID) } }
            #expect(answers == [5])
            #expect(try await replies.pick(forAuthor: 400, using: &generator) == nil)
            #expect(
                try await replies.reasonForNoPick(forAuthor: 400).hasPrefix("every past reply of the human to this user that is left contains a link")
            )
            #expect(try await replies.reasonForNoPick(forAuthor: 500) == "no past reply of the human to this user")
            #expect(
                try await ReplyPicker(archive: archive, fallback: .none, allowsLinks: true).pick(forAuthor: 400, using: &generator)?.source.postID
                    == 6)
            #expect(try await replies.handle(ofUser: 400) == "other")
        }
    }

    /// `hour:minute` ten days before the pickers' day, as `PickerTests` dates its posts.
    func at(_ hour: Int, _ minute: Int) -> Date { PickerTests().at(hour, minute) }

    @Test("Mentions in every network's form are found (RT@ too); addresses and words with @ inside are not")
    func mentionedNames() {
        #expect(ArchiveRules.mentionedNames(in: "thanks @Carol and ＠dave_2!") == ["carol", "dave_2"])
        #expect(ArchiveRules.mentionedNames(in: "RT@bob: 面白い") == ["bob"])
        #expect(ArchiveRules.mentionedNames(in: "rt @bob 面白い") == ["bob"])
        #expect(ArchiveRules.mentionedNames(in: "ask @bob@example.social.") == ["bob@example.social"])
        #expect(ArchiveRules.mentionedNames(in: "hi @alice.bsky.social, hi") == ["alice.bsky.social"])
        #expect(ArchiveRules.mentionedNames(in: "こんにちは@taro さん") == ["taro"])
        #expect(ArchiveRules.mentionedNames(in: "mail me at bob@example.com, or @ noon") == [])
        #expect(ArchiveRules.mentionsSomeone("RT@bob hi"))
        #expect(!ArchiveRules.mentionsSomeone("bob@example.com"))
    }

    @Test(
        "A reply mentions nobody but the account answered: candidates naming a third party (anywhere, any form) or a blocked word are passed over; none left, it says why",
        arguments: StoreBackends.archives)
    func noBystanders(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let archive = database.archive(timeZone: PickerTests.utc, rowLimit: 100)
            try await archive.insert([
                ArchivedPost(postID: 1, text: "@bob thanks @carol", replyUserID: 300, createdAt: at(9, 0)),
                ArchivedPost(postID: 2, text: "@bob RT@carol それな", replyUserID: 300, createdAt: at(9, 1)),
                ArchivedPost(postID: 3, text: "@bob ask @dave@example.social", replyUserID: 300, createdAt: at(9, 2)),
                ArchivedPost(postID: 4, text: "@bob ＢＡＤＷＯＲＤ だよ", replyUserID: 300, createdAt: at(9, 3)),
                ArchivedPost(postID: 5, text: "@bob see you, @bob", replyUserID: 300, createdAt: at(9, 4)),
                ArchivedPost(postID: 6, text: "@bob またね", replyUserID: 300, createdAt: at(9, 5)),
            ])
            let picker = ReplyPicker(archive: archive, fallback: .none, blockedWords: WordList(["badword"]))
            var seen = Set<PostID>()
            for seed in 0..<40 {
                var generator = SplitMix64(seed: UInt64(seed))
                if let pick = try await picker.pick(forAuthor: 300, handle: "bob", using: &generator) { seen.insert(pick.source.postID) }
            }
            #expect(seen == [5, 6])  // naming the answered account is fine
            var generator = SplitMix64(seed: 1)
            // Without the handle (X reads mentions without them), the answered account is the one the person's reply
            // addressed first.
            #expect(try await picker.pick(forAuthor: 300, excluding: [6], using: &generator)?.source.postID == 5)
            #expect(try await picker.pick(forAuthor: 300, excluding: [5, 6], using: &generator) == nil)
            #expect(
                try await picker.reasonForNoPick(forAuthor: 300, excluding: [5, 6])
                    == "every past reply of the human to this user that is left mentions someone else, contains a blocked word (BLOCKED_WORDS) or is only @names"
            )
        }
    }

    @Test("A post with a blocked word is never picked, whatever its case or width; another is", arguments: StoreBackends.archives)
    func blockedWordsInPosts(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let archive = database.archive(timeZone: PickerTests.utc, rowLimit: 100)
            try await archive.insert(
                (1...10).map { ArchivedPost(postID: PostID($0), text: "ＳＰＯＩＬＥＲ \($0)", createdAt: at(12, $0)) }
                    + [ArchivedPost(postID: 11, text: "お昼ごはん", createdAt: at(12, 30))])
            let picker = PostPicker(
                archive: archive, repostAfterDays: 30, allowsMentions: false, blockedWords: WordList(["spoiler"]), logger: PickerTests.logger)
            for seed in 0..<10 {
                var generator = SplitMix64(seed: UInt64(seed))
                #expect(try await picker.pick(at: PickerTests.day.addingTimeInterval(12 * 3_600), using: &generator)?.post.postID == 11)
            }
            var generator = SplitMix64(seed: 1)
            #expect(try await picker.pick(at: PickerTests.day.addingTimeInterval(12 * 3_600), excluding: [11], using: &generator) == nil)
        }
    }
}
