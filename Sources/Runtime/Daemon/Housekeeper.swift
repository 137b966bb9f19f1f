public import BotClock
import Foundation
public import Logging
public import ServiceLifecycle
public import Stores
public import WordCounts

/// Keeps the stores within small plans, once a day of bot time (first an hour after start, out of the way of
/// the start's own work): removes the records `StoreRetention` no longer
/// keeps (mention and like logs, day plans, records of posts, API usage, the oldest training examples) and lets go of
/// old `normal` markers of the word counts. Says in one line what it removed; a failure pauses it like any service.
public struct Housekeeper: Service {
    let clock: any BotClock
    let retention: any StoreRetention
    let policy: RetentionPolicy
    let wordCounts: any WordCountBackend
    let logger: Logger

    /// A housekeeper of `retention`'s database and `wordCounts`, keeping what `policy` says.
    public init(clock: any BotClock, retention: any StoreRetention, policy: RetentionPolicy, wordCounts: any WordCountBackend, logger: Logger) {
        self.clock = clock
        self.retention = retention
        self.policy = policy
        self.wordCounts = wordCounts
        self.logger = logger
    }

    /// Prunes an hour after start, then every 24 hours of bot time, until the group's graceful shutdown.
    public func run() async throws {
        try await PollingLoop.runDaily("Housekeeper", on: "the stores", clock: clock, logger: logger, firstAfter: Self.firstDelay) {
            try await pruneOnce()
        }
    }

    /// How long after start the first pruning waits.
    static let firstDelay = Duration.seconds(3_600)

    /// One pruning; what it removed.
    @discardableResult
    func pruneOnce() async throws -> (RemovedRecords, markers: Int) {
        let removed = try await retention.prune(at: clock.now(), policy: policy)
        let markers = try await wordCounts.forgetOldNormalMarkers()
        if removed.total > 0 || markers > 0 {
            logger.info(
                "housekeeping: removed \(removed)\(markers > 0 ? " and \(markers) old learned-tweet markers" : "") (records kept \(policy.logDays) days, training examples the newest \(policy.trainingExamples))"
            )
        }
        return (removed, markers)
    }
}
