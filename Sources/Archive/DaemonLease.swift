public import Foundation
import BotClock
import GRDB
public import Logging
import PostgresNIO
import Synchronization

/// One `mirror_bot start` per bot: the daemon holds a lease on its store for as long as it runs. On Postgres it is a
/// session advisory lock on a connection of its own (Postgres lets it go the moment that connection closes, so a
/// killed process's lease is free at once); on the SQLite file, an exclusive `flock` on `<file>.lock` (the kernel lets
/// it go when the process ends). Who holds it (host, pid, since when) is written beside it, for the refusal's line.
public final class DaemonLease: Sendable {
    /// Who holds a lease.
    public struct Holder: Sendable, Equatable, Codable, CustomStringConvertible {
        /// The host name.
        public var host: String
        /// The process id.
        public var pid: Int32
        /// Since when.
        public var since: Date

        /// This process, now.
        public static func thisProcess(at date: Date = Date()) -> Holder {
            Holder(host: ProcessInfo.processInfo.hostName, pid: ProcessInfo.processInfo.processIdentifier, since: date)
        }

        /// "pid 123 on host web.1 since 2026-11-23T10:00:00Z".
        public var description: String { "pid \(pid) on host \(host) since \(since.formatted(.iso8601))" }
    }

    /// The lease is held by another daemon.
    public struct Held: Error, CustomStringConvertible {
        /// Who holds it, when it says.
        public var holder: Holder?
        /// Where.
        public var store: String
        /// The refusal's line, with what to do.
        public var description: String {
            "Another mirror_bot start is running for this bot (\(holder?.description ?? "its holder did not say who it is")) on \(store). "
                + "Stop it first (on Heroku: heroku ps to see the dynos; scale to one bot dyno), or give this one its own store."
        }
    }

    /// How the lease is held.
    private enum Hold {
        case postgres(PostgresConnection)
        case file(Int32)
    }
    private let hold: Mutex<Hold?>
    /// Who holds it: this process.
    public let holder: Holder

    private init(_ hold: Hold, holder: Holder) { self.hold = Mutex(hold); self.holder = holder }

    deinit {
        // A lease let go without `release()` (a thrown error on the way out): closed here, the connection kept alive
        // until the close is done (Postgres NIO insists that a connection is closed before it goes away).
        switch take() {
        case .file(let descriptor)?: flock(descriptor, LOCK_UN); close(descriptor)
        case .postgres(let connection)?: connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
        case nil: break
        }
    }

    /// Takes the hold out, leaving none.
    private func take() -> Hold? { hold.withLock { state -> Hold? in defer { state = nil }; return state } }

    /// The lock's key on Postgres: one per schema (tests keep to theirs), per database (advisory locks are).
    static func key(schema: String?) -> Int64 {
        var hash: UInt64 = 0xcbf29ce484222325  // FNV-1a of "mirror_bot daemon <schema>"
        for byte in "mirror_bot daemon \(schema ?? "")".utf8 { hash = (hash ^ UInt64(byte)) &* 0x100000001b3 }
        return Int64(bitPattern: hash)
    }

    /// Takes the lease of `database`, or throws `Held` naming who holds it.
    public static func acquire(on database: ArchiveDatabase, logger: Logger) async throws -> DaemonLease {
        let holder = Holder.thisProcess()
        switch database.backend {
        case .sqlite(_, let path):
            let lockPath = path + ".lock"
            let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw ArchiveError(operation: "taking the daemon's lease", reason: "\(lockPath) cannot be opened (\(String(cString: strerror(errno))))")
            }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                let text = (try? String(contentsOfFile: lockPath, encoding: .utf8)) ?? ""
                close(descriptor)
                throw Held(holder: try? JSONDecoder.iso8601.decode(Holder.self, from: Data(text.utf8)), store: "the SQLite file \(path)")
            }
            let data = (try? JSONEncoder.iso8601.encode(holder)) ?? Data()
            _ = ftruncate(descriptor, 0)
            _ = data.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, data.count, 0) }
            return DaemonLease(.file(descriptor), holder: holder)
        case .postgres(let client, let url):
            let connection: PostgresConnection
            do {
                connection = try await PostgresConnection.connect(configuration: try ArchiveDatabase.connectionConfiguration(for: url), id: 1, logger: logger)
            } catch {
                throw ArchiveError(operation: "taking the daemon's lease", underlying: error)
            }
            let key = Self.key(schema: database.schema)
            var locked = false
            do {
                for try await value in try await connection.query("SELECT pg_try_advisory_lock(\(key))", logger: logger).decode(Bool.self) { locked = value }
            } catch {
                try? await connection.close()
                throw ArchiveError(operation: "taking the daemon's lease", underlying: error)
            }
            let state = BotState(database: database)
            guard locked else {
                try? await connection.close()
                let text = try? await state.value(of: Self.holderKey)
                throw Held(holder: text.flatMap { try? JSONDecoder.iso8601.decode(Holder.self, from: Data($0.utf8)) }, store: "Postgres at \(url.redacted)")
            }
            _ = client
            let lease = DaemonLease(.postgres(connection), holder: holder)
            do {
                if let data = try? JSONEncoder.iso8601.encode(holder) { try await state.setValue(String(decoding: data, as: UTF8.self), of: Self.holderKey) }
            } catch {
                await lease.release()
                throw ArchiveError(operation: "taking the daemon's lease", underlying: error)
            }
            return lease
        }
    }

    /// Where the holder is written on Postgres (`bot_state`).
    static let holderKey = "daemon.holder"

    /// Whether the lease still holds: on Postgres, its connection answers (a restart of the server lets it go). Never
    /// hangs: a connection the server ended is closed (a query written to it would never be answered), and one that
    /// does not answer within 10 s counts as lost.
    public func isHeld(logger: Logger) async -> Bool {
        guard case .postgres(let connection)? = hold.withLock({ $0 }) else { return hold.withLock { $0 != nil } }
        guard !connection.isClosed else { return false }
        do {
            return try await withTimeLimit(.seconds(10)) {
                for try await _ in try await connection.query("SELECT 1", logger: logger).decode(Int.self) {}
                return true
            }
        } catch {
            return false
        }
    }

    /// Lets the lease go, waiting until its connection is closed (when this value goes away unreleased, it is let go
    /// then, without waiting).
    public func release() async {
        switch take() {
        case .file(let descriptor)?: flock(descriptor, LOCK_UN); close(descriptor)
        case .postgres(let connection)?: try? await connection.close()
        case nil: break
        }
    }
}

extension JSONEncoder {
    /// ISO 8601 dates.
    static var iso8601: JSONEncoder { let encoder = JSONEncoder(); encoder.dateEncodingStrategy = .iso8601; return encoder }
}

extension JSONDecoder {
    /// ISO 8601 dates.
    static var iso8601: JSONDecoder { let decoder = JSONDecoder(); decoder.dateDecodingStrategy = .iso8601; return decoder }
}
