public import Foundation

/// An endpoint's rate-limit window as the last response's headers told it.
public struct RateLimitStatus: Sendable, Equatable {
    /// `x-rate-limit-limit`: calls allowed per window.
    public var limit: Int
    /// `x-rate-limit-remaining`: calls left in this window.
    public var remaining: Int
    /// `x-rate-limit-reset`: when the window resets.
    public var resetsAt: Date

    /// A status from its parts.
    public init(limit: Int, remaining: Int, resetsAt: Date) {
        self.limit = limit
        self.remaining = remaining
        self.resetsAt = resetsAt
    }

    /// The status in the three headers, or nil when any is missing or not a number.
    public init?(limit: String?, remaining: String?, reset: String?) {
        guard let limit = limit.flatMap({ Int($0) }), let remaining = remaining.flatMap({ Int($0) }),
            let reset = reset.flatMap({ Int($0) })
        else { return nil }
        self.init(limit: limit, remaining: remaining, resetsAt: Date(timeIntervalSince1970: TimeInterval(reset)))
    }
}
