import Foundation

/// What can go wrong with one call, as the fake servers inject it: the answers a network's client meets and the
/// outcomes it then reports, after its own retries. `persistent`: every try of the call met it (else only the first).
public enum Fault: String, Sendable, CaseIterable, CustomStringConvertible {
    /// 503: the server did not take the request.
    case serverUnavailable
    /// The connection dropped before the request was sent.
    case droppedBeforeSending
    /// The connection dropped after the request was sent: a write was carried out, its answer lost.
    case droppedAfterSending
    /// The answer was cut short: a write was carried out, its answer unreadable.
    case truncatedAnswer
    /// No answer until the client's time limit (30 s).
    case hang
    /// 429: the window of calls is spent until its reset.
    case rateLimited
    /// The network refused this kind of call (a revoked token, a capability not enrolled; on a create, a duplicate).
    case refused

    /// Its name in reports.
    public var description: String { rawValue }
}

/// Which calls fail, decided from a seed and the call itself (its operation, what it is about, and how many times that
/// was asked before), so that a day replays the same whatever order its services run in.
public struct FaultPlan: Sendable {
    /// The seed.
    public var seed: UInt64
    /// The share of calls that meet a fault.
    public var rate: Double
    /// The faults drawn among.
    public var kinds: [Fault]
    /// Of the calls that meet a fault, the share that meet it on every try.
    public var persistentShare: Double
    /// Operations that always meet a fault, whatever the rate (a network whose post look-up answers 500).
    public var always: [String: Fault]

    /// No faults.
    public static let none = FaultPlan(seed: 0, rate: 0)

    /// A plan from its parts.
    public init(seed: UInt64, rate: Double, kinds: [Fault] = Fault.allCases, persistentShare: Double = 0.3, always: [String: Fault] = [:]) {
        self.seed = seed
        self.rate = rate
        self.kinds = kinds
        self.persistentShare = persistentShare
        self.always = always
    }

    /// The fault of the call `operation` about `key`, asked `attempt` times before (nil: none), and whether it persists.
    func fault(for operation: String, key: String, attempt: Int) -> (fault: Fault, persistent: Bool)? {
        if let fault = always[operation] { return (fault, true) }
        guard rate > 0, !kinds.isEmpty else { return nil }
        var generator = Self.generator(seed, operation, key, attempt)
        guard Double.random(in: 0..<1, using: &generator) < rate else { return nil }
        let fault = kinds[Int.random(in: 0..<kinds.count, using: &generator)]
        return (fault, Double.random(in: 0..<1, using: &generator) < persistentShare)
    }

    /// A value in `range` drawn for the call (a delay, a coin), the same each time the call is replayed.
    func draw(_ range: ClosedRange<Double>, for operation: String, key: String, attempt: Int) -> Double {
        var generator = Self.generator(seed &+ 0x9E37_79B9, operation, key, attempt)
        return Double.random(in: range, using: &generator)
    }

    private static func generator(_ seed: UInt64, _ operation: String, _ key: String, _ attempt: Int) -> CallRandom {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ seed
        for byte in "\(operation)|\(key)|\(attempt)".utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return CallRandom(state: hash)
    }
}

/// SplitMix64, for the draws of one call.
struct CallRandom: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
