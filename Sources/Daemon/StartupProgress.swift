public import Foundation
import Synchronization

/// What the daemon is waiting for before its services start (the network to answer who the accounts are), for the
/// status page and `/healthz`, which serve from the first moment: a slow or spent network is then shown, not hidden
/// behind a port that does not answer.
public final class StartupProgress: Sendable {
    private let waitingFor = Mutex<String?>("the stores and the network")

    /// Progress with nothing known yet.
    public init() {}

    /// Says what the start waits for now.
    public func waiting(for what: String) { waitingFor.withLock { $0 = what } }

    /// Says the services are running.
    public func started() { waitingFor.withLock { $0 = nil } }

    /// What the start waits for; nil once the services run.
    public var pending: String? { waitingFor.withLock { $0 } }

    /// Throws while the start waits (a health check).
    public func check() throws {
        if let pending { throw Pending(what: pending) }
    }

    /// The start is not done.
    public struct Pending: Error, CustomStringConvertible {
        /// What it waits for.
        public var what: String
        /// "starting: waiting for …".
        public var description: String { "starting: waiting for \(what)" }
    }
}
