public import BotCore
public import Foundation

/// What a paid network costs and how it is counted (X: its bill by mirror_bot's count, against a daily budget).
/// Free networks have none.
public protocol NetworkAccounting: Sendable {
    /// The usage so far, one line per endpoint and per billing day, for the hourly log and the closing summary.
    func usageReport() -> [String]
    /// One line: today's spend against the budget, and what was shed.
    func todayLine(at date: Date) -> String
    /// What this run spent on each billing day, and every run together.
    func spend() -> [(day: String, thisRun: Double, allRuns: Double)]
    /// The daily budget in US dollars.
    var budget: Double { get }
    /// The works shed on the billing day of `date`.
    func shedWorks(at date: Date) -> [Work]
    /// Each endpoint's calls as each account: how many, how many failed, when the last one succeeded.
    func endpointCalls() -> [EndpointCalls]
}
