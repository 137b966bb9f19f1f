public import Archive
public import BotClock
public import Foundation
public import Logging
public import ServiceLifecycle
public import XAPI

/// Logs the API usage every hour of bot time and once more at shutdown: calls per endpoint, posts read, posts and
/// likes made, and X's bill by mirror_bot's count (per UTC day, against the daily budget).
public struct UsageReporter: Service {
    let clock: any BotClock
    let usage: UsageMeter
    let budget: DailyBudget?
    let interval: Duration
    let logger: Logger

    /// A reporter of `usage` every `interval` of `clock`'s time.
    public init(clock: any BotClock, usage: UsageMeter, budget: DailyBudget? = nil, interval: Duration = .seconds(3_600), logger: Logger) {
        self.clock = clock; self.usage = usage; self.budget = budget; self.interval = interval; self.logger = logger
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
        logger.notice("\(title): \(Self.todayLine(usage: usage, budget: budget, at: clock.now()))")
    }

    /// "today (UTC 2026-11-22): $0.312 of X_DAILY_BUDGET $1.00 spent; shed: liking".
    public static func todayLine(usage: UsageMeter, budget: DailyBudget?, at date: Date) -> String {
        let day = UsageMeter.billingDay(of: date)
        let spent = usage.spent(onBillingDay: day)
        guard let budget else { return String(format: "today (UTC %@): $%.3f spent", day, spent) }
        let shed = budget.shedWorks(at: date)
        return String(format: "today (UTC %@): $%.3f of X_DAILY_BUDGET $%.2f spent", day, spent, budget.limit)
            + (shed.isEmpty ? "" : "; shed for the rest of the day: " + shed.map(\.description).joined(separator: ", "))
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

/// Stores this run's X bill of each UTC day every minute of bot time and at shutdown, and reads what other runs
/// (a `train` meanwhile) spent today, so the budget counts it; records the day's shed work for reports.
struct SpendRecorder: Service {
    let clock: any BotClock
    let usage: UsageMeter
    let budget: DailyBudget?
    let days: UsageDays
    let state: BotState
    let runID: String
    let interval: Duration
    let logger: Logger

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                var failing = false
                while !Task.isCancelled {
                    try await clock.sleep(for: interval)
                    failing = await record(failing: failing)
                }
            }
        } catch is CancellationError where Task.isShuttingDownGracefully {}
        // The last record waits a short while only: a store that is gone must not hold up the shutdown.
        _ = try? await withTimeLimit(Self.lastRecordTimeLimit) { [self] in await record(failing: false) }
    }

    /// How long the record at shutdown may wait for the store.
    static let lastRecordTimeLimit = Duration.seconds(2)

    /// Records once; a failure is logged when the last one succeeded. Returns whether it failed.
    private func record(failing: Bool) async -> Bool {
        do {
            try await recordOnce()
            if failing { logger.notice("The day's API usage is stored again.") }
            return false
        } catch {
            if !failing { logger.warning("Could not store the day's API usage (\(error)); the budget goes on counting in memory.") }
            return true
        }
    }

    /// Stores the bill, refreshes the other runs' spend, keeps 40 days.
    func recordOnce() async throws {
        let now = clock.now()
        try await UsageRecording.store(usage, into: days, runID: runID, command: "start")
        try await UsageRecording.loadSpentElsewhere(into: usage, from: days, runID: runID, at: now)
        if let shed = budget?.shedWorks(at: now), !shed.isEmpty {
            try await state.setValue(shed.map(\.description).joined(separator: ", "), of: "budget.shed." + UsageMeter.billingDay(of: now))
        }
        try await days.removeDays(before: UsageMeter.billingDay(of: now.addingTimeInterval(-40 * 86_400)))
    }
}
