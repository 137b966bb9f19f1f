import BotCore
import Foundation
import Stores
import TestSupport
import Testing

/// The stores behind planned likes agree on every database: the person's likes, a day's like slots, and the posts
/// kept for them.
@Suite("Like plans in the stores", .serialized)
struct LikePlanStoreTests {
    static let now = Date(timeIntervalSince1970: 1_795_273_200)

    @Test("The person's likes are stored once each; an exact time replaces an estimated one, never the reverse", arguments: StoreBackends.archives)
    func personLikes(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let likes = database.likes
            let estimated = PersonLike(postID: 1, likedAt: Self.now.addingTimeInterval(-3_600), isExact: false)
            let exact = PersonLike(postID: 1, likedAt: Self.now.addingTimeInterval(-600), isExact: true)
            #expect(try await likes.recordPersonLikes([estimated, PersonLike(postID: 2, likedAt: Self.now, isExact: true)]) == 2)
            #expect(try await likes.recordPersonLikes([exact]) == 0)
            #expect(try await likes.recordPersonLikes([estimated]) == 0)
            let stored = try await likes.personLikes()
            #expect(stored.map(\.postID) == [1, 2])
            #expect(stored.first == exact, "\(stored)")
        }
    }

    @Test("A day's like plan is stored once; a slot is liked (with the like, in one transaction) or skipped once", arguments: StoreBackends.archives)
    func plan(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let likes = database.likes
            #expect(try await likes.likeSlots(of: "2026-11-26") == nil)
            #expect(try await likes.storeLikePlan(day: "2026-11-26", minutes: [600, 420], drawnAt: Self.now).map(\.minute) == [420, 600])
            // A second drawing (another process, a restart) keeps the first.
            #expect(try await likes.storeLikePlan(day: "2026-11-26", minutes: [1], drawnAt: Self.now).map(\.minute) == [420, 600])
            #expect(try await likes.storeLikePlan(day: "2026-11-27", minutes: [], drawnAt: Self.now).isEmpty)
            #expect(try await likes.likeSlots(of: "2026-11-27") == [])  // a quiet day is a plan too

            try await likes.keepCandidates([
                LikeCandidate(postID: 77, authorID: 5, authorHandle: "alice", logRatio: 2, reason: "r", postedAt: Self.now)
            ])
            let like = RecordedLike(postID: 77, authorID: 5, logRatio: 2, reason: "best", likedAt: Self.now)
            #expect(try await likes.markLiked(day: "2026-11-26", minute: 420, like: like))
            #expect(
                try await !likes.markLiked(
                    day: "2026-11-26", minute: 420, like: RecordedLike(postID: 78, authorID: nil, logRatio: 1, reason: "x", likedAt: Self.now)))
            #expect(try await !likes.markLiked(day: "2026-11-26", minute: 600, like: like), "a post liked before is not liked at another slot")
            #expect(try await likes.likes().map(\.postID) == [77])
            #expect(try await likes.candidates(postedSince: .distantPast).isEmpty, "the liked post is no longer kept")
            try await likes.markLikeSkipped(day: "2026-11-26", minute: 600, at: Self.now, reason: "no post")
            try await likes.markLikeSkipped(day: "2026-11-26", minute: 420, at: Self.now, reason: "too late")  // liked stays liked
            let slots = try #require(try await likes.likeSlots(of: "2026-11-26"))
            #expect(
                slots == [
                    LikeSlot(minute: 420, state: .liked, postID: 77, logRatio: 2, reason: "best", doneAt: Self.now),
                    LikeSlot(minute: 600, state: .skipped, reason: "no post", doneAt: Self.now),
                ])
        }
    }

    @Test(
        "Posts kept to like come best first (score, then newest), never one liked, and are forgotten by age or one by one",
        arguments: StoreBackends.archives)
    func candidates(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let likes = database.likes
            func candidate(_ id: Int64, _ score: Double, ago: TimeInterval) -> LikeCandidate {
                LikeCandidate(
                    postID: PostID(id), authorID: id == 4 ? nil : 9, authorHandle: id == 4 ? nil : "bob", logRatio: score, reason: "r\(id)",
                    postedAt: Self.now.addingTimeInterval(-ago))
            }
            _ = try await likes.recordLike(postID: 5, authorID: nil, logRatio: 9, reason: "liked before", at: Self.now)
            try await likes.keepCandidates([
                candidate(1, 1.5, ago: 60), candidate(2, 3, ago: 600), candidate(3, 3, ago: 300),
                candidate(4, 2, ago: 90_000), candidate(5, 9, ago: 10),
            ])
            try await likes.keepCandidates([candidate(1, 8, ago: 60)])  // kept once: the first score stays
            #expect(try await likes.candidates(postedSince: .distantPast).map(\.postID) == [3, 2, 4, 1])
            #expect(try await likes.candidates(postedSince: .distantPast).last == candidate(1, 1.5, ago: 60))
            #expect(try await likes.candidates(postedSince: Self.now.addingTimeInterval(-86_400)).map(\.postID) == [3, 2, 1])
            try await likes.forgetCandidates(postedBefore: Self.now.addingTimeInterval(-86_400), postID: nil)
            try await likes.forgetCandidates(postedBefore: nil, postID: 3)
            #expect(try await likes.candidates(postedSince: .distantPast).map(\.postID) == [2, 1])
        }
    }
}
