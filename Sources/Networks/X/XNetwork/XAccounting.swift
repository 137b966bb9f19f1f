public import BotCore
public import Foundation
public import SocialNetwork
public import XAPI

/// X's bill by mirror_bot's count and the daily budget, as the network's accounting.
public struct XAccounting: NetworkAccounting {
    /// The meter of the client's calls and X's bill.
    public let usage: UsageMeter
    /// The daily budget, when one holds.
    public let dailyBudget: DailyBudget?

    /// The accounting of `usage` against `dailyBudget`.
    public init(usage: UsageMeter, budget dailyBudget: DailyBudget?) {
        self.usage = usage
        self.dailyBudget = dailyBudget
    }

    public func usageReport() -> [String] { usage.report() }

    public func endpointCalls() -> [EndpointCalls] {
        usage.snapshot.sorted { $0.key < $1.key }.map { key, row in
            EndpointCalls(
                endpoint: key.endpoint, account: key.account.rawValue, calls: row.calls, failures: row.failures, lastSuccessAt: row.lastSuccessAt)
        }
    }

    /// "today (UTC 2026-11-22): $0.312 of X_DAILY_BUDGET $1.00 spent; shed for the rest of the day: liking".
    public func todayLine(at date: Date) -> String {
        let day = UsageMeter.billingDay(of: date)
        let spent = usage.spent(onBillingDay: day)
        guard let budget = dailyBudget else { return String(format: "today (UTC %@): $%.3f spent", day, spent) }
        let shed = budget.shedWorks(at: date)
        return String(format: "today (UTC %@): $%.3f of X_DAILY_BUDGET $%.2f spent", day, spent, budget.limit)
            + (shed.isEmpty ? "" : "; shed for the rest of the day: " + shed.map(\.description).joined(separator: ", "))
    }

    public func spend() -> [(day: String, thisRun: Double, allRuns: Double)] {
        usage.billingDays.map { day in (day: day, thisRun: usage.ownSpend(onBillingDay: day), allRuns: usage.spent(onBillingDay: day)) }
    }

    public var budget: Double { dailyBudget?.limit ?? .infinity }

    public func shedWorks(at date: Date) -> [Work] { dailyBudget?.shedWorks(at: date) ?? [] }
}
