public import Foundation

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
        self.endpoint = endpoint
        self.account = account
        self.calls = calls
        self.failures = failures
        self.lastSuccessAt = lastSuccessAt
    }
}
