import BotClock
import Foundation
import HTTPTypes

/// The archives being imported at the door, one per person, each beside the answer to its upload: the answer waits for
/// it a while, and a longer import's progress page finds its outcome here once it ends. An outcome nobody came back
/// for is forgotten after `kept`. An import cut short by the process's end stores what it had stored (posts are
/// archived by their ids: the same archive again adds only what is missing).
actor ArchiveImports {
    /// What an import came to: the page that says so.
    struct Outcome: Sendable {
        /// The page's status.
        var status: HTTPResponse.Status
        /// The page.
        var html: String
    }

    /// Where a person's import stands.
    enum Progress: Sendable {
        /// Running since then.
        case running(since: Date)
        /// Ended: what it came to (said once: then forgotten).
        case finished(Outcome)
    }

    private struct Job {
        var started: Date
        var outcome: Outcome?
        var ended: Date?
    }

    /// How long an outcome waits for its person to come back for it.
    static let kept: TimeInterval = 600

    private var jobs: [String: Job] = [:]
    private let clock: any BotClock

    init(clock: any BotClock) { self.clock = clock }

    /// Starts `work`, the import of `whose` (one at a time each: their upload slot says so), now; `afterwards` runs once
    /// its outcome is kept (what lets the person upload again: their next import never meets this one's outcome).
    func start(for whose: String, _ work: @escaping @Sendable () async -> Outcome, afterwards: @escaping @Sendable () async -> Void = {}) {
        let now = clock.now()
        jobs = jobs.filter { $0.value.ended.map { now.timeIntervalSince($0) < Self.kept } ?? true }
        jobs[whose] = Job(started: now)
        Task {
            self.finish(whose, with: await work())
            await afterwards()
        }
    }

    private func finish(_ whose: String, with outcome: Outcome) {
        jobs[whose]?.outcome = outcome
        jobs[whose]?.ended = clock.now()
    }

    /// The outcome of `whose` import once it ended within `limit` (looked at every 50 ms), taken; nil while it runs.
    func outcome(for whose: String, waitingUpTo limit: Duration) async -> Outcome? {
        let deadline = ContinuousClock.now + limit
        while true {
            if let outcome = jobs[whose]?.outcome {
                jobs[whose] = nil
                return outcome
            }
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return nil }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Whether `whose` import has ended (its outcome not yet taken).
    func hasEnded(_ whose: String) -> Bool { jobs[whose]?.outcome != nil }

    /// Where `whose` import stands; an ended one is said once, then forgotten. Nil: none.
    func progress(for whose: String) -> Progress? {
        guard let job = jobs[whose] else { return nil }
        guard let outcome = job.outcome else { return .running(since: job.started) }
        jobs[whose] = nil
        return .finished(outcome)
    }
}
