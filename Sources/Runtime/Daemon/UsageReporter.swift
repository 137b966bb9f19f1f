public import BotClock
import Foundation
public import Logging
public import ServiceLifecycle
public import SocialNetwork

/// Logs the network's usage every hour of bot time and once more at shutdown, as its accounting reports it (on X:
/// calls per endpoint, posts read, posts and likes made, X's bill by mirror_bot's count against the daily budget).
public struct UsageReporter: Service {
    let clock: any BotClock
    let accounting: any NetworkAccounting
    let interval: Duration
    let logger: Logger

    /// A reporter of `accounting` every `interval` of `clock`'s time.
    public init(clock: any BotClock, accounting: any NetworkAccounting, interval: Duration = .seconds(3_600), logger: Logger) {
        self.clock = clock
        self.accounting = accounting
        self.interval = interval
        self.logger = logger
    }

    /// Reports until the group shuts down, then reports once more.
    public func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                while !Task.isCancelled {
                    try await clock.sleep(for: interval)
                    report("API usage so far")
                }
            }
        } catch is CancellationError where Task.isShuttingDownGracefully {}
        report("API usage at shutdown")
    }

    private func report(_ title: String) {
        for line in accounting.usageReport() { logger.notice("\(title): \(line)") }
        logger.notice("\(title): \(accounting.todayLine(at: clock.now()))")
    }
}

/// Says when the group runs: services start after it handles signals, so from this line on SIGTERM and SIGINT shut
/// the bot down gracefully. Then waits for the shutdown.
struct RunningNotice: Service {
    let progress: StartupProgress?
    let logger: Logger

    func run() async throws {
        progress?.started()
        logger.notice("running; SIGTERM or SIGINT stops it gracefully")
        try? await gracefulShutdown()
    }
}

/// Ends the run at `end` on the bot's clock (`--duration` past the run's start), shutting the group down gracefully.
struct StopAfter: Service {
    let clock: any BotClock
    let end: Date

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown { try await clock.sleep(until: end) }
        } catch is CancellationError where Task.isShuttingDownGracefully {}
    }
}
