import Stores
import Foundation
import Logging
import ServiceLifecycle

/// Keeps the daemon's lease: every 30 seconds, checks that it still holds (on Postgres the lock lives on a
/// connection, which a restart of the server closes) and takes it again when it does not; when another daemon took
/// it meanwhile, says so and ends, which stops the group: two daemons never act for one bot. (Real time, not the
/// bot's clock: it watches a connection, which lives in real time.)
struct LeaseKeeper: Service {
    let lease: any DaemonLease
    let database: any StoreSet
    let logger: Logger

    func run() async throws {
        let (lease, database, logger) = (lease, database, logger)
        do {
            try await cancelWhenGracefulShutdown {
                var current = lease
                while true {
                    try await Task.sleep(for: .seconds(30))
                    guard await !current.isHeld(logger: logger) else { continue }
                    do {
                        await current.release()
                        current = try await database.takeLease(logger: logger)
                        logger.notice("lease: taken again after the database's connection was lost")
                    } catch let held as LeaseHeld {
                        logger.error("lease: \(held.description) It took the lease while the database was unreachable: this one stops.")
                        return
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
