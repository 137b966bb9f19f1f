import BotClock
import Foundation
import Logging
import ServiceLifecycle
import Stores

/// Keeps the daemon's lease: every 30 seconds, checks that it still holds (on Postgres the lock lives on a
/// connection, which a restart of the server closes) and takes it again when it does not; when another daemon took
/// it meanwhile, says so and ends, which stops the group: two daemons never act for one bot. It watches a connection,
/// which lives in real time: `clock` is the real one in production (not the bot's, which `--speed` may run faster).
struct LeaseKeeper: Service {
    let lease: any DaemonLease
    let database: any StoreSet
    let clock: any BotClock
    let logger: Logger

    /// How often the lease is checked.
    static let interval = Duration.seconds(30)

    func run() async throws {
        let (lease, database, clock, logger) = (lease, database, clock, logger)
        do {
            try await cancelWhenGracefulShutdown {
                var current = lease
                while true {
                    try await clock.sleep(for: Self.interval)
                    guard await !current.isHeld(logger: logger) else { continue }
                    do {
                        await current.release()
                        current = try await database.takeLease(logger: logger)
                        logger.notice("lease: taken again after the database's connection was lost")
                    } catch let held as LeaseHeld {
                        logger.error("lease: \(held.description) It took the lease while the database was unreachable: this one stops.")
                        return
                    } catch is CancellationError {
                        throw CancellationError()
                    } catch {
                        logger.warning("lease: could not check it (\(error)); trying again in 30 s")
                    }
                }
            }
        } catch is CancellationError {
            return
        }
    }
}
