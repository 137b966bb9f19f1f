import RedisClient
import RedisWordCounts
import TestSupport
import Testing
import WordCounts

/// A store with a key prefix no other test uses, and its raw connection.
func makeStore() throws -> RedisWordCounts {
    RedisWordCounts(connection: try TestServers.redisConnection(), keyPrefix: TestServers.uniqueName("wc") + ":")
}

/// A store on the Redis that only this suite uses, whose command counts are exact.
func makeCountedStore() throws -> RedisWordCounts {
    RedisWordCounts(connection: RedisConnection(url: try TestServers.statsRedisURL()), keyPrefix: TestServers.uniqueName("wc") + ":")
}

/// The server's count of calls of each command so far (INFO commandstats). Server-wide: it is read on the Redis
/// that only this suite uses, and this suite runs its tests one at a time.
func commandCalls(_ connection: RedisConnection) async throws -> [String: Int] {
    let info = try await connection.send("INFO", "commandstats").stringValue ?? ""
    var calls: [String: Int] = [:]
    for line in info.split(whereSeparator: \.isNewline) where line.hasPrefix("cmdstat_") {
        let name = line.dropFirst("cmdstat_".count).prefix { $0 != ":" }
        if let range = line.range(of: "calls="), let number = Int(line[range.upperBound...].prefix { $0.isNumber }) {
            calls[String(name)] = number
        }
    }
    return calls
}

@Suite("Word counts in Redis", .serialized)
struct RedisWordCountsTests {
    @Test("Learning a post is one round trip and writes the original's key layout")
    func learnOnePost() async throws {
        let store = try makeCountedStore()
        let observer = RedisConnection(url: try TestServers.statsRedisURL())
        let callsBefore = try await commandCalls(observer)
        let before = store.connection.statistics
        try await store.learn(["猫", "寿司", "猫", "alice"], as: .normal)
        #expect(store.connection.statistics.roundTrips - before.roundTrips == 1)
        let callsAfter = try await commandCalls(observer)
        // Three distinct features, one counter: exactly what the server saw.
        #expect(callsAfter["hincrby", default: 0] - callsBefore["hincrby", default: 0] == 3)
        #expect(callsAfter["incrby", default: 0] - callsBefore["incrby", default: 0] == 1)

        let raw = try #require(store.connection as? RedisConnection)
        #expect(try await raw.send("HGET", store.keyPrefix + "features:猫", "categories:normal").integerValue == 1)
        #expect(try await raw.send("HGET", store.keyPrefix + "features:猫", "categories:favorite") == .null)
        #expect(try await raw.send("GET", store.keyPrefix + "categories:normal").integerValue == 1)
        try await store.removeAll()
    }

    @Test("Reading every count to classify a post is one round trip")
    func countsForOnePost() async throws {
        let store = try makeCountedStore()
        try await store.learn(["猫", "寿司"], as: .favorite)
        try await store.learn(["猫", "会議"], as: .normal)
        try await store.learn(["会議"], as: .normal)
        let observer = RedisConnection(url: try TestServers.statsRedisURL())
        let callsBefore = try await commandCalls(observer)
        let before = store.connection.statistics
        let counts = try await store.counts(for: ["猫", "会議", "未知語", "猫"])
        #expect(store.connection.statistics.roundTrips - before.roundTrips == 1)
        let callsAfter = try await commandCalls(observer)
        #expect(callsAfter["hmget", default: 0] - callsBefore["hmget", default: 0] == 3)
        #expect(callsAfter["mget", default: 0] - callsBefore["mget", default: 0] == 1)

        #expect(counts.count(of: "猫", in: .favorite) == 1)
        #expect(counts.count(of: "猫", in: .normal) == 1)
        #expect(counts.count(of: "会議", in: .normal) == 2)
        #expect(counts.count(of: "未知語", in: .favorite) == 0)
        #expect(counts.count(of: .favorite) == 1)
        #expect(counts.count(of: .normal) == 2)
        try await store.removeAll()
    }

    @Test("A batch of posts is learned and read in one round trip each")
    func batches() async throws {
        let store = try makeStore()
        let posts: [(features: [String], category: Category)] = (0..<200).map { index in
            (["word\(index % 7)", "話題\(index % 3)", "author\(index % 5)"], index % 4 == 0 ? .favorite : .normal)
        }
        let before = store.connection.statistics
        try await store.learn(batch: posts)
        let all = try await store.counts(forEach: posts.map(\.features))
        #expect(store.connection.statistics.roundTrips - before.roundTrips == 2)
        #expect(all.count == 200)
        // word0 appears for indexes 0, 7, 14, ...: 29 posts; favorites are those divisible by 4 too (0, 28, 56, ...).
        #expect(all[0].count(of: "word0", in: .favorite) == 8)
        #expect(all[0].count(of: "word0", in: .normal) == 21)
        #expect(all[0].count(of: .favorite) == 50)
        #expect(all[0].count(of: .normal) == 150)
        try await store.removeAll()
    }

    @Test("Moving a post to favorite decrements normal counts, never below zero, in one round trip")
    func moveToFavorite() async throws {
        let store = try makeStore()
        try await store.learn(["猫", "寿司"], as: .normal)
        let before = store.connection.statistics
        try await store.moveToFavorite(["猫", "寿司", "初見"])
        #expect(store.connection.statistics.roundTrips - before.roundTrips == 1)
        var counts = try await store.counts(for: ["猫", "寿司", "初見"])
        #expect(counts.count(of: "猫", in: .favorite) == 1)
        #expect(counts.count(of: "猫", in: .normal) == 0)
        #expect(counts.count(of: "初見", in: .favorite) == 1)
        #expect(counts.count(of: "初見", in: .normal) == 0)
        #expect(counts.count(of: .favorite) == 1)
        #expect(counts.count(of: .normal) == 0)
        // Again: nothing goes below zero.
        try await store.moveToFavorite(batch: [["猫"], ["猫"]])
        counts = try await store.counts(for: ["猫"])
        #expect(counts.count(of: "猫", in: .favorite) == 3)
        #expect(counts.count(of: "猫", in: .normal) == 0)
        #expect(counts.count(of: .normal) == 0)
        try await store.removeAll()
    }

    @Test("Likes learned once: one round trip in one transaction, and the same ids again change nothing")
    func learnFavoritesOnce() async throws {
        let store = try makeStore()
        try await store.learn(["猫"], as: .normal)
        let before = store.connection.statistics.roundTrips
        #expect(try await store.learnFavoritesOnce([("1", ["猫", "写真"]), ("2", ["猫"])]) == 2)
        #expect(store.connection.statistics.roundTrips - before == 1)
        #expect(try await store.learnFavoritesOnce([("2", ["猫"]), ("3", ["犬"])]) == 1)
        let counts = try await store.counts(for: ["猫", "犬"])
        #expect(counts.count(of: "猫", in: .favorite) == 2)
        #expect(counts.count(of: "猫", in: .normal) == 0)
        #expect(counts.count(of: .favorite) == 3)
        #expect(try await store.wasLearnedAsFavorite("2"))
        #expect(try await !store.wasLearnedAsFavorite("4"))
        try await store.removeAll()
        #expect(try await !store.wasLearnedAsFavorite("2"))
    }

    @Test("Counts written by the original bot are read as they are")
    func readsOriginalData() async throws {
        let store = try makeStore()
        let raw = try #require(store.connection as? RedisConnection)
        _ = try await raw.pipeline([
            ["HSET", store.keyPrefix + "features:ラーメン", "categories:favorite", "4", "categories:normal", "9"],
            ["SET", store.keyPrefix + "categories:favorite", "120"],
            ["SET", store.keyPrefix + "categories:normal", "800"],
            ["SET", store.keyPrefix + "trained:classifier", "true"],
        ])
        let counts = try await store.counts(for: ["ラーメン"])
        #expect(counts.count(of: "ラーメン", in: .favorite) == 4)
        #expect(counts.count(of: "ラーメン", in: .normal) == 9)
        #expect(counts.count(of: .favorite) == 120)
        #expect(try await store.isTrained("classifier"))
        #expect(try await !store.isTrained("scheduler"))
        try await store.removeAll()
    }

    @Test("Training flags are set once and read back")
    func trainingFlags() async throws {
        let store = try makeStore()
        #expect(try await !store.isTrained("scheduler"))
        try await store.markTrained("scheduler")
        #expect(try await store.isTrained("scheduler"))
        try await store.removeAll()
        #expect(try await !store.isTrained("scheduler"))
    }

    @Test("Clearing deletes this store's keys only, never other data in the same Redis")
    func clearKeepsOtherData() async throws {
        let store = try RedisWordCounts(connection: TestServers.redisConnection(), keyPrefix: TestServers.uniqueName("glob*[x]") + ":")
        let neighbour = try makeStore()
        let raw = try #require(store.connection as? RedisConnection)
        let unrelated = TestServers.uniqueName("unrelated")
        try await raw.send("SET", unrelated, "keep me")
        try await raw.send("SET", store.keyPrefix + "sessions:1", "keep me too")
        try await store.learn((0..<1500).map { "語\($0)" }, as: .normal)
        try await store.markTrained("classifier")
        try await neighbour.learn(["猫"], as: .favorite)

        #expect(try await store.removeAll() == 1502)
        #expect(try await store.counts(for: ["語1"]).count(of: "語1", in: .normal) == 0)
        #expect(try await raw.send("GET", unrelated).stringValue == "keep me")
        #expect(try await raw.send("GET", store.keyPrefix + "sessions:1").stringValue == "keep me too")
        #expect(try await neighbour.counts(for: ["猫"]).count(of: "猫", in: .favorite) == 1)
        try await raw.send("DEL", unrelated, store.keyPrefix + "sessions:1")
        try await neighbour.removeAll()
    }
}
