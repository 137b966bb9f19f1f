import Foundation
import InMemoryStores
import RedisClient
import RedisWordCounts
import SQLiteStores
import Synchronization
import TestSupport
import Testing
import WordCounts

/// The markers of posts learned as `normal` are kept for `LearnedMarkers.normalWeeks` weeks, not for ever: the
/// store stays within a small plan (Heroku's redis mini holds 25 MB) while a post read twice within weeks is still
/// learned once.
@Suite("Learned-tweet markers are let go after weeks")
struct LearnedMarkersTests {
    /// A clock the store files markers by, moved by the test.
    final class Calendar: Sendable {
        private let date = Mutex(Date(timeIntervalSince1970: 1_795_273_200))
        var now: Date { date.withLock { $0 } }
        func advance(days: Double) { date.withLock { $0 = $0.addingTimeInterval(days * 86_400) } }
    }

    @Test(
        "Within the weeks a post is learned as normal once; after them, its marker is gone and it counts again; likes' markers stay",
        arguments: WordCountBackendTests.Backend.allCases)
    func weeks(_ backend: WordCountBackendTests.Backend) async throws {
        let calendar = Calendar()
        func check(_ store: any WordCountBackend) async throws {
            #expect(try await store.learnNormalsOnce([("1", ["会議"]), ("2", ["電車"])]) == 2)
            calendar.advance(days: 7 * Double(LearnedMarkers.normalWeeks - 1))
            #expect(try await store.forgetOldNormalMarkers() == 0)
            #expect(try await store.learnNormalsOnce([("1", ["会議"])]) == 0)  // still remembered
            #expect(try await store.learnFavoritesOnce([("9", ["寿司"])]) == 1)
            calendar.advance(days: 14)
            _ = try await store.forgetOldNormalMarkers()
            #expect(try await store.learnNormalsOnce([("2", ["電車"])]) == 1)  // let go: learned again
            #expect(try await store.learnFavoritesOnce([("9", ["寿司"])]) == 0)  // likes are remembered for good
            #expect(try await store.counts(for: ["電車"]).count(of: "電車", in: .normal) == 2)
        }
        switch backend {
        case .redis:
            let connection = try TestServers.redisConnection()
            let store = RedisWordCounts(connection: connection, keyPrefix: TestServers.uniqueName("markers") + ":", now: { calendar.now })
            do { try await check(store) } catch {
                _ = try? await store.removeAll()
                throw error
            }
            // Each week's set expires by itself, a week after the last week that reads it.
            let key = store.normalMarkersKey(week: LearnedMarkers.week(of: calendar.now))
            let ttl = try #require(try await connection.send("TTL", key).integerValue)
            #expect(ttl > 0 && ttl <= Int64((LearnedMarkers.normalWeeks + 1) * 7 * 86_400))
            try await store.removeAll()
        case .sqlite:
            try await TestServers.withTemporaryFolder { folder in
                try await check(try SQLiteWordCounts(path: folder.appending(path: "counts.sqlite").path, now: { calendar.now }))
            }
        case .memory:
            try await check(InMemoryWordCounts(now: { calendar.now }))
        }
    }

    @Test("The old unbucketed Redis set of normal markers is let go by the first housekeeping")
    func legacyRedisSet() async throws {
        let connection = try TestServers.redisConnection()
        let store = RedisWordCounts(connection: connection, keyPrefix: TestServers.uniqueName("legacy") + ":")
        try await connection.send("SADD", store.learnedKey(.normal), "1", "2", "3")
        #expect(try await store.learnNormalsOnce([("1", ["会議"])]) == 0)  // still honoured until let go
        #expect(try await store.forgetOldNormalMarkers() == 3)
        #expect(try await connection.send("EXISTS", store.learnedKey(.normal)).integerValue == 0)
        try await store.removeAll()
    }
}
