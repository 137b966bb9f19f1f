import Archive
import BotClock
import Logging
import RedisClient
import ServiceLifecycle
import XAPI

/// The loop every service shares: do one round, then sleep the bot time the round asks for, until cancelled or
/// the graceful shutdown of the service group. X API errors are logged and the next poll tries again; a store that is down
/// (Postgres, Redis) is logged once and retried with backoff (2, 4, 8 … 256 s) until it answers. Nothing ends the loop
/// but shutdown.
enum PollingLoop {
    /// Runs `round` with its number (0, 1, 2 …, counting rounds that succeeded); each round returns how long to
    /// wait before the next.
    static func run(_ name: String, clock: any BotClock, logger: Logger,
                    _ round: @escaping @Sendable (_ number: Int) async throws -> Duration) async throws {
        do {
            try await cancelWhenGracefulShutdown {
                var failures = 0
                var number = 0
                var wait = Duration.zero
                while !Task.isCancelled {
                    do {
                        wait = try await round(number)
                        number += 1
                        failures = 0
                    } catch let error as XAPIError {
                        logger.warning("\(name) could not reach X: \(error)")
                    } catch let error where error is ArchiveError || error is RedisError {
                        failures += 1
                        if failures == 1 { logger.error("\(name) paused: \(error). Retrying with backoff.") }
                    }
                    try await clock.sleep(for: failures > 0 ? .seconds(min(300, 1 << min(failures, 8))) : wait)
                }
            }
        } catch is CancellationError where Task.isShuttingDownGracefully {
            logger.info("\(name) stopped for shutdown.")
        }
    }
}
