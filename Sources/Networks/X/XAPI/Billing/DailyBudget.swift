import BotClock
public import BotCore
public import Foundation
public import Logging
import SocialNetwork
import Synchronization

/// The most mirror_bot spends on X in one UTC day (`X_DAILY_BUDGET`), by its own count of X's bill.
///
/// Before every call the client asks whether the call's worst case fits: what it may cost if every resource it can
/// return is billed. As the day's spend nears the budget, work is shed in a fixed order: learning from the person
/// (their timeline, likes and new tweets) when the day's spend reaches half the budget, liking at 70%, replies at
/// 90%, and the scheduled posts only at the budget itself. The posts still planned for the day are kept aside from
/// every other work's share. Each shed is logged once per UTC day with the figures; the next UTC day everything
/// resumes. A paged read that does not fit whole is asked for fewer posts when that fits.
public final class DailyBudget: Sendable {
    private struct State {
        /// When the posts still planned are due: each is kept aside on its UTC day.
        var reservedPosts: [Date] = []
        /// When the likes still planned are due: each is kept aside from the reads for likes of its UTC day.
        var reservedLikes: [Date] = []
        /// The UTC day each work was last shed on (so each is logged once a day).
        var shed: [Work: String] = [:]
        /// The last UTC day a call was admitted or shed on.
        var lastDay = ""
    }

    /// The budget in US dollars a UTC day.
    public let limit: Double
    /// The meter whose bill is counted.
    public let meter: UsageMeter
    /// Where the day's spend is written before each billed call; nil keeps it in memory only (tests, one-shot runs).
    public let ledger: (any SpendLedger)?
    private let state = Mutex(State())
    /// Held while a call's worst case is checked against the headroom and counted in flight, so that two calls at once
    /// cannot both take the last of it.
    private let admission = Mutex(())
    private let logger: Logger

    /// A budget of `limit` dollars a UTC day over `meter`'s bill; with a `ledger`, each billed call's worst case is
    /// written there before the call is sent.
    public init(limit: Double, meter: UsageMeter, ledger: (any SpendLedger)? = nil, logger: Logger) {
        self.limit = limit
        self.meter = meter
        self.ledger = ledger
        self.logger = logger
    }

    /// Admits a call of `work` to `endpoint` whose worst case is `cost`, at `date`: counted as spent while in flight and,
    /// with a ledger, written there before this returns, so that a crash during the call loses no spend. Throws,
    /// sending nothing, when the day's spend is unknown (what other runs spent could not be read), when the call no
    /// longer fits (another took the headroom meanwhile), or when the spend could not be written. `settle` the
    /// reservation once the call has ended, however it ended.
    public func reserve(_ cost: Double, work: Work, endpoint: String, reading: Bool = false, at date: Date) async throws -> SpendReservation? {
        guard cost > 0 else { return nil }
        let day = UsageMeter.billingDay(of: date)
        if meter.isSpentElsewhereUnread {
            // Read again by the call itself, not only by the minute's recording (which may not run yet at start).
            do {
                guard let ledger else { throw XAPIError.spendUnknown(endpoint: endpoint, detail: "no store to read it from") }
                try await ledger.readOthers(onBillingDay: day)
            } catch {
                throw XAPIError.spendUnknown(endpoint: endpoint, detail: "what other runs spent today could not be read (\(error))")
            }
        }
        try admission.withLock { _ in
            guard cost <= headroom(for: work, at: date, reading: reading) + 1e-9 else { throw shed(work, endpoint: endpoint, needed: cost, at: date) }
            meter.reserveInFlight(cost, onBillingDay: day)
        }
        let reservation = SpendReservation(cost: cost, day: day)
        guard let ledger else { return reservation }
        do {
            // Bounded: a store that cannot take one small write in that long is as good as down, and a service's tick
            // (which a graceful shutdown waits for) must not wait on it for the store's own limit.
            try await withTimeLimit(Self.ledgerWriteLimit) { try await ledger.write(onBillingDay: day) }
        } catch {
            settle(reservation)
            throw XAPIError.spendUnknown(endpoint: endpoint, detail: "today's spend could not be written before spending (\(error))")
        }
        return reservation
    }

    /// How long a billed call waits for its spend to be written before it is given up (not sent).
    static let ledgerWriteLimit = Duration.seconds(2)

    /// Stops counting a call's reservation in flight: what X billed for it is on the meter's bill by now.
    public func settle(_ reservation: SpendReservation?) {
        guard let reservation else { return }
        meter.releaseInFlight(reservation.cost, onBillingDay: reservation.day)
    }

    /// Keeps aside the cost of the posts still planned, due at `dates`, from every other work's share of each one's
    /// UTC day (replacing what was kept aside before).
    public func reservePosts(at dates: [Date]) {
        state.withLock { $0.reservedPosts = dates }
    }

    /// Keeps aside the cost of the likes still planned, due at `dates`, from the reads for likes (and learning) of
    /// each one's UTC day, so that reading never spends what the likes need (replacing what was kept aside before).
    public func reserveLikes(at dates: [Date]) {
        state.withLock { $0.reservedLikes = dates }
    }

    /// How many planned posts are kept aside on `day`.
    private func reservedCount(on day: String) -> Int {
        state.withLock { $0.reservedPosts.filter { UsageMeter.billingDay(of: $0) == day }.count }
    }

    /// How many planned likes are kept aside on `day`.
    private func reservedLikeCount(on day: String) -> Int {
        state.withLock { $0.reservedLikes.filter { UsageMeter.billingDay(of: $0) == day }.count }
    }

    /// The dollars a call of `work` may still cost on the UTC day of `date`; a read (`reading`) of liking or learning
    /// leaves the likes still planned their room.
    public func headroom(for work: Work, at date: Date, reading: Bool = false) -> Double {
        let day = UsageMeter.billingDay(of: date)
        noteDay(day)
        let reserved = Double(reservedCount(on: day)) * meter.prices.postCreate
        let likes = reading && work <= .liking ? Double(reservedLikeCount(on: day)) * meter.prices.interactionCreate : 0
        let ceiling = limit * work.shareOfBudget - (work < .posts ? reserved : 0) - likes
        return ceiling - meter.spent(onBillingDay: day)
    }

    /// The works shed on the UTC day of `date`.
    public func shedWorks(at date: Date) -> [Work] {
        let day = UsageMeter.billingDay(of: date)
        return state.withLock { state in Work.allCases.filter { state.shed[$0] == day } }
    }

    /// The error for a call of `work` that does not fit, whose least form costs `needed`; the first of the day for that
    /// work is logged with the figures.
    func shed(_ work: Work, endpoint: String, needed: Double, at date: Date) -> XAPIError {
        let day = UsageMeter.billingDay(of: date)
        noteDay(day)
        let spent = meter.spent(onBillingDay: day)
        let first = state.withLock { state -> Bool in
            guard state.shed[work] != day else { return false }
            state.shed[work] = day
            return true
        }
        if first {
            let reserve = work < .posts ? reservedCount(on: day) : 0
            let kept =
                reserve > 0
                ? String(format: ", keeping $%.3f for the %d posts still planned", Double(reserve) * meter.prices.postCreate, reserve) : ""
            logger.notice(
                "\(String(format: "budget: %@ stopped for the rest of the UTC day %@: $%.3f of X_DAILY_BUDGET $%.2f spent; %@ goes on only below %.0f%% of it%@ (%@ would need at least $%.3f); resumes at 00:00 UTC", work.description, day, spent, limit, work.description, work.shareOfBudget * 100, kept, endpoint, needed))"
            )
        }
        return XAPIError.overBudget(endpoint: endpoint, work: work.description, spent: spent, limit: limit)
    }

    /// Logs, once, that a new UTC day resumed what was shed the day before.
    private func noteDay(_ day: String) {
        let resumed = state.withLock { state -> [Work] in
            guard state.lastDay != day else { return [] }
            let previous = state.lastDay
            state.lastDay = day
            return Work.allCases.filter { state.shed[$0] == previous && !previous.isEmpty }
        }
        if !resumed.isEmpty {
            logger.notice("budget: a new UTC day (\(day)); resuming \(resumed.map(\.description).joined(separator: ", "))")
        }
    }
}

extension Work {
    /// The share of the daily budget the day's spend may reach for this work to go on: learning stops at half,
    /// liking at 70%, replies at 90%, the scheduled posts at the budget itself.
    public var shareOfBudget: Double {
        switch self {
        case .learning: 0.5
        case .liking: 0.7
        case .replies: 0.9
        case .posts: 1.0
        }
    }
}

/// A billed call's worst case, counted as spent while the call is in flight.
public struct SpendReservation: Sendable, Equatable {
    /// The worst case, in US dollars.
    public var cost: Double
    /// The UTC day it counts on.
    public var day: String
}

/// Where the day's spend is kept so that it outlives the process: written before every billed call with what the
/// process has spent and may be spending (its calls in flight at their worst case), so that a crash at any moment
/// loses no spend and a restart never counts from zero.
public protocol SpendLedger: Sendable {
    /// Writes what this process is to be counted for on the UTC `day` (`UsageMeter.recordedCost`); throws when it
    /// could not be written (the call then waits).
    func write(onBillingDay day: String) async throws
    /// Reads what the other runs spent on `day` into the meter (`UsageMeter.setSpentElsewhere`); throws when it could
    /// not be read.
    func readOthers(onBillingDay day: String) async throws
}
