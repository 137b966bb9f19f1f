import BotCore
import Consent
import Foundation
import Picking
import Remix
import SeededRandom
import Stores
import TestSupport
import Testing
import Tokenizer

/// `POST_STYLE=remix` through the post picker: remixes of the person's posts near the minute, under the copy's rules.
@Suite("Picking remixes")
struct RemixPickingTests {
    /// Thirty posts written around 08:00, sharing words as a person's do; a few the rules keep out; a few at 20:00.
    static func posts() -> [ArchivedPost] {
        let topics = ["ラーメン", "コーヒー", "本", "映画", "電車", "猫"]
        let lines = ["今日は{t}の日", "朝から{t}が気になる", "やっぱり{t}が好き", "{t}のせいで眠い", "久しぶりに{t}を見た"]
        var posts: [ArchivedPost] = []
        for (index, line) in lines.enumerated() {
            for (number, topic) in topics.enumerated() {
                posts.append(
                    ArchivedPost(
                        postID: PostID(index * 10 + number + 1), text: line.replacingOccurrences(of: "{t}", with: topic),
                        createdAt: PickerTests().at(8, index * 5 - 10 + number)))
            }
        }
        return posts + [
            ArchivedPost(postID: 101, text: "@bob 今日はラーメンが好き", createdAt: PickerTests().at(8, 1)),
            ArchivedPost(postID: 102, text: "今日はコーヒーの日 https://example.com/coffee", createdAt: PickerTests().at(8, 2)),
            ArchivedPost(postID: 103, text: "やっぱり秘密が好き", createdAt: PickerTests().at(8, 3)),
            ArchivedPost(postID: 104, text: "夕焼けのせいで眠い", createdAt: PickerTests().at(20, 0)),
        ]
            + topics.enumerated().map { number, topic in
                // What a remix of the morning's posts would often say, said in the evening: a remix is never one of them.
                ArchivedPost(postID: PostID(200 + number), text: "今日は\(topic)が好き", createdAt: PickerTests().at(20, 10 + number))
            }
    }

    static let remixer = Remixer(tokenizer: RemixerTests.tokenizer, length: .xWeighted(280))

    @Test(
        "Each pick is a remix of posts near the minute, from two at least, never with a mention, a link or a blocked word, never one posted lately",
        arguments: StoreBackends.archives)
    func remixes(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let archive = database.archive(timeZone: PickerTests.utc, rowLimit: 1_000)
            try await archive.prepare()
            let posts = Self.posts()
            try await archive.insert(posts)
            // The sources: distinct, within the window, in one read; all there are when asked for more; the same on every database.
            var drawing = SplitMix64(seed: 9)
            let five = try await archive.randomPosts(
                nearMinute: 8 * 60, radius: 30, count: 5, excluding: [1], allowingMentions: false,
                allowingLinks: false, using: &drawing)
            // Seed 9 draws these five on Postgres, SQLite and in memory alike.
            #expect(five.map(\.postID) == [34, 36, 15, 42, 16], "\(five.map(\.postID))")
            let all = try await archive.randomPosts(
                nearMinute: 8 * 60, radius: 30, count: 100, allowingMentions: false, allowingLinks: false,
                using: &drawing)
            let morning = posts.filter { $0.postID < 100 }.map(\.postID)
            #expect(all.count == 31 && Set(all.map(\.postID)) == Set(morning + [103]), "no mention, no link: \(all.map(\.postID).sorted())")
            let memory = RemixMemory(state: database.state, keptFor: 86_400)
            let picker = PostPicker(
                archive: archive, repostAfterDays: 30, allowsMentions: false, allowsLinks: false,
                blockedWords: WordList(["秘密"]), remixer: Self.remixer, remixMemory: memory, logger: PickerTests.logger)
            let now = PickerTests.day.addingTimeInterval(8 * 3_600)
            var generator = SplitMix64(seed: 3)
            var texts: [String] = []
            for _ in 0..<20 {
                let pick = try await picker.choose(at: now, using: &generator).get()
                let remix = try #require(pick.remix)
                #expect(pick.text == remix.text && pick.post.postID == remix.mainSourceID && pick.radius == 30)
                #expect(
                    Set(remix.sourceIDs).count >= 2 && remix.sourceIDs.allSatisfy { $0 <= 56 }, "only posts within ±30 min, none kept out: \(remix)")
                #expect(!posts.map(\.text).contains(remix.text))
                for kept in ["@bob", "http", "秘密", "夕焼け"] { #expect(!remix.text.contains(kept), "\(remix.text)") }
                #expect(remix.overlap <= 0.6)
                #expect(pick.origin.hasPrefix("a remix of the human's posts \(remix.sourceIDs.map(String.init).joined(separator: ", "))"))
                try await memory.remember(remix.text, postedAt: now)
                texts.append(remix.text)
            }
            #expect(Set(texts).count == texts.count, "a remix posted within the window is never written again: \(texts)")
            // A day later, the memory of the first day is past the window: remembering a new one forgets it.
            try await memory.remember("次の日", postedAt: now.addingTimeInterval(86_401))
            #expect(try await memory.texts(since: .distantPast).contains(texts[0]) == false)
            #expect(try await memory.texts(since: .distantPast).contains("次の日"))
        }
    }

    @Test(
        "When no remix of the posts near the minute passes (all say the same), the window is widened and a remix of the wider window's is posted",
        arguments: StoreBackends.archives)
    func widensWhenNoRemixPasses(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let archive = database.archive(timeZone: PickerTests.utc, rowLimit: 1_000)
            try await archive.prepare()
            // Around 08:00, 25 posts that all say one thing (any remix of them is that thing: a copy); the morning's
            // varied posts an hour and a half later.
            let same = (0..<25).map { ArchivedPost(postID: PostID(500 + $0), text: "いつもの朝の挨拶です", createdAt: PickerTests().at(8, $0 - 12)) }
            let varied = Self.posts().filter { $0.postID < 100 }.map {
                ArchivedPost(postID: $0.postID, text: $0.text, createdAt: $0.createdAt.addingTimeInterval(90 * 60))
            }
            try await archive.insert(same + varied)
            let picker = PostPicker(archive: archive, repostAfterDays: 30, allowsMentions: false, remixer: Self.remixer, logger: PickerTests.logger)
            var generator = SplitMix64(seed: 5)
            let pick = try await picker.choose(at: PickerTests.day.addingTimeInterval(8 * 3_600), using: &generator).get()
            let remix = try #require(pick.remix)
            #expect(pick.radius == 120, "the ±30 and ±60 windows hold only the one thing said")
            #expect(remix.sourceIDs.contains { $0 < 100 } && remix.text != "いつもの朝の挨拶です", "\(remix)")
        }
    }

    @Test("Too little to remix: the slot is skipped, saying why", arguments: StoreBackends.archives)
    func nothingToRemix(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let archive = database.archive(timeZone: PickerTests.utc, rowLimit: 1_000)
            try await archive.prepare()
            try await archive.insert([ArchivedPost(postID: 1, text: "今日はラーメンの日", createdAt: PickerTests().at(8, 0))])
            let picker = PostPicker(archive: archive, repostAfterDays: 30, allowsMentions: false, remixer: Self.remixer, logger: PickerTests.logger)
            var generator = SplitMix64(seed: 3)
            let choice = try await picker.choose(at: PickerTests.day.addingTimeInterval(8 * 3_600), using: &generator)
            guard case .failure(let nothing) = choice else {
                Issue.record("a remix of one post: \(choice)")
                return
            }
            #expect(nothing.description.hasPrefix("nothing to post: a remix needs at least two of the person's posts, and 1 could be drawn"))
            #expect(nothing.description.contains("REMIX_MAX_OVERLAP 0.6"))
        }
    }
}
