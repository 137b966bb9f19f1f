import Foundation
public import Stores
public import XAPI

/// The day's X spend of one run, written to the usage days (`api_usage_days`) before every billed call and every
/// minute: the run's bill and its calls in flight at their worst case, so that a crash at any moment leaves the
/// spend counted where the next start reads it. Writes go one at a time, each with the figures of its own moment,
/// so a slower write never puts back a smaller total over a newer one.
///
/// With a `state`, the users X billed today are kept there too (`x.billed_users.<day>`): X bills a user once a UTC day,
/// so a restart's own `users/me` is not counted against the budget a second time.
public actor StoredSpend: SpendLedger {
    let days: any UsageDays
    let state: (any BotState)?
    let usage: UsageMeter
    let runID: String
    let command: String
    private var last: Task<Void, any Error>?
    /// How many billed users were last written, per day.
    private var usersWritten: [String: Int] = [:]

    /// The spend of `usage`, written as run `runID` of `command` into `days` (and the users billed into `state`).
    public init(days: any UsageDays, state: (any BotState)? = nil, usage: UsageMeter, runID: String, command: String) {
        self.days = days
        self.state = state
        self.usage = usage
        self.runID = runID
        self.command = command
    }

    /// Where the users billed on `day` are kept.
    static func billedUsersKey(_ day: String) -> String { "x.billed_users.\(day)" }

    /// Writes the run's spend on `day` once the writes before it have ended.
    public func write(onBillingDay day: String) async throws {
        let previous = last
        let write = Task { [days, usage, runID, command] in
            _ = await previous?.result
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            // Read when its turn comes: the newest figures, never older than a write before it.
            let bill = usage.bill(onBillingDay: day)
            let cost = usage.recordedCost(onBillingDay: day)
            try await days.record(
                .init(
                    day: day, runID: runID, command: command, bill: String(decoding: try encoder.encode(bill), as: UTF8.self),
                    cost: cost))
        }
        last = write
        // The caller's cancellation (a shutdown, a time limit) ends the write too, and the writes queued after it go on.
        try await withTaskCancellationHandler {
            try await write.value
        } onCancel: {
            write.cancel()
        }
        try await writeBilledUsers(onBillingDay: day)
    }

    /// Adds the users billed on `day` to those stored (other runs' included), when this run billed more since.
    private func writeBilledUsers(onBillingDay day: String) async throws {
        guard let state else { return }
        let users = usage.billedUsers(onBillingDay: day)
        guard users.count > usersWritten[day] ?? 0 else { return }
        let stored = try await state.value(of: Self.billedUsersKey(day))?.split(separator: "\n").map(String.init) ?? []
        try await state.setValue(Set(stored).union(users).sorted().joined(separator: "\n"), of: Self.billedUsersKey(day))
        usersWritten[day] = users.count
    }

    /// Reads what the other runs spent on `day` into the meter.
    public func readOthers(onBillingDay day: String) async throws {
        if let state, let stored = try await state.value(of: Self.billedUsersKey(day)) {
            usage.countBilledUsers(stored.split(separator: "\n").map(String.init), onBillingDay: day)
        }
        usage.setSpentElsewhere(try await days.spent(on: day, excludingRun: runID), onBillingDay: day)
    }

    /// Writes the run's spend on every day it spent or is spending on.
    public func writeAll() async throws {
        for day in usage.billingDays { try await write(onBillingDay: day) }
    }
}
