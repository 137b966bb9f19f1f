public import BotConfiguration
public import NIOPosix
import Synchronization

/// Where pipelines of commands go: one Redis server, or the node of a Redis Cluster that holds the keys they are about.
public protocol RedisPipelining: Sendable {
    /// Where the commands go, without secrets, for error messages ("Redis at host:6379").
    var location: String { get }
    /// Sends `commands`, each about keys in the hash slot of `routingKey` (their common hash tag), in one round trip
    /// where the keys' node is known, and returns their replies in order; an error reply is returned, not thrown.
    func pipeline(_ commands: [[String]], routingKey: String) async throws -> [RedisReply]
    /// Closes what is open; the next call opens anew.
    func close()
    /// What was sent so far (a cluster's: all its nodes').
    var statistics: RedisConnection.Statistics { get }
}

extension RedisConnection: RedisPipelining {
    /// "Redis at host:port".
    public var location: String { "Redis at \(url.redacted)" }
    /// One server holds every key: `routingKey` says nothing.
    public func pipeline(_ commands: [[String]], routingKey: String) async throws -> [RedisReply] { try await pipeline(commands) }
}

/// A Redis Cluster through hiredis: the slot map read with `CLUSTER SLOTS` from any node, each pipeline sent to the
/// node holding its keys' hash slot (all of one bot's keys share a hash tag, `{bot:<id>}`, so one slot and one node),
/// and the cluster's redirections followed: `MOVED` (the slot lives elsewhere now: the map is read again and the
/// pipeline sent there), `ASK` (the slot is being migrated and this key is already on the target: the command goes
/// there after `ASKING`, once), `TRYAGAIN` (a multi-key command during a migration: sent again shortly). A pipeline
/// in a transaction (`MULTI`…`EXEC`) that meets a redirection was not carried out (`EXECABORT`) and is sent again whole.
public final class RedisClusterConnection: RedisPipelining {
    /// The node first asked for the slot map (the others are learned from it), with the credentials for every node.
    public let seed: RedisURL
    /// For `rediss://`: the CA certificate file of every node's certificate.
    public let certificateAuthority: String?
    private let threadPool: NIOThreadPool
    private let state = Mutex(State())

    private struct State {
        /// The slot map: each range of hash slots and the address (`host:port`) of the node that serves it.
        var ranges: [(lower: Int, upper: Int, address: String)] = []
        var nodes: [String: RedisConnection] = [:]
        var redirections = 0
    }

    /// How many redirections (`MOVED`, `ASK`) were followed, for tests and benchmarks.
    public var redirections: Int { state.withLock { $0.redirections } }

    /// A cluster reached first through `seed`; nothing is opened until the first call.
    public init(seed: RedisURL, certificateAuthority: String? = nil, threadPool: NIOThreadPool = .singleton) {
        self.seed = seed
        self.certificateAuthority = certificateAuthority
        self.threadPool = threadPool
    }

    /// "Redis Cluster at host:port".
    public var location: String { "Redis Cluster at \(seed.redacted)" }

    /// The hash slot (0–16383) of `key`: CRC16 (XMODEM) of its hash tag (the text between the first `{` and the next
    /// `}`, when not empty) or of the whole key, modulo 16384, as Redis Cluster computes it.
    public static func slot(of key: String) -> Int {
        var bytes = Array(key.utf8)
        if let open = bytes.firstIndex(of: UInt8(ascii: "{")), let close = bytes[(open + 1)...].firstIndex(of: UInt8(ascii: "}")), close > open + 1 {
            bytes = Array(bytes[(open + 1)..<close])
        }
        var crc: UInt16 = 0
        for byte in bytes {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        }
        return Int(crc) % 16_384
    }

    public func pipeline(_ commands: [[String]], routingKey: String) async throws -> [RedisReply] {
        guard !commands.isEmpty else { return [] }
        let slot = Self.slot(of: routingKey)
        let transaction = commands.first?.first?.uppercased() == "MULTI"
        var address = try await node(for: slot)
        for attempt in 0..<16 {
            let replies = try await connection(to: address).pipeline(commands)
            guard let redirect = replies.lazy.compactMap(Redirection.init).first else { return replies }
            switch redirect {
            case .moved(let target):
                state.withLock { $0.redirections += 1 }
                try await readSlotMap(from: target)
                address = try await node(for: slot)
            case .ask(let target) where !transaction:
                // Only the commands answered ASK are carried to the target (the others were carried out here).
                state.withLock { $0.redirections += 1 }
                var merged = replies
                let asked = replies.indices.filter { if case .ask? = Redirection(replies[$0]) { true } else { false } }
                let answers = try await connection(to: target).pipeline(asked.flatMap { [["ASKING"], commands[$0]] })
                for (position, index) in asked.enumerated() { merged[index] = answers[position * 2 + 1] }
                return merged
            case .ask, .tryAgain:
                // A transaction was refused whole (EXECABORT), or a migration is under way: again shortly.
                try await Task.sleep(for: .milliseconds(min(500, 20 << min(attempt, 4))))
            }
        }
        throw RedisError.commandFailed("the cluster kept redirecting slot \(slot); its slots may be migrating: try again later")
    }

    /// What was sent to every node so far.
    public var statistics: RedisConnection.Statistics {
        let nodes = state.withLock { Array($0.nodes.values) }
        return nodes.map(\.statistics).reduce(into: RedisConnection.Statistics()) { total, node in
            total.roundTrips += node.roundTrips
            total.commands += node.commands
            total.connects += node.connects
        }
    }

    public func close() {
        let nodes = state.withLock { state in
            defer { state.nodes = [:] }
            return Array(state.nodes.values)
        }
        for node in nodes { node.close() }
    }

    /// What a reply says of where to go instead.
    private enum Redirection {
        case moved(String)
        case ask(String)
        case tryAgain
        init?(_ reply: RedisReply) {
            guard case .error(let message) = reply else { return nil }
            let words = message.split(separator: " ")
            switch words.first {
            case "MOVED" where words.count == 3: self = .moved(String(words[2]))
            case "ASK" where words.count == 3: self = .ask(String(words[2]))
            case "TRYAGAIN": self = .tryAgain
            default: return nil
            }
        }
    }

    /// The address of the node serving `slot`, reading the slot map first when it is not known.
    private func node(for slot: Int) async throws -> String {
        if let address = state.withLock({ $0.ranges.first { $0.lower <= slot && slot <= $0.upper }?.address }) { return address }
        try await readSlotMap(from: "\(seed.host):\(seed.port)")
        guard let address = state.withLock({ $0.ranges.first { $0.lower <= slot && slot <= $0.upper }?.address }) else {
            throw RedisError.unexpectedReply("no node of the cluster serves hash slot \(slot) (CLUSTER SLOTS); is every slot assigned?")
        }
        return address
    }

    /// Reads `CLUSTER SLOTS` from the node at `address` (the seed again when that fails).
    private func readSlotMap(from address: String) async throws {
        let reply: RedisReply
        do {
            reply = try await connection(to: address).pipeline([["CLUSTER", "SLOTS"]])[0].checked()
        } catch {
            guard address != "\(seed.host):\(seed.port)" else { throw error }
            reply = try await connection(to: "\(seed.host):\(seed.port)").pipeline([["CLUSTER", "SLOTS"]])[0].checked()
        }
        var ranges: [(lower: Int, upper: Int, address: String)] = []
        for entry in reply.arrayValue ?? [] {
            guard let parts = entry.arrayValue, parts.count >= 3, let lower = parts[0].integerValue, let upper = parts[1].integerValue,
                let master = parts[2].arrayValue, master.count >= 2, let port = master[1].integerValue
            else { continue }
            // An empty host means "the address you reached me at".
            let host = master[0].stringValue.flatMap { $0.isEmpty || $0 == "?" ? nil : $0 } ?? String(address.split(separator: ":").first ?? "")
            ranges.append((Int(lower), Int(upper), "\(host):\(port)"))
        }
        guard !ranges.isEmpty else {
            throw RedisError.unexpectedReply("CLUSTER SLOTS named no node: is this Redis in cluster mode (cluster-enabled yes)?")
        }
        state.withLock { $0.ranges = ranges }
    }

    /// The connection to the node at `host:port`, opened on first use with the seed's credentials.
    private func connection(to address: String) async throws -> RedisConnection {
        state.withLock { state in
            if let existing = state.nodes[address] { return existing }
            var url = seed
            let parts = address.split(separator: ":")
            if parts.count >= 2, let port = Int(parts[parts.count - 1]) {
                url.host = parts.dropLast().joined(separator: ":")
                url.port = port
            }
            let node = RedisConnection(url: url, certificateAuthority: certificateAuthority, threadPool: threadPool)
            state.nodes[address] = node
            return node
        }
    }
}
