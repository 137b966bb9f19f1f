public import BotClock
public import BotCore
import Foundation

/// A lease that lapsed an hour ago: under it (`WriteDeadline.$current.withValue(lapsedLease)`) every network write is
/// refused before it leaves, and reads go on.
public let lapsedLease = WriteDeadline(clock: SystemBotClock()) { Date().addingTimeInterval(-3_600) }

/// Whether `error` is a network write refused because the process's lease lapsed: unavailable, saying so.
public func isRefusedForTheLease(_ error: any Error) -> Bool {
    guard case NetworkError.unavailable(let why) = error else { return false }
    return why.hasPrefix("not sent: this process's lease on the bot lapsed")
}
