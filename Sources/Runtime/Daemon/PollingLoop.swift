import BotClock
import BotCore
import Foundation
import Logging
import ServiceLifecycle
import SocialNetwork
import Stores

/// The loop every service shares: do one round, then sleep the bot time the round asks for, until cancelled or
/// the graceful shutdown of the service group. Nothing ends the loop but shutdown:
/// - a network error is logged and the next round waits `interval`, doubling with each failure in a row up to an
///   hour, from the very first round on;
/// - a refusal (a revoked token, spent credits or usage cap, a forbidden endpoint) was logged once by the network
///   client; the loop waits for its recheck (an hour unless the network said when) and logs nothing more;
/// - work the day's budget shed (logged once by the budget) waits `interval`, asking nothing of X meanwhile;
/// - any other failure — a store that is down or busy (Postgres, Redis, the SQLite file locked by another process),
///   the disk — is logged once and retried with backoff (2, 4, 8 … 256 s) until the round succeeds, which is logged
///   too. The service pauses; the process never ends for it.
enum PollingLoop {
    /// Runs `work` once a day, the first time `firstAfter` after the start, with `run`'s handling of failures (a
    /// failed day is tried again within the hour).
    static func runDaily(
        _ name: String, on networkName: String, clock: any BotClock, logger: Logger, firstAfter: Duration,
        _ work: @escaping @Sendable () async throws -> Void
    ) async throws {
        try await run(name, on: networkName, clock: clock, logger: logger, interval: .seconds(3_600)) { number in
            if number == 0 { return firstAfter }
            try await work()
            return .seconds(86_400)
        }
    }

    /// Runs `round` with its number (0, 1, 2 …, counting rounds that succeeded); each round returns how long to
    /// wait before the next. `interval` is the wait after a failed round (doubled while failures go on).
    static func run(
        _ name: String, on networkName: String, clock: any BotClock, logger: Logger, interval: Duration,
        longestBackoff: Duration = PollingLoop.longestBackoff,
        _ round: @escaping @Sendable (_ number: Int) async throws -> Duration
    ) async throws {
        do {
            try await cancelWhenGracefulShutdown {
                var storeFailures = 0
                var networkFailures = 0
                var number = 0
                while !Task.isCancelled {
                    var wait: Duration
                    do {
                        wait = try await round(number)
                        number += 1
                        if storeFailures > 0 { logger.notice("\(name) resumed after \(storeFailures) failed tries.") }
                        storeFailures = 0
                        networkFailures = 0
                    } catch let error as NetworkError {
                        wait = Self.wait(
                            after: error, failuresInARow: &networkFailures, interval: interval, longest: longestBackoff, now: clock.now())
                        if !error.isRefusal, !Self.isShed(error) { logger.warning("\(name) could not reach \(networkName): \(error)") }
                    } catch is CancellationError {
                        throw CancellationError()
                    } catch {
                        // A store's own error for a call cut short by the shutdown is not an outage.
                        if Task.isCancelled { throw CancellationError() }
                        storeFailures += 1
                        DaemonMetrics.storeError(service: name)
                        if storeFailures == 1 { logger.error("\(name) paused: \(error). Retrying with backoff.") }
                        wait = .seconds(min(300, 1 << min(storeFailures, 8)))
                    }
                    try await clock.sleep(for: wait)
                }
            }
        } catch is CancellationError where Task.isShuttingDownGracefully {
            logger.info("\(name) stopped for shutdown.")
        }
    }

    /// Longest wait after network errors in a row (the refusals' own rechecks aside).
    static let longestBackoff = Duration.seconds(3_600)
    /// The wait after a refusal whose network did not say when to check again.
    static let refusalRecheck = Duration.seconds(3_600)

    /// How long to wait after `error`: a refusal's recheck, the interval for shed work, else a backoff that doubles
    /// with each failure in a row.
    static func wait(
        after error: NetworkError, failuresInARow failures: inout Int, interval: Duration, longest: Duration = longestBackoff,
        now: Date
    ) -> Duration {
        if case .refused(_, let recheckAt?) = error {
            return max(interval, .milliseconds(Int64(max(0, recheckAt.timeIntervalSince(now)) * 1000) + 1))
        }
        if error.isRefusal { return max(interval, refusalRecheck) }
        if isShed(error) { return interval }
        failures += 1
        let doubled = interval * (1 << min(failures - 1, 12))
        return min(max(interval, longest), doubled)
    }

    private static func isShed(_ error: NetworkError) -> Bool {
        if case .shed = error { return true }
        return false
    }
}
