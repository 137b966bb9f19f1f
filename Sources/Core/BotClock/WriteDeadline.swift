public import Foundation

/// Until when this process may write to the network for its bot. A fleet's lease lapses unless renewed, and then
/// another process may take the bot over and read back what this one was sending: a write of this one landing after
/// that read would be a post made twice, or made and never recorded. So every network write (a create, a like, a
/// deletion) asks the deadline first: it is not sent when too little time is left, and it is given no longer than
/// what is left (its request's time limit is cut to it). A `start`'s lease is a lock held for as long as the process
/// lives, which never lapses under it: no deadline.
///
/// Bound for the whole run of a bot's daemon (`WriteDeadline.$current`), inherited by every task it starts; read by the
/// networks' HTTP core and by the scripted network of the tests, at the moment a write would leave.
public struct WriteDeadline: Sendable {
    /// When the lease lapses as this process knows it (the last renewal it saw, plus the lease's length), on `clock`;
    /// asked at each write, since renewals move it.
    public let lapsesAt: @Sendable () -> Date
    /// The clock `lapsesAt` is on: the real one for a fleet's lease, the manual one in tests.
    public let clock: any BotClock

    /// The deadline of the daemon running in this task; nil where no lease lapses.
    @TaskLocal public static var current: WriteDeadline?

    /// Time kept between a write's end and the lapse, for its answer to travel and the clocks to differ.
    public let margin: Duration
    /// The least time a write is sent with: with less left it is not sent at all.
    public let leastTime: Duration

    /// A deadline from its parts: by default 2 s of margin and at least 1 s for a write.
    public init(clock: any BotClock, margin: Duration = .seconds(2), leastTime: Duration = .seconds(1), lapsesAt: @escaping @Sendable () -> Date) {
        self.clock = clock
        self.margin = margin
        self.leastTime = leastTime
        self.lapsesAt = lapsesAt
    }

    /// The deadline of a lease `length` long: the default margin and least time, or for a lease shorter than 16 s
    /// (a test's), an eighth and a sixteenth of it, so that a write still fits between two renewals.
    public init(clock: any BotClock, leaseLength length: TimeInterval, lapsesAt: @escaping @Sendable () -> Date) {
        self.init(
            clock: clock, margin: .milliseconds(Int64(min(2, length / 8) * 1000)), leastTime: .milliseconds(Int64(min(1, length / 16) * 1000)),
            lapsesAt: lapsesAt)
    }

    /// How long a write starting now may take (until the lapse, less the margin); throws `WriteDeadlinePassed` when that
    /// is less than `leastTime`.
    public func timeLeft() throws(WriteDeadlinePassed) -> Duration {
        let lapse = lapsesAt()
        let left = Duration.milliseconds(Int64((lapse.timeIntervalSince(clock.now()) * 1000).rounded(.down))) - margin
        guard left >= leastTime else { throw WriteDeadlinePassed(lapsesAt: lapse, now: clock.now()) }
        return left
    }

    /// The time a write starting now may take under the current deadline: `limit` when there is none, else the
    /// shorter of `limit` and what is left. Throws `WriteDeadlinePassed` when too little is left to send it.
    public static func limit(_ limit: Duration) throws(WriteDeadlinePassed) -> Duration {
        guard let current else { return limit }
        return min(limit, try current.timeLeft())
    }
}

/// A network write not sent: this process's lease on the bot lapses (or has lapsed) before it could be over.
public struct WriteDeadlinePassed: Error, Sendable, CustomStringConvertible {
    /// When the lease lapses, as this process knows it.
    public var lapsesAt: Date
    /// When the write was to leave.
    public var now: Date

    /// The refusal from its parts.
    public init(lapsesAt: Date, now: Date) {
        self.lapsesAt = lapsesAt
        self.now = now
    }

    /// The sentence for logs and stored reasons.
    public var description: String {
        let left = lapsesAt.timeIntervalSince(now)
        return "not sent: this process's lease on the bot "
            + (left > 0
                ? "lapses in \(String(format: "%.1f", left)) s, too soon for a write to be over"
                : "lapsed \(String(format: "%.1f", -left)) s ago (not renewed: the process stalled, or lost its database)")
            + "; another process may take the bot over, and reads back what was being sent"
    }
}
