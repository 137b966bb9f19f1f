public import BotClock
public import Logging
public import ServiceLifecycle
public import XAPI

/// Logs the API usage every hour of bot time and once more at shutdown: calls per endpoint, posts read, posts and
/// likes made, and the estimated cost.
public struct UsageReporter: Service {
    let clock: any BotClock
    let usage: UsageMeter
    let interval: Duration
    let logger: Logger

    /// A reporter of `usage` every `interval` of `clock`'s time.
    public init(clock: any BotClock, usage: UsageMeter, interval: Duration = .seconds(3_600), logger: Logger) {
        self.clock = clock; self.usage = usage; self.interval = interval; self.logger = logger
    }

    /// Reports until the group shuts down, then reports once more.
    public func run() async throws {
        // Services start after the group handles signals: from here on SIGTERM and SIGINT shut down gracefully.
        logger.notice("running; SIGTERM or SIGINT stops it gracefully")
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
        for line in usage.report() { logger.notice("\(title): \(line)") }
    }
}

/// Ends the run after `duration` of bot time (`--duration`), shutting the group down gracefully.
struct StopAfter: Service {
    let clock: any BotClock
    let duration: Duration

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown { try await clock.sleep(for: duration) }
        } catch is CancellationError where Task.isShuttingDownGracefully {}
    }
}
