public import BotClock
public import Foundation
public import Logging

/// One `mirror_bot start` per bot: the daemon holds a lease on its stores for as long as it runs (taken with
/// `StoreSet.takeLease`). Who holds it is written beside it, for the refusal's line.
public protocol DaemonLease: Sendable {
    /// Who holds it: this process.
    var holder: LeaseHolder { get }
    /// Whether the lease still holds (on Postgres its connection answers: a restart of the server lets it go). Never
    /// hangs: one that cannot be checked within a few seconds counts as lost.
    func isHeld(logger: Logger) async -> Bool
    /// Lets the lease go.
    func release() async
    /// Whether the daemon keeps the lease itself (checks it and takes it again when its connection was lost): a
    /// `start`'s lease. False for a fleet's bot, whose process renews its leases every round and stops the bots whose
    /// lease is lost (a keeper per bot would open a connection of its own each to take a lease that is not its to take).
    var isKeptByTheDaemon: Bool { get }
    /// Until when a network write may be over while this lease holds: a fleet's lease lapses unless renewed (another
    /// process may take the bot then); nil for a lock that holds as long as the process lives (`start`'s).
    var writeDeadline: WriteDeadline? { get }
}

extension DaemonLease {
    /// A daemon's lease is kept by the daemon.
    public var isKeptByTheDaemon: Bool { true }
    /// A daemon's lease is a lock that does not lapse under a living process.
    public var writeDeadline: WriteDeadline? { nil }
}

/// Who holds a lease.
public struct LeaseHolder: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The host name.
    public var host: String
    /// The process id.
    public var pid: Int32
    /// Since when.
    public var since: Date

    /// A holder from its parts.
    public init(host: String, pid: Int32, since: Date) {
        self.host = host
        self.pid = pid
        self.since = since
    }

    /// This process, now.
    public static func thisProcess(at date: Date = Date()) -> LeaseHolder {
        LeaseHolder(host: ProcessInfo.processInfo.hostName, pid: ProcessInfo.processInfo.processIdentifier, since: date)
    }

    /// "pid 123 on host web.1 since 2026-11-23T10:00:00Z".
    public var description: String { "pid \(pid) on host \(host) since \(since.formatted(.iso8601))" }

    /// The holder as JSON, as it is written beside the lease.
    public var json: String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// The holder written as `json`; nil when it is not one.
    public init?(json: String) {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let holder = try? decoder.decode(LeaseHolder.self, from: Data(json.utf8)) else { return nil }
        self = holder
    }
}

/// The lease is held by another daemon.
public struct LeaseHeld: Error, CustomStringConvertible {
    /// Who holds it, when it says.
    public var holder: LeaseHolder?
    /// Where.
    public var store: String

    /// The refusal from its parts.
    public init(holder: LeaseHolder?, store: String) {
        self.holder = holder
        self.store = store
    }

    /// The refusal's line, with what to do.
    public var description: String {
        "Another mirror_bot start is running for this bot (\(holder?.description ?? "its holder did not say who it is")) on \(store). "
            + "Stop it first (on Heroku: heroku ps to see the dynos; scale to one bot dyno), or give this one its own store."
    }
}
