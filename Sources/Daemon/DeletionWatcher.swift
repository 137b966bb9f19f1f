public import Stores
public import BotClock
import Foundation
public import Logging
public import ServiceLifecycle
public import SocialNetwork
public import Training

/// Notices the person's deletions of tweets the bot copied, without being asked: once a day of bot time (first two
/// hours after start, out of the way of the start's own work) it looks up the originals of the copies made in the
/// last `days` (one read each: on X an owned read, $0.001; free on Mastodon), and forgets each one the person
/// deleted: out of the archive, the examples and the word counts, and the bot's copies deleted (`Forgetter`). X asks
/// that content its author deleted goes within 24 hours. Runs with `CHECK_ORIGINALS`; a failure pauses it like any
/// service, and its reads are the first the budget sheds (learning).
public struct DeletionWatcher: Service {
    let clock: any BotClock
    let archive: any TweetArchive
    let forgetter: Forgetter
    let days: Int
    let logger: Logger

    /// A watcher of the copies made in the last `days`, forgetting with `forgetter` (whose network it looks up).
    public init(clock: any BotClock, archive: any TweetArchive, forgetter: Forgetter, days: Int, logger: Logger) {
        self.clock = clock; self.archive = archive; self.forgetter = forgetter; self.days = days; self.logger = logger
    }

    /// How many days of copies are checked: on X a week (each check is billed), on a free network a month.
    public static func days(onBilledNetwork billed: Bool) -> Int { billed ? 7 : 30 }

    /// Checks two hours after start, then every 24 hours of bot time, until the group's graceful shutdown.
    public func run() async throws {
        try await PollingLoop.runDaily("Deletion watcher", on: forgetter.network.name, clock: clock, logger: logger, firstAfter: Self.firstDelay) {
            try await checkOnce()
        }
    }

    /// How long after start the first check waits.
    static let firstDelay = Duration.seconds(7_200)

    /// One check; the tweets found deleted and forgotten.
    @discardableResult
    func checkOnce() async throws -> [Int64] {
        let originals = try await archive.copiedOriginals(since: clock.now().addingTimeInterval(-Double(days) * 86_400))
        var forgotten: [Int64] = []
        for original in originals {
            guard try await !forgetter.network.postExists(String(original), as: .human, for: .learning) else { continue }
            let report = try await forgetter.forget(original)
            forgotten.append(original)
            let deleted = report.copiesDeleted.isEmpty ? "" : "; the bot's copies \(report.copiesDeleted.map(String.init).joined(separator: ", ")) deleted"
            let failed = report.copiesFailed.isEmpty ? "" : "; not deleted now: \(report.copiesFailed.map { "\($0.id) (\($0.why))" }.joined(separator: "; ")) (mirror_bot forget \(original) tries again)"
            logger.notice("deletions: the human deleted tweet \(original): removed from the archive\(deleted)\(failed)")
        }
        if !originals.isEmpty {
            logger.info("deletions: looked up the originals of \(originals.count) copies of the last \(days) days; \(forgotten.count) deleted by the human")
        }
        return forgotten
    }
}
