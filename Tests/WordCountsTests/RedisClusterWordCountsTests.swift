import BotConfiguration
import Foundation
import RedisClient
import RedisWordCounts
import TestSupport
import Testing
import WordCounts

/// The word counts on a three-master Redis Cluster (started on loopback by `script/test`): the same counts as on one
/// Redis for the same learning, every key of a bot in one slot, and the cluster's redirections followed while that
/// slot moves from one node to another.
@Suite("The word counts on a Redis Cluster", .serialized)
struct RedisClusterWordCountsTests {
    static let learning: [(features: [String], category: Category)] = (0..<300).map { index in
        let topics = ["寿司", "ラーメン", "猫", "会議", "電車", "写真", "雨", "映画"]
        return (
            ["\(topics[index % topics.count])", "\(topics[(index * 7 + 3) % topics.count])", "@user\(index % 11)", "word\(index % 37)"],
            index % 3 == 0 ? .favorite : .normal
        )
    }

    /// Learns `Self.learning` into `store` in batches, as the learner does (timeline as normal, then likes moved over).
    static func learn(into store: RedisWordCounts) async throws {
        for start in stride(from: 0, to: learning.count, by: 50) {
            let batch = learning[start..<min(start + 50, learning.count)]
            try await store.learn(batch: batch.map { (features: $0.features, category: Category.normal) })
            try await store.moveToFavorite(batch: batch.filter { $0.category == .favorite }.map(\.features))
            _ = try await store.learnFavoritesOnce(
                batch.enumerated().filter { $0.element.category == .favorite }
                    .map { (id: "tweet-\(start + $0.offset)", features: $0.element.features) })
        }
        try await store.markTrained("classifier")
    }

    @Test("Hash slots as Redis computes them: CRC16 of the key, or of its hash tag")
    func slots() {
        #expect(RedisClusterConnection.slot(of: "123456789") == 12_739)  // CRC16/XMODEM check value 0x31C3
        #expect(RedisClusterConnection.slot(of: "{user1000}.following") == RedisClusterConnection.slot(of: "{user1000}.followers"))
        #expect(RedisClusterConnection.slot(of: "{bot:alice}:features:寿司") == RedisClusterConnection.slot(of: "bot:alice"))
        #expect(RedisClusterConnection.slot(of: "foo{}{bar}") == RedisClusterConnection.slot(of: "foo{}{bar}"))  // an empty tag: the whole key
        #expect(RedisClusterConnection.slot(of: "{}") == RedisClusterConnection.slot(of: "{}"))
    }

    @Test("The same learning gives the same counts on the cluster as on one Redis; every key of the bot is in its tag's slot")
    func sameCountsAsOneRedis() async throws {
        let name = TestServers.uniqueName("cluster")
        let cluster = RedisClusterConnection(seed: try TestServers.redisClusterURL())
        let onCluster = RedisWordCounts(connection: cluster, keyPrefix: "{bot:\(name)}:")
        let single = RedisWordCounts(connection: try TestServers.redisConnection(), keyPrefix: name + ":")
        defer { cluster.close() }
        try await Self.learn(into: onCluster)
        try await Self.learn(into: single)
        let probes = Self.learning.prefix(40).map(\.features) + [["never-seen"]]
        #expect(try await onCluster.counts(forEach: probes) == single.counts(forEach: probes))
        #expect(try await onCluster.isTrained("classifier"))
        #expect(try await onCluster.wasLearnedAsFavorite("tweet-0"))
        #expect(try await !onCluster.wasLearnedAsFavorite("tweet-1"))
        // Every key the bot made is on the one node serving its slot.
        let slot = RedisClusterConnection.slot(of: "{bot:\(name)}")
        let owner = try await Self.node(serving: slot)
        let keys = try await owner.send("CLUSTER", "COUNTKEYSINSLOT", String(slot)).integerValue ?? 0
        #expect(keys >= 40, "\(keys) keys in slot \(slot)")
        #expect(try await onCluster.removeAll() == Int(keys))
        try await single.removeAll()
    }

    @Test(
        "A bot's counts moved under another prefix (`bots adopt`) read the same there, on one Redis and across the cluster's slots; none are left behind"
    )
    func movedCountsReadTheSame() async throws {
        let name = TestServers.uniqueName("moved")
        let cluster = RedisClusterConnection(seed: try TestServers.redisClusterURL())
        let redis = try TestServers.redisConnection()
        defer { cluster.close() }
        let reference = RedisWordCounts(connection: redis, keyPrefix: name + "-reference:")
        try await Self.learn(into: reference)
        let probes = Self.learning.prefix(40).map(\.features) + [["never-seen"]]
        let expected = try await reference.counts(forEach: probes)
        for (connection, from, to) in [
            (redis as any RedisPipelining, name + ":", name + "-fleet:"),
            (cluster as any RedisPipelining, "{bot:\(name)}:", "{bot:\(name)-fleet}:"),
        ] {
            let single = RedisWordCounts(connection: connection, keyPrefix: from)
            let adopted = RedisWordCounts(connection: connection, keyPrefix: to)
            try await Self.learn(into: single)
            let moved = try await single.move(to: adopted)
            #expect(moved > 40, "\(moved) keys moved")
            #expect(try await adopted.counts(forEach: probes) == expected)
            #expect(try await adopted.isTrained("classifier"))
            #expect(try await adopted.wasLearnedAsFavorite("tweet-0"))
            #expect(try await !adopted.wasLearnedAsFavorite("tweet-1"))
            #expect(try await single.removeAll() == 0, "keys left under \(from)")
            #expect(try await adopted.removeAll() == moved)
        }
        try await reference.removeAll()
    }

    @Test("While the bot's slot migrates to another node, new keys follow ASK to it; once moved, MOVED sends everything there; counts stay exact")
    func followsRedirections() async throws {
        let name = TestServers.uniqueName("moving")
        let prefix = "{bot:\(name)}:"
        let slot = RedisClusterConnection.slot(of: "{bot:\(name)}")
        let cluster = RedisClusterConnection(seed: try TestServers.redisClusterURL())
        defer { cluster.close() }
        let store = RedisWordCounts(connection: cluster, keyPrefix: prefix)
        try await store.learn(batch: [(features: ["寿司", "猫"], category: .normal)])
        let source = try await Self.node(serving: slot)
        let nodes = try await Self.masters()
        let target = try #require(nodes.first { $0.address != "\(source.url.host):\(source.url.port)" })
        let sourceID = try await Self.nodeID(source)
        let targetConnection = RedisConnection(url: try Self.url(target.address))
        // Migration begins: the target imports the slot, the source migrates it; no key has moved yet.
        try await targetConnection.send("CLUSTER", "SETSLOT", String(slot), "IMPORTING", sourceID)
        try await source.send("CLUSTER", "SETSLOT", String(slot), "MIGRATING", target.id)
        // An existing key is still served by the source; a new one is created on the target after ASKING.
        try await store.learn(batch: [(features: ["寿司", "ラーメン"], category: .normal)])
        #expect(cluster.redirections >= 1, "ASK was followed")
        // (The target serves an importing slot's keys only after ASKING.)
        #expect(try await targetConnection.pipeline([["ASKING"], ["EXISTS", prefix + "features:ラーメン"]])[1].integerValue == 1)
        #expect(try await source.send("EXISTS", prefix + "features:寿司").integerValue == 1)
        // The keys move, and the slot is given to the target everywhere: the next calls meet MOVED and follow it.
        let keys = try await source.send("CLUSTER", "GETKEYSINSLOT", String(slot), "100").arrayValue?.compactMap { $0.stringValue } ?? []
        #expect(!keys.isEmpty)
        try await source.pipeline([["MIGRATE", "127.0.0.1", String(Self.port(target.address)), "", "0", "5000", "KEYS"] + keys])[0].checked()
        for node in nodes { try await RedisConnection(url: try Self.url(node.address)).send("CLUSTER", "SETSLOT", String(slot), "NODE", target.id) }
        let before = cluster.redirections
        let counts = try await store.counts(forEach: [["寿司", "猫", "ラーメン"]])
        #expect(cluster.redirections > before, "MOVED was followed")
        #expect(counts[0].features["寿司"]?[.normal] == 2 && counts[0].features["猫"]?[.normal] == 1 && counts[0].features["ラーメン"]?[.normal] == 1)
        #expect(counts[0].categories[.normal] == 2)
        // Given back to where it was, for the other tests.
        let moved = try await targetConnection.send("CLUSTER", "GETKEYSINSLOT", String(slot), "100").arrayValue?.compactMap { $0.stringValue } ?? []
        for key in moved {
            try await targetConnection.send("DEL", key)
        }
        for node in nodes { try await RedisConnection(url: try Self.url(node.address)).send("CLUSTER", "SETSLOT", String(slot), "NODE", sourceID) }
    }

    // MARK: - The cluster as the tests see it

    static func url(_ address: String) throws -> RedisURL {
        var url = try TestServers.redisClusterURL()
        url.port = port(address)
        return url
    }

    static func port(_ address: String) -> Int { Int(address.split(separator: ":").last ?? "") ?? 0 }

    /// Each master's id and address (`host:port`), from `CLUSTER NODES`.
    static func masters() async throws -> [(id: String, address: String)] {
        let text = try await RedisConnection(url: TestServers.redisClusterURL()).send("CLUSTER", "NODES").stringValue ?? ""
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count > 2, fields[2].contains("master") else { return nil }
            return (String(fields[0]), String(fields[1].split(separator: "@")[0]))
        }
    }

    /// A connection to the master serving `slot`.
    static func node(serving slot: Int) async throws -> RedisConnection {
        let reply = try await RedisConnection(url: TestServers.redisClusterURL()).send("CLUSTER", "SLOTS")
        for entry in reply.arrayValue ?? [] {
            guard let parts = entry.arrayValue, let lower = parts[0].integerValue, let upper = parts[1].integerValue, lower <= slot, slot <= upper,
                let master = parts[2].arrayValue, let port = master[1].integerValue
            else { continue }
            return RedisConnection(url: try url("127.0.0.1:\(port)"))
        }
        throw RedisError.unexpectedReply("no node serves slot \(slot)")
    }

    static func nodeID(_ connection: RedisConnection) async throws -> String {
        try await connection.send("CLUSTER", "MYID").stringValue ?? ""
    }
}
