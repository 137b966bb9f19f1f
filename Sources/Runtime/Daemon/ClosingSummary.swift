import BotClock
import Foundation
import Logging
import Schedule
import ServiceLifecycle
import Stores
import Synchronization

/// What a run stored, read at its end for `start`'s closing summary: slots per state over the days the run touched,
/// mentions answered and not, likes. Read while the database pool still runs (this service stops after the others
/// and before the pool), within a few seconds: when the store does not answer, the summary says so instead.
final class ClosingSummary: Service {
    /// The figures, or why they could not be read.
    struct Figures: Sendable {
        var slots: [PlanSlot.State: Int] = [:]
        var postedUnchecked = 0
        var replies = 0
        var mentionsNotAnswered = 0
        var likes = 0
    }

    private let database: any StoreSet
    private let timeZone: TimeZone
    private let from: Date
    private let clock: any BotClock
    private let likingStatus: @Sendable () -> String
    private let logger: Logger
    private let result = Mutex<Result<Figures, any Error>?>(nil)

    /// How long the summary may wait for the store.
    static let timeLimit = Duration.seconds(3)

    init(
        database: any StoreSet, timeZone: TimeZone, from: Date, clock: any BotClock, likingStatus: @escaping @Sendable () -> String,
        logger: Logger
    ) {
        self.database = database
        self.timeZone = timeZone
        self.from = from
        self.clock = clock
        self.likingStatus = likingStatus
        self.logger = logger
    }

    /// The figures read at the end, or the error that kept them from being read.
    var figures: Result<Figures, any Error>? { result.withLock { $0 } }

    func run() async throws {
        try? await gracefulShutdown()  // waits for the group's shutdown; then reads once
        let outcome: Result<Figures, any Error>
        do {
            outcome = .success(try await withTimeLimit(Self.timeLimit) { [self] in try await read(until: clock.now()) })
        } catch {
            outcome = .failure(error)
        }
        result.withLock { $0 = outcome }
    }

    /// The local days from the run's start to `until`, each once.
    static func days(from start: Date, until end: Date, in timeZone: TimeZone) -> [String] {
        var days: [String] = []
        var day = start
        while day <= end {
            days.append(SchedulePlanner.day(of: day, in: timeZone))
            day = day.addingTimeInterval(86_400)
        }
        let last = SchedulePlanner.day(of: end, in: timeZone)
        if days.last != last { days.append(last) }
        return days
    }

    private func read(until end: Date) async throws -> Figures {
        var figures = Figures()
        let plans = database.plans
        for day in Self.days(from: from, until: end, in: timeZone) {
            for slot in try await plans.slots(of: day) ?? [] {
                figures.slots[slot.state, default: 0] += 1
                if slot.state == .posted && slot.postedUnchecked { figures.postedUnchecked += 1 }
            }
        }
        let mentions = database.mentions
        figures.replies = try await mentions.handledCount(state: .replied)
        figures.mentionsNotAnswered = try await mentions.handledCount(state: .skipped)
        figures.likes = try await database.likes.count()
        // For the demo's report and the status page: best effort, a busy file must not cost the summary.
        try? await database.state.setValue(likingStatus(), of: "likes.status")
        return figures
    }
}
