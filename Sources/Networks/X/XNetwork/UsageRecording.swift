public import Foundation
public import Stores
public import XAPI

/// X's bill by mirror_bot's count, kept in the store per UTC day and run (`api_usage_days`), and the refusals
/// that last (`bot_state`): what lets the daily budget and "never ask again" hold across restarts and between a
/// running `start` and a one-shot `train`.
public enum UsageRecording {
    /// Stores the bill `usage` made on each UTC day it was billed on, as run `runID` of `command`.
    public static func store(_ usage: UsageMeter, into days: any UsageDays, runID: String, command: String) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for day in usage.billingDays {
            let bill = usage.bill(onBillingDay: day)
            try await days.record(
                .init(
                    day: day, runID: runID, command: command, bill: String(decoding: try encoder.encode(bill), as: UTF8.self),
                    cost: usage.prices.cost(of: bill)))
        }
    }

    /// Tells `usage` what the other runs spent on the UTC day of `date`, so the budget counts it; returns it.
    @discardableResult
    public static func loadSpentElsewhere(into usage: UsageMeter, from days: any UsageDays, runID: String, at date: Date) async throws -> Double {
        let day = UsageMeter.billingDay(of: date)
        let spent = try await days.spent(on: day, excludingRun: runID)
        usage.setSpentElsewhere(spent, onBillingDay: day)
        return spent
    }

    /// What every run spent on the UTC day of `date`: the cost and the summed bill.
    public static func day(of date: Date, in days: any UsageDays) async throws -> (cost: Double, bill: XBill) {
        let day = UsageMeter.billingDay(of: date)
        let decoder = JSONDecoder()
        var total = XBill()
        var cost = 0.0
        for entry in try await days.entries(since: day) where entry.day == day {
            cost += entry.cost
            if let bill = try? decoder.decode(XBill.self, from: Data(entry.bill.utf8)) { total = total + bill }
        }
        return (cost, total)
    }

    /// Where the refusals X made that last (capabilities the app is not enrolled for) are kept: `bot_state`.
    public static let refusalsKey = "x.refusals"

    /// The stored lasting refusals.
    public static func storedRefusals(in state: any BotState) async throws -> [XRefusals.Refusal] {
        guard let text = try await state.value(of: refusalsKey) else { return [] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return (try? decoder.decode([XRefusals.Refusal].self, from: Data(text.utf8))) ?? []
    }
}

/// Keeps the client's lasting refusals in `bot_state`.
public struct StoredRefusals: XRefusalStore {
    let state: any BotState

    /// A store in `state` (`bot_state`).
    public init(state: any BotState) { self.state = state }

    /// Replaces the stored refusals.
    public func save(_ refusals: [XRefusals.Refusal]) async throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        try await state.setValue(String(decoding: try encoder.encode(refusals), as: UTF8.self), of: UsageRecording.refusalsKey)
    }
}
