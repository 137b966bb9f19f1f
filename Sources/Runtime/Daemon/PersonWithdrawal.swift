public import BotClock
public import Consent
public import Foundation
public import Logging
public import ServiceLifecycle
public import SocialNetwork
public import Stores
import Synchronization
public import WordCounts

/// The end of a mirror, when the person withdraws (their grant revoked, their words by mention, `mirror_bot forget-me`):
/// the consent record says when and how, everything stops at once (the pause `ended`, which only a new sign-in of
/// theirs lifts), and everything learned from them is deleted (`forget`), keeping only what proves the end.
public struct PersonWithdrawal: Sendable {
    /// Where the consent is kept.
    public let records: ConsentRecords
    /// The pause every service reads before it acts.
    public let control: OwnerControl
    /// The stores' removal of what was learned from the person.
    public let retention: any StoreRetention
    /// The word counts learned from the person's likes and timeline.
    public let wordCounts: any WordCountBackend
    /// The log.
    public let logger: Logger

    /// The withdrawal over `state`, `retention` and `wordCounts`.
    public init(state: any BotState, retention: any StoreRetention, wordCounts: any WordCountBackend, logger: Logger) {
        records = ConsentRecords(state: state)
        control = OwnerControl(state: state)
        self.retention = retention
        self.wordCounts = wordCounts
        self.logger = logger
    }

    /// Stops everything at `date`, recording the withdrawal `how`; returns the record as withdrawn (nil when it was
    /// withdrawn before, or there was none: everything is stopped all the same).
    @discardableResult
    public func stop(at date: Date, how: String) async throws -> PersonConsent? {
        let withdrawn = try await records.withdraw(at: date, how: how)
        try await control.pause(.ended, at: date)
        logger.notice("the person ended the mirror (\(how)): nothing more is posted, answered, liked or learned")
        return withdrawn
    }

    /// Once the mirror ended, deletes what work in flight at the end recorded after it (a post's slot and record);
    /// nothing while it runs.
    public func sweepAfterEnd() async throws {
        guard try await control.ended(), try await retention.personRecords().values.contains(where: { $0 > 0 }) else { return }
        let swept = try await forget()
        logger.notice("swept what was recorded after the end of the mirror: \(swept.summary)")
    }

    /// Deletes everything learned from the person, in the stores and the word counts; returns the rows by table and
    /// the word-count keys that went.
    public func forget() async throws -> Forgotten {
        let rows = try await retention.forgetPerson()
        let keys = try await wordCounts.removeAll()
        let forgotten = Forgotten(rows: rows, wordCountKeys: keys)
        logger.notice("forgot everything learned from the person: \(forgotten.summary)")
        return forgotten
    }

    /// Stops and forgets: the whole end.
    @discardableResult
    public func end(at date: Date, how: String) async throws -> Forgotten {
        try await stop(at: date, how: how)
        return try await forget()
    }

    /// What forgetting removed.
    public struct Forgotten: Sendable, Equatable {
        /// Rows deleted, by table.
        public var rows: [String: Int]
        /// Word-count keys deleted.
        public var wordCountKeys: Int

        /// A forgetting's counts from their parts.
        public init(rows: [String: Int], wordCountKeys: Int) {
            self.rows = rows
            self.wordCountKeys = wordCountKeys
        }

        /// "1,204 rows (posts 1,000, …) and 3,120 word-count keys".
        public var summary: String {
            let total = rows.values.reduce(0, +)
            let detail = rows.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            return "\(total) rows\(detail.isEmpty ? "" : " (\(detail))") and \(wordCountKeys) word-count keys"
        }
    }
}

/// How the daemon checks that the person's grant still works: `every` so often (within the hour where reads are free,
/// once a day where each check is billed), by signing in with their credentials.
public struct ConsentCheck: Sendable {
    /// How often.
    public var every: Duration
    /// Signs in as the person: throws `PersonSignInRefused` when the network refuses their credentials.
    public var verify: @Sendable () async throws -> VerifiedPerson

    /// A check from its parts.
    public init(every: Duration, verify: @escaping @Sendable () async throws -> VerifiedPerson) {
        self.every = every
        self.verify = verify
    }
}

/// The service that notices the person's withdrawal by the network: their grant revoked (the app's access taken back,
/// the app password deleted) ends the mirror at once. A network that cannot be asked now is asked again, and never
/// counts as a withdrawal. After the end it sweeps, at each interval, what work in flight at the end recorded later.
public struct ConsentWatch: Service {
    let clock: any BotClock
    let check: ConsentCheck
    let withdrawal: PersonWithdrawal
    let networkName: String
    let logger: Logger

    /// A watch on `clock`.
    public init(clock: any BotClock, check: ConsentCheck, withdrawal: PersonWithdrawal, networkName: String, logger: Logger) {
        self.clock = clock
        self.check = check
        self.withdrawal = withdrawal
        self.networkName = networkName
        self.logger = logger
    }

    /// Checks every `check.every` (the first after one interval: the start verified or read the consent) until
    /// cancelled; once the mirror ended, checks nothing more. A watch that saw the end sweeps once more as it stops
    /// (the services that act stop before it): a post in flight at the end is recorded by then. That sweep has
    /// `finalSweepLimit` of real time, so a store out of reach does not hold up the stop.
    public func run() async throws {
        let every = check.every
        let sawEnd = SawEnd()
        try await PollingLoop.run("Consent watch", on: networkName, clock: clock, logger: logger, interval: every) { number in
            if number == 0 { return every }
            try await checkOnce(noting: sawEnd)
            return every
        }
        guard sawEnd.value else { return }
        let withdrawal = withdrawal
        do {
            try await withTimeLimit(Self.finalSweepLimit) { try await withdrawal.sweepAfterEnd() }
        } catch {
            logger.warning(
                "what was recorded after the end of the mirror could not be swept as the bot stopped (\(error)); `mirror_bot forget-me` deletes it")
        }
    }

    /// The real time the sweep at the stop may take.
    static let finalSweepLimit = Duration.seconds(2)

    /// One check: a refusal of the person's credentials ends the mirror. Once it ended, nothing is asked of the
    /// network: what a post in flight at the end recorded after it (its slot, its record) is swept away instead.
    /// Once the mirror ended (or its end began), `sawEnd` says so: a stop in the middle of forgetting is swept as the
    /// watch stops.
    func checkOnce(noting sawEnd: SawEnd) async throws {
        guard try await !withdrawal.control.ended() else {
            sawEnd.set()
            try await withdrawal.sweepAfterEnd()
            return
        }
        // A lapsed sign-in is not asked again: only the person's new sign-in (which lifts the pause) helps.
        if try await withdrawal.control.current()?.pause == .signInLapsed { return }
        do {
            let person = try await check.verify()
            logger.debug("the person's grant still works: @\(person.handle) (\(person.account))")
        } catch let lapsed as PersonSignInLapsed {
            try await withdrawal.control.pause(.signInLapsed, at: clock.now())
            logger.notice(
                "\(lapsed.description). Not a withdrawal: nothing learned is deleted, but nothing is posted, answered, liked or learned until the person signs in again"
            )
        } catch let refused as PersonSignInRefused {
            try await withdrawal.stop(at: clock.now(), how: "their grant was revoked: \(refused.description)")
            sawEnd.set()
            _ = try await withdrawal.forget()
        }
    }

    /// Whether the watch saw the mirror end.
    final class SawEnd: Sendable {
        private let seen = Mutex(false)
        var value: Bool { seen.withLock { $0 } }
        func set() { seen.withLock { $0 = true } }
    }
}
