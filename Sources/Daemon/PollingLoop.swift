import Archive
import BotClock
import Foundation
import Logging
import RedisClient
import ServiceLifecycle
import XAPI

/// The loop the polling services share: poll, then sleep `interval` of bot time, until cancelled or the graceful
/// shutdown of the service group. X API errors are logged and the next poll tries again; a store that is down
/// (Postgres, Redis) is logged once and retried with backoff (2, 4, 8 … 256 s) until it answers. Nothing ends the loop
/// but shutdown.
enum PollingLoop {
    /// Runs `poll` with the number of the poll (0, 1, 2 …, counting successful polls).
    static func run(_ name: String, every interval: TimeInterval, clock: any BotClock, logger: Logger,
                    _ poll: @escaping @Sendable (_ number: Int) async throws -> Void) async throws {
        do {
            try await cancelWhenGracefulShutdown {
                var failures = 0
                var number = 0
                while !Task.isCancelled {
                    do {
                        try await poll(number)
                        number += 1
                        failures = 0
                    } catch let error as XAPIError {
                        logger.warning("\(name) could not reach X: \(error)")
                    } catch let error where error is ArchiveError || error is RedisError {
                        failures += 1
                        if failures == 1 { logger.error("\(name) paused: \(error). Retrying with backoff.") }
                    }
                    try await clock.sleep(for: .seconds(failures > 0 ? min(300, 1 << min(failures, 8)) : Int(interval)))
                }
            }
        } catch is CancellationError where Task.isShuttingDownGracefully {
            logger.info("\(name) stopped for shutdown.")
        }
    }
}
