public import BotClock
import BotCore
import Foundation
public import Logging
public import ServiceLifecycle
import SocialNetwork
public import Stores
public import Training

/// Notices the person's deletions of posts the bot copied, without being asked: once a day of bot time (first two
/// hours after start, out of the way of the start's own work) it looks up the originals of the copies made in the
/// last `days` (one read each: on X an owned read, $0.001; free on Mastodon), and forgets each one the person
/// deleted: out of the archive, the examples and the word counts, and the bot's copies deleted (`Forgetter`). X asks
/// that content its author deleted goes within 24 hours. Runs with `CHECK_ORIGINALS`; a failure pauses it like any
/// service, and its reads are the first the budget sheds (learning).
///
/// Every `uncheckedInterval` it also looks up the originals of the posts that went out unchecked (their look-up before
/// posting could not be answered, or there was no time for it), so that each is looked up within the hour of its post;
/// these reads protect posts, and are budgeted as posts.
public struct DeletionWatcher: Service {
    let clock: any BotClock
    let archive: any PostArchive
    let plans: any PlanStore
    let forgetter: Forgetter
    let days: Int
    let logger: Logger

    /// A watcher of the copies made in the last `days` and of the posts that went out unchecked (`plans`), forgetting
    /// with `forgetter` (whose network it looks up).
    public init(clock: any BotClock, archive: any PostArchive, plans: any PlanStore, forgetter: Forgetter, days: Int, logger: Logger) {
        self.clock = clock
        self.archive = archive
        self.plans = plans
        self.forgetter = forgetter
        self.days = days
        self.logger = logger
    }

    /// How many days of copies are checked: on X a week (each check is billed), on a free network a month.
    public static func days(onBilledNetwork billed: Bool) -> Int { billed ? 7 : 30 }

    /// Checks the copies two hours after start, then every 24 hours of bot time; the posts that went out unchecked every
    /// `uncheckedInterval`; until the group's graceful shutdown.
    public func run() async throws {
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask {
                try await PollingLoop.runDaily(
                    "Deletion watcher", on: forgetter.network.name, clock: clock, logger: logger, firstAfter: Self.firstDelay
                ) {
                    try await checkOnce()
                }
            }
            group.addTask {
                // No longer backoff than the interval: each is to be looked up within the hour of its post.
                try await PollingLoop.run(
                    "Unchecked posts", on: forgetter.network.name, clock: clock, logger: logger, interval: Self.uncheckedInterval,
                    longestBackoff: Self.uncheckedInterval
                ) { _ in
                    try await checkUncheckedOnce()
                    return Self.uncheckedInterval
                }
            }
        }
    }

    /// How often the originals of posts that went out unchecked are looked up (each within the hour of its post).
    static let uncheckedInterval = Duration.seconds(600)

    /// Looks up the original of every post that went out unchecked and is not looked up yet: found, it is noted as
    /// checked; deleted, it is forgotten (the bot's copy deleted). A look-up that fails skips its post with one line
    /// (it stays unchecked, and the next round tries it again), never the posts after it; a store that fails ends the
    /// round. Returns the originals found deleted.
    @discardableResult
    func checkUncheckedOnce() async throws -> [PostID] {
        var forgotten: [PostID] = []
        for post in try await plans.uncheckedPosts() {
            let exists: Bool
            do {
                exists = try await forgetter.network.postExists(post.sourcePostID.text, as: .human, for: .posts)
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                logger.warning(
                    "unchecked posts: could not look up the original \(post.sourcePostID) of slot \(LocalTime.clockTime(post.minute)) of \(post.day) (\(error)); it is looked up again in \(Self.uncheckedInterval.components.seconds / 60) minutes"
                )
                continue
            }
            if exists {
                try await plans.markChecked(day: post.day, minute: post.minute, at: clock.now())
                logger.info("unchecked posts: the original \(post.sourcePostID) of slot \(LocalTime.clockTime(post.minute)) of \(post.day) is there")
                continue
            }
            let report = try await forgetter.forget(post.sourcePostID)
            try await plans.markChecked(day: post.day, minute: post.minute, at: clock.now())
            forgotten.append(post.sourcePostID)
            let deleted =
                report.copiesDeleted.isEmpty ? "" : "; the bot's copies \(report.copiesDeleted.map(String.init).joined(separator: ", ")) deleted"
            let failed =
                report.copiesFailed.isEmpty
                ? ""
                : "; not deleted now: \(report.copiesFailed.map { "\($0.id) (\($0.why))" }.joined(separator: "; ")) (mirror_bot forget \(post.sourcePostID) tries again)"
            logger.notice(
                "unchecked posts: the human deleted post \(post.sourcePostID), posted unchecked at \(LocalTime.clockTime(post.minute)) of \(post.day): removed from the archive\(deleted)\(failed)"
            )
        }
        return forgotten
    }

    /// How long after start the first check waits.
    static let firstDelay = Duration.seconds(7_200)

    /// One check; the posts found deleted and forgotten.
    @discardableResult
    func checkOnce() async throws -> [PostID] {
        let originals = try await archive.copiedOriginals(since: clock.now().addingTimeInterval(-Double(days) * 86_400))
        var forgotten: [PostID] = []
        let present = try await forgetter.network.existingPosts(originals.map(String.init), as: .human, for: .learning)
        for original in originals where !present.contains(original.text) {
            let report = try await forgetter.forget(original)
            forgotten.append(original)
            let deleted =
                report.copiesDeleted.isEmpty ? "" : "; the bot's copies \(report.copiesDeleted.map(String.init).joined(separator: ", ")) deleted"
            let failed =
                report.copiesFailed.isEmpty
                ? ""
                : "; not deleted now: \(report.copiesFailed.map { "\($0.id) (\($0.why))" }.joined(separator: "; ")) (mirror_bot forget \(original) tries again)"
            logger.notice("deletions: the human deleted post \(original): removed from the archive\(deleted)\(failed)")
        }
        if !originals.isEmpty {
            logger.info(
                "deletions: looked up the originals of \(originals.count) copies of the last \(days) days; \(forgotten.count) deleted by the human")
        }
        return forgotten
    }
}
