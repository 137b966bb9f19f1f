import Foundation
import InMemoryStores
import RedisClient
import RedisWordCounts
import SQLiteStores
import TestSupport
import Testing
import WordCounts

/// The behaviour every word-count backend shares, run against each: Redis (the original's layout), the embedded
/// SQLite file, and memory (what the virtual-clock days run on). One suite, parameterised by backend.
@Suite("Word-count backends behave the same")
struct WordCountBackendTests {
    enum Backend: String, CaseIterable, CustomTestStringConvertible {
        case redis, sqlite, memory
        var testDescription: String { rawValue }
    }

    /// Runs `body` with a fresh, empty store of `backend`, removed afterwards.
    static func withStore(_ backend: Backend, _ body: (any WordCountBackend) async throws -> Void) async throws {
        switch backend {
        case .redis:
            let store = RedisWordCounts(connection: try TestServers.redisConnection(), keyPrefix: TestServers.uniqueName("backend") + ":")
            do { try await body(store) } catch {
                _ = try? await store.removeAll()
                throw error
            }
            try await store.removeAll()
        case .sqlite:
            try await TestServers.withTemporaryFolder { folder in
                try await body(try SQLiteWordCounts(path: folder.appending(path: "mirror_bot.sqlite").path))
            }
        case .memory:
            try await body(InMemoryWordCounts())
        }
    }

    @Test("Learning counts each feature once per post and each post once per category", arguments: Backend.allCases)
    func learnAndRead(_ backend: Backend) async throws {
        try await Self.withStore(backend) { store in
            try await store.learn(batch: [(["寿司", "寿司", "@alice"], .favorite), (["寿司", "会議"], .normal), (["会議"], .normal)])
            let counts = try await store.counts(forEach: [["寿司", "会議", "未知"], ["@alice"]])
            #expect(counts.count == 2)
            #expect(counts[0].count(of: "寿司", in: .favorite) == 1 && counts[0].count(of: "寿司", in: .normal) == 1)
            #expect(counts[0].count(of: "会議", in: .normal) == 2 && counts[0].count(of: "未知", in: .favorite) == 0)
            #expect(counts[0].count(of: .favorite) == 1 && counts[0].count(of: .normal) == 2)
            #expect(counts[1].features.keys.sorted() == ["@alice"])
        }
    }

    @Test("Moving to favorite takes counts out of normal, never below zero", arguments: Backend.allCases)
    func moveToFavorite(_ backend: Backend) async throws {
        try await Self.withStore(backend) { store in
            try await store.learn(["猫"], as: .normal)
            try await store.moveToFavorite(batch: [["猫", "写真"], ["猫"]])
            let counts = try await store.counts(for: ["猫", "写真"])
            #expect(counts.count(of: "猫", in: .favorite) == 2 && counts.count(of: "猫", in: .normal) == 0)
            #expect(counts.count(of: "写真", in: .favorite) == 1 && counts.count(of: "写真", in: .normal) == 0)
            #expect(counts.count(of: .favorite) == 2 && counts.count(of: .normal) == 0)
        }
    }

    @Test("Likes and timeline posts are learned once per id; again, nothing changes", arguments: Backend.allCases)
    func learnOnce(_ backend: Backend) async throws {
        try await Self.withStore(backend) { store in
            #expect(try await store.learnNormalsOnce([(id: "1", features: ["猫"]), (id: "2", features: ["会議"])]) == 2)
            #expect(try await store.learnNormalsOnce([(id: "1", features: ["猫"])]) == 0)
            #expect(try await store.learnFavoritesOnce([(id: "1", features: ["猫"]), (id: "3", features: ["寿司"])]) == 2)
            #expect(try await store.learnFavoritesOnce([(id: "3", features: ["寿司"])]) == 0)
            #expect(try await store.wasLearnedAsFavorite("3"))
            #expect(!(try await store.wasLearnedAsFavorite("2")))
            let counts = try await store.counts(for: ["猫", "会議", "寿司"])
            #expect(counts.count(of: "猫", in: .favorite) == 1 && counts.count(of: "猫", in: .normal) == 0)
            #expect(counts.count(of: .favorite) == 2 && counts.count(of: .normal) == 0)  // 2 normals, both moved out by the likes
        }
    }

    @Test("Training flags are set once; clearing removes counts, ids and flags", arguments: Backend.allCases)
    func flagsAndClearing(_ backend: Backend) async throws {
        try await Self.withStore(backend) { store in
            #expect(!(try await store.isTrained("classifier")))
            try await store.markTrained("classifier")
            try await store.markTrained("classifier")
            #expect(try await store.isTrained("classifier"))
            _ = try await store.learnFavoritesOnce([(id: "9", features: ["猫"])])
            #expect(try await store.removeAll() > 0)
            #expect(!(try await store.isTrained("classifier")))
            #expect(!(try await store.wasLearnedAsFavorite("9")))
            #expect(try await store.counts(for: ["猫"]).count(of: .favorite) == 0)
        }
    }

    @Test("A seeded mix of operations and batches leaves every backend with the same counts")
    func backendsAgree() async throws {
        let words = ["猫", "寿司", "会議", "電車", "写真", "@alice", "@bob"]
        var random = SeededGenerator(seed: 11)
        var operations: [(kind: Int, id: String, features: [String])] = []
        for index in 0..<300 {
            let features = (0..<Int.random(in: 1...4, using: &random)).map { _ in words.randomElement(using: &random)! }
            operations.append((Int.random(in: 0..<4, using: &random), String(Int.random(in: 0..<120, using: &random) + index % 2), features))
        }
        var results: [[FeatureCounts]] = []
        for backend in Backend.allCases {
            try await Self.withStore(backend) { store in
                for operation in operations {
                    switch operation.kind {
                    case 0: try await store.learn(operation.features, as: .normal)
                    case 1: try await store.moveToFavorite(batch: [operation.features, Array(operation.features.prefix(2))])
                    case 2:
                        try await store.learnFavoritesOnce([
                            (id: operation.id, features: operation.features),
                            (id: operation.id + "b", features: operation.features.reversed()),
                        ])
                    default: try await store.learnNormalsOnce([(id: operation.id, features: operation.features)])
                    }
                }
                results.append(try await store.counts(forEach: words.map { [$0] }))
            }
        }
        #expect(results.count == Backend.allCases.count)
        #expect(results.allSatisfy { $0 == results[0] })
        #expect(results.first?.contains { $0.count(of: .favorite) > 0 } == true)
    }
}
