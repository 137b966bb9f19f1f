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

/// One endpoint's calls as one account, for the status page's health.
public struct EndpointCalls: Sendable, Equatable {
    /// The endpoint, as the network's reference names it.
    public var endpoint: String
    /// The account that called it ("human", "bot").
    public var account: String
    /// Calls sent, retries included.
    public var calls: Int
    /// Calls that ended in an error answer or none.
    public var failures: Int
    /// When the last call that succeeded was made.
    public var lastSuccessAt: Date?

    /// A row from its parts.
    public init(endpoint: String, account: String, calls: Int, failures: Int, lastSuccessAt: Date?) {
        self.endpoint = endpoint; self.account = account; self.calls = calls; self.failures = failures; self.lastSuccessAt = lastSuccessAt
    }
}
