import Foundation
import Synchronization

/// What the daemon is waiting for before its services start (the network to answer who the accounts are), for the
/// status page and `/healthz`, which serve from the first moment: a slow or spent network is then shown, not hidden
/// behind a port that does not answer.
public final class StartupProgress: Sendable {
    private let waitingFor = Mutex<String?>("the archive to answer")

    /// Progress with nothing known yet.
    public init() {}

    /// Says what the start waits for now.
    public func waiting(for what: String) { waitingFor.withLock { $0 = what } }

    /// Says the services are running.
    public func started() { waitingFor.withLock { $0 = nil } }

    /// What the start waits for; nil once the services run.
    public var pending: String? { waitingFor.withLock { $0 } }
}
