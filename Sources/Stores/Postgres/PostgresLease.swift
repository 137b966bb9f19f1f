import BotClock
import Foundation
import Logging
import PostgresNIO
import Stores
import Synchronization

/// The daemon's lease on Postgres: a session advisory lock on a connection of its own (Postgres lets it go the moment
/// that connection closes, so a killed process's lease is free at once), its holder written in `bot_state`.
final class PostgresLease: DaemonLease {
    let holder: LeaseHolder
    private let connection: Mutex<PostgresConnection?>

    private init(connection: PostgresConnection, holder: LeaseHolder) {
        self.connection = Mutex(connection)
        self.holder = holder
    }

    deinit {
        // A lease let go without `release()` (a thrown error on the way out): closed here, the connection kept alive until
        // the close is done (postgres-nio insists that a connection is closed before it goes away).
        if let connection = take() { connection.close().whenComplete { _ in withExtendedLifetime(connection) {} } }
    }

    private func take() -> PostgresConnection? {
        connection.withLock { held in
            defer { held = nil }
            return held
        }
    }

    /// The lock's key: one per schema (tests keep to theirs), per database (advisory locks are).
    static func key(schema: String?) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a of "mirror_bot daemon <schema>"
        for byte in "mirror_bot daemon \(schema ?? "")".utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int64(bitPattern: hash)
    }

    /// Where the holder is written (`bot_state`).
    static let holderKey = "daemon.holder"

    /// Takes the lease of `database`, or throws `LeaseHeld` naming who holds it.
    static func acquire(on database: PostgresStoreSet, logger: Logger) async throws -> PostgresLease {
        let holder = LeaseHolder.thisProcess()
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(
                configuration: try PostgresStoreSet.connectionConfiguration(for: database.url), id: 1,
                logger: logger)
        } catch {
            throw ArchiveError.postgres("taking the daemon's lease", error)
        }
        var locked = false
        do {
            let key = key(schema: database.schema)
            for try await value in try await connection.query("SELECT pg_try_advisory_lock(\(key))", logger: logger).decode(Bool.self) {
                locked = value
            }
        } catch {
            try? await connection.close()
            throw ArchiveError.postgres("taking the daemon's lease", error)
        }
        guard locked else {
            try? await connection.close()
            let text = try? await database.state.value(of: holderKey)
            throw LeaseHeld(holder: text.flatMap { $0 }.flatMap(LeaseHolder.init(json:)), store: database.location)
        }
        let lease = PostgresLease(connection: connection, holder: holder)
        do {
            try await database.state.setValue(holder.json, of: holderKey)
        } catch {
            await lease.release()
            throw ArchiveError.postgres("taking the daemon's lease", error)
        }
        return lease
    }

    /// Whether the lock's connection answers. A connection the server ended is closed (a query written to it would never
    /// be answered); one that does not answer within 10 s counts as lost.
    func isHeld(logger: Logger) async -> Bool {
        guard let connection = connection.withLock({ $0 }), !connection.isClosed else { return false }
        do {
            return try await withTimeLimit(.seconds(10)) {
                for try await _ in try await connection.query("SELECT 1", logger: logger).decode(Int.self) {}
                return true
            }
        } catch {
            return false
        }
    }

    /// Lets the lease go, waiting until its connection is closed.
    func release() async {
        if let connection = take() { try? await connection.close() }
    }
}
