public import BotClock
import Foundation
public import Logging
public import ServiceLifecycle
public import Stores
public import XAPI

/// Stores this run's X bill of each UTC day every minute of bot time and at shutdown (beside the writes before each
/// billed call), and reads what other runs (a `train` meanwhile, a run that crashed) spent today, so the budget counts
/// it; records the day's shed work for reports.
public struct SpendRecorder: Service {
    let clock: any BotClock
    let usage: UsageMeter
    let budget: DailyBudget?
    let days: any UsageDays
    let state: any BotState
    let runID: String
    let ledger: StoredSpend
    let interval: Duration
    let logger: Logger

    /// A recorder of `usage` (against `budget`) as run `runID`, every `interval` of `clock`'s time, writing through
    /// `ledger` (the one the budget writes through before each billed call, so the two never race).
    public init(
        clock: any BotClock, usage: UsageMeter, budget: DailyBudget?, days: any UsageDays, state: any BotState, runID: String,
        ledger: StoredSpend, interval: Duration = .seconds(60), logger: Logger
    ) {
        self.clock = clock
        self.usage = usage
        self.budget = budget
        self.days = days
        self.state = state
        self.runID = runID
        self.ledger = ledger
        self.interval = interval
        self.logger = logger
    }

    /// Records until the group shuts down, then once more, briefly.
    public func run() async throws {
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
    static let lastRecordTimeLimit = Duration.seconds(1)

    /// Records once; a failure is logged when the last one succeeded. Returns whether it failed.
    private func record(failing: Bool) async -> Bool {
        do {
            try await recordOnce()
            if failing { logger.notice("The day's API usage is stored and read again.") }
            return false
        } catch {
            if !failing {
                logger.warning(
                    "Could not store or read the day's API usage (\(error)); billed calls wait until it can be written before they are made.")
            }
            return true
        }
    }

    /// Stores the bill (with the calls in flight), refreshes the other runs' spend (which makes it known again when it
    /// could not be read at start), keeps 40 days.
    func recordOnce() async throws {
        let now = clock.now()
        try await ledger.writeAll()
        try await ledger.readOthers(onBillingDay: UsageMeter.billingDay(of: now))
        if let shed = budget?.shedWorks(at: now), !shed.isEmpty {
            try await state.setValue(shed.map(\.description).joined(separator: ", "), of: "budget.shed." + UsageMeter.billingDay(of: now))
        }
        try await days.removeDays(before: UsageMeter.billingDay(of: now.addingTimeInterval(-40 * 86_400)))
    }
}
