import BotClock
import BotCore
import Foundation
import Schedule
import SocialNetwork
import Synchronization

extension Replier {
    /// One round where the network pushes mentions: open the stream, catch up with one poll (what came while it was
    /// not open; anything pushed meanwhile waits in the stream), then answer each pushed mention as it arrives, until
    /// the stream ends. Returns the wait before the next round: none after a drop (the next round polls and opens
    /// the stream again), the poll interval while the stream cannot be opened (polling takes over, and the stream
    /// is tried again with backoff).
    func streamRound(_ stream: MentionStreamState, using generator: inout SplitMix64) async throws -> Duration {
        let interval = Duration.seconds(settings.pollInterval)
        guard clock.now() >= stream.nextAttempt else {
            try await pollOnce(using: &generator)
            return interval
        }
        let mentionsPushed: NetworkPostStream
        do {
            mentionsPushed = try await network.openMentionStream(of: botUserID)
        } catch let error as NetworkError {
            let retryIn = stream.failed(at: clock.now(), interval: settings.pollInterval)
            if stream.sayDown() {
                logger.warning(
                    "mentions: \(network.name)'s stream could not be opened (\(error)); polling every \(Int(settings.pollInterval)) s, trying the stream again in \(Int(retryIn)) s and then with backoff"
                )
            }
            try await pollOnce(using: &generator)
            return interval
        }
        let openedAt = clock.now()
        let again = stream.hasStreamed
        stream.opened()
        try await pollOnce(using: &generator)
        logger.notice("mentions: \(again ? "streaming again" : "streaming") from \(network.name); polling only to catch up after a drop")
        let cursor = SinceCursor(state: state, key: Self.sinceIDKey)
        let reason: String
        do {
            for try await mention in mentionsPushed {
                // Read by the catching-up poll already, or older than the first start.
                guard case .after(let handled) = try await cursor.position(), SinceCursor.isNewer(mention.positionInList, than: handled) else {
                    continue
                }
                try await answer(mention, cursor: cursor, seed: generator.next())
            }
            reason = "\(network.name) closed it"
        } catch let error as NetworkError {
            reason = error.description
        }
        let retryIn = stream.dropped(at: clock.now(), openedAt: openedAt, interval: settings.pollInterval)
        logger.warning(
            "mentions: the stream dropped (\(reason)); polling \(retryIn > 0 ? "every \(Int(settings.pollInterval)) s, the stream again in \(Int(retryIn)) s" : "to catch up, then streaming again")"
        )
        return .zero
    }
}

/// Where the replier's use of a mention stream stands across rounds: failures in a row, when to try the stream
/// again.
final class MentionStreamState: Sendable {
    private struct State {
        var failures = 0
        var nextAttempt = Date.distantPast
        var hasStreamed = false
        var saidDown = false
    }
    private let state = Mutex(State())

    /// A stream that lived this long before it dropped is not a failure.
    static let healthyLife: TimeInterval = 300
    /// The longest wait between attempts to open the stream.
    static let longestWait: TimeInterval = 3_600

    /// Failed attempts (or short-lived streams) in a row.
    var failures: Int { state.withLock { $0.failures } }
    /// When the stream may be opened again.
    var nextAttempt: Date { state.withLock { $0.nextAttempt } }
    /// Whether a stream was open before in this run.
    var hasStreamed: Bool { state.withLock { $0.hasStreamed } }

    /// The stream opened.
    func opened() {
        state.withLock {
            $0.hasStreamed = true
            $0.saidDown = false
        }
    }

    /// Whether the stream's failing to open is to be logged: once, until it opens again.
    func sayDown() -> Bool {
        state.withLock { state in
            defer { state.saidDown = true }
            return !state.saidDown
        }
    }

    /// The stream could not be opened at `now`: returns the seconds until the next attempt (the poll interval, doubling
    /// with each failure in a row, at most an hour).
    func failed(at now: Date, interval: TimeInterval) -> TimeInterval {
        state.withLock { state in
            state.failures += 1
            let wait = min(Self.longestWait, interval * pow(2, Double(state.failures - 1)))
            state.nextAttempt = now.addingTimeInterval(wait)
            return wait
        }
    }

    /// The stream opened at `openedAt` dropped at `now`: a long-lived one is opened again at once; one that dropped
    /// soon after opening counts as a failure and waits. Returns the seconds until the next attempt.
    func dropped(at now: Date, openedAt: Date, interval: TimeInterval) -> TimeInterval {
        if now.timeIntervalSince(openedAt) >= Self.healthyLife {
            state.withLock {
                $0.failures = 0
                $0.nextAttempt = now
            }
            return 0
        }
        return failed(at: now, interval: interval)
    }
}
