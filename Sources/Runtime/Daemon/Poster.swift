public import BotClock
import BotCore
public import Consent
public import Foundation
public import Logging
public import Picking
public import Schedule
public import ServiceLifecycle
public import SocialNetwork
public import Stores
import Synchronization

/// Posts the human's posts at the human's kind of times, surviving restarts.
///
/// At the first minute of each local day (the human's zone) the day's plan is drawn and stored in Postgres; a
/// restart the same day reuses it. At each slot's minute a post is picked and posted. A slot is claimed before its
/// post is sent, so a crash mid-post is never followed by a second post of that slot; a slot whose minute passed
/// more than `missedSlotGrace` ago (the process was down) is skipped, not posted late. X refusing a post as a
/// duplicate makes it pick another, a few times, then skip with the reason. While the person has paused the bot
/// (`OwnerControl`, from a mention of theirs), each slot is skipped at its minute saying so.
public struct Poster: Service {
    /// How the poster behaves.
    public struct Settings: Sendable {
        /// A slot this late is skipped (`MISSED_SLOT_GRACE`, default 10 minutes).
        public var missedSlotGrace: TimeInterval
        /// Posts tried per slot when X refuses them as duplicates.
        public var picksPerSlot: Int
        /// Log what would be posted without posting (`--dry-run`).
        public var dryRun: Bool
        /// Look up the person's original before posting a copy (`CHECK_ORIGINALS`): one deleted is dropped from the
        /// archive and another picked.
        public var checksOriginals: Bool

        /// Settings; the defaults are the documented ones (`CHECK_ORIGINALS` is on by default in the configuration;
        /// off here, for tests whose fake network does not hold the originals).
        public init(missedSlotGrace: TimeInterval = 600, picksPerSlot: Int = 3, dryRun: Bool = false, checksOriginals: Bool = false) {
            self.missedSlotGrace = missedSlotGrace
            self.picksPerSlot = picksPerSlot
            self.dryRun = dryRun
            self.checksOriginals = checksOriginals
        }
    }

    let clock: any BotClock
    let plans: any PlanStore
    let planner: SchedulePlanner
    let picker: PostPicker
    let network: any MirrorNetwork
    let settings: Settings
    let logger: Logger
    let seed: UInt64?
    let control: OwnerControl?
    /// The posts under way now (each slot's post runs beside the others).
    public let activity = PostsUnderWay()

    /// A poster; `seed` makes its random choices repeatable (tests), nil draws a fresh seed; `control` holds the
    /// person's pause (nil: never paused).
    public init(
        clock: any BotClock, plans: any PlanStore, planner: SchedulePlanner, picker: PostPicker, network: any MirrorNetwork,
        settings: Settings = Settings(), control: OwnerControl? = nil, logger: Logger, seed: UInt64? = nil
    ) {
        self.clock = clock
        self.plans = plans
        self.planner = planner
        self.picker = picker
        self.network = network
        self.settings = settings
        self.control = control
        self.logger = logger
        self.seed = seed
    }

    private var timeZone: TimeZone { planner.archive.timeZone }

    /// Runs until cancelled or the graceful shutdown of its service group; a post in flight is finished and recorded.
    public func run() async throws {
        var fresh = SplitMix64()
        let base = seed ?? fresh.next()
        // One round per local day: its plan, its slots, then a wait until the next day starts.
        try await PollingLoop.run("Poster", on: network.name, clock: clock, logger: logger, interval: .seconds(60)) { number in
            var generator = SplitMix64(seed: base &+ UInt64(number))
            let day = SchedulePlanner.day(of: clock.now(), in: timeZone)
            // The person ended the mirror: no day is planned from what was learned of them (it is gone).
            if try await control?.ended() != true {
                let (slots, interrupted) = try await plan(for: day, using: &generator)
                try await postSlots(of: day, slots, settling: interrupted, using: &generator)
            }
            // Until the next day's first instant (a round woken a little early finds its day done and waits again).
            try await clock.sleep(until: Self.startOfNextDay(after: clock.now(), in: timeZone))
            return .zero
        }
    }

    /// The stored plan of `day`, drawing and storing it first if there is none, with the slots the last run left
    /// mid-post (to be settled).
    func plan(for day: String, using generator: inout SplitMix64) async throws -> (slots: [PlanSlot], interrupted: [InterruptedSlot]) {
        if let stored = try await plans.slots(of: day) { return (stored, try await plans.interrupted(day: day)) }
        let drawn = try await planner.plan(for: day, using: &generator)
        let slots = try await plans.storePlan(day: day, timeZone: timeZone.identifier, minutes: drawn.minutes, drawnAt: clock.now())
        logger.info(
            "planned \(slots.count) posts for \(day) (\(timeZone.identifier)): \(slots.map { LocalTime.clockTime($0.minute) }.joined(separator: ", "))"
        )
        return (slots, [])
    }

    /// Settles a slot the last run left mid-post (a crash, a SIGKILL): the network is asked whether the post it was
    /// sending was made (one read of the bot's posts), and the slot is recorded as what is true. It is never sent again:
    /// not made, or the read failing, it is skipped.
    func recover(_ slot: InterruptedSlot, of day: String) async throws {
        // A remix's text was noted as it was sent; a copy's is its source's, in the archive.
        let remix = try await picker.remixMemory?.sending(day: day, minute: slot.minute)
        try await settle(slot, of: day, remix: remix)
        if remix != nil { try await picker.remixMemory?.settled(day: day, minute: slot.minute) }
    }

    /// Settles the slot, which was sending `remix` (nil: its source's text).
    private func settle(_ slot: InterruptedSlot, of day: String, remix: String?) async throws {
        let clockTime = LocalTime.clockTime(slot.minute)
        guard let source = slot.sourcePostID, let text = remix ?? slot.text else {
            try await recordSkipped(
                day: day, minute: slot.minute,
                reason: slot.sourcePostID == nil
                    ? "interrupted before sending (nothing was sent); its minute has passed" : PlanSlot.interruptedReason)
            logger.notice(
                "skipped slot \(clockTime) of \(day): interrupted while posting last run\(slot.sourcePostID == nil ? ", before sending" : "")")
            return
        }
        let made: String?
        do {
            // Never sent before its minute: every post the bot made since is looked at.
            let due = LocalTime.date(of: slot.minute, on: day, in: timeZone)
            made = try await UncertainCreate.readBack(
                text, inReplyTo: nil, sentSince: due, on: network, for: .posts, clock: clock, logger: logger,
                what: "slot \(clockTime) interrupted last run")
        } catch let error as NetworkError {
            try await recordSkipped(day: day, minute: slot.minute, reason: PlanSlot.interruptedReason)
            logger.notice(
                "skipped slot \(clockTime) of \(day): interrupted while posting last run, and reading back failed (\(error)); not posting it again")
            return
        }
        if let made {
            // Sent at its minute or soon after; the moment itself was lost with the process.
            let at = LocalTime.date(of: slot.minute, on: day, in: timeZone) ?? clock.now()
            try await plans.markPosted(
                day: day, minute: slot.minute, sourcePostID: source, botPostID: PostID(made), postedAt: at,
                reason:
                    "\(remix == nil ? "the human's post \(source)" : "a remix (its longest run from the human's post \(source))"); interrupted last run, and \(network.name) shows it was made"
            )
            logger.notice("slot \(clockTime) of \(day): interrupted while posting last run; \(network.name) shows it was made: \(made)")
        } else {
            try await recordSkipped(
                day: day, minute: slot.minute,
                reason: "interrupted while posting; \(network.name) shows it was not made, and its minute has passed")
            logger.notice("skipped slot \(clockTime) of \(day): interrupted while posting last run; \(network.name) shows it was not made")
        }
    }

    /// Records a slot as skipped now, with the reason (stored, and counted by its category).
    private func recordSkipped(day: String, minute: Int, reason: String) async throws {
        try await plans.markSkipped(day: day, minute: minute, at: clock.now(), reason: reason)
        DaemonMetrics.slotSkipped(reason: reason)
    }

    /// Keeps aside, in what the network costs a day, the cost of the `pending` slots.
    private func reserveBudget(for day: String, _ pending: [PlanSlot]) {
        network.keepAsideForPosts(at: pending.map { LocalTime.date(of: $0.minute, on: day, in: timeZone) ?? .distantPast })
    }

    /// Posts the day's planned slots, each at its minute, and settles the `interrupted` ones beside them. Each slot's
    /// post runs in a task of its own: a slow answer for one (a network that hangs, a lost answer read back) never
    /// makes the next one late. A store's failure in any of them ends the round once the posts under way are recorded.
    private func postSlots(
        of day: String, _ slots: [PlanSlot], settling interrupted: [InterruptedSlot],
        using generator: inout SplitMix64
    ) async throws {
        // A slot that came due after this began was missed while the bot ran: its clock jumped (or it was paused).
        let runningSince = clock.now()
        let underWay = PicksUnderWay()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for slot in interrupted {
                // The post it was sending is under way until it is settled: a slot due meanwhile (after a crash or a
                // fleet's takeover, the first slots come due at once) does not copy it again.
                if let source = slot.sourcePostID { underWay.hold(source) }
                group.addTask {
                    defer { if let source = slot.sourcePostID { underWay.finish(source) } }
                    try await underWay.recording { try await self.recover(slot, of: day) }
                }
            }
            var pending = slots.filter { $0.state == .planned }
            for slot in slots where slot.state == .planned {
                try underWay.rethrowFailure()
                reserveBudget(for: day, pending)
                defer { pending.removeAll { $0.minute == slot.minute } }
                let at = LocalTime.date(of: slot.minute, on: day, in: timeZone) ?? .distantPast
                var prepared: Prepared?
                if settings.checksOriginals && !settings.dryRun && at > clock.now(), try await control?.postingPaused() != true {
                    // With CHECK_ORIGINALS the pick is made and its original looked up five minutes ahead (nothing claimed
                    // yet: a shutdown now leaves the slot as it was), so that the post itself goes out at its minute.
                    let early = at.addingTimeInterval(-Self.preparationLead)
                    if early > clock.now() { try await clock.sleep(until: early) }
                    prepared = try await prepare(at: at, clockTime: LocalTime.clockTime(slot.minute), seed: generator.next(), underWay: underWay)
                }
                if at > clock.now() { try await clock.sleep(until: at) }
                try underWay.rethrowFailure()
                let lateness = clock.now().timeIntervalSince(at)
                if lateness > settings.missedSlotGrace {
                    if let prepared { underWay.finish(prepared.pick.post.postID) }
                    // Running when the slot came due, and far past it now: the clock jumped forward (NTP, a laptop resuming).
                    let reason =
                        at >= runningSince
                        ? "missed: the clock jumped forward past \(LocalTime.clockTime(slot.minute)) while the bot ran (now \(Int(lateness / 60)) minutes past it)"
                        : "missed: the bot was not running at \(LocalTime.clockTime(slot.minute)) (\(Int(lateness / 60)) minutes ago)"
                    try await recordSkipped(day: day, minute: slot.minute, reason: reason)
                    logger.notice("skipped slot \(LocalTime.clockTime(slot.minute)) of \(day): \(reason)")
                    continue
                }
                if let paused = try await control?.current() {
                    if let prepared { underWay.finish(prepared.pick.post.postID) }
                    let since = LocalTime(of: paused.since, in: timeZone)
                    let reason =
                        paused.pause == .ended
                        ? "the person ended the mirror at \(since.day) \(since.clockTime): nothing is posted until they sign in again"
                        : paused.pause == .signInLapsed
                            ? "the person's sign-in lapsed at \(since.day) \(since.clockTime) (the network's limit on its life, not their withdrawal): nothing is posted until they sign in again"
                            : "paused by the person (\(paused.pause == .posting ? "posting" : "everything") since \(since.day) \(since.clockTime); "
                                + "a mention of the bot from their account saying \"resume\" or 「再開」 ends it)"
                    try await recordSkipped(day: day, minute: slot.minute, reason: reason)
                    logger.notice("skipped slot \(LocalTime.clockTime(slot.minute)) of \(day): \(reason)")
                    continue
                }
                // The post runs in its own task (a shutdown arriving now lets it finish and be recorded, within the
                // shutdown's grace), beside the posts still under way.
                let (seed, begunAt) = (generator.next(), clock.now())
                activity.begin()
                group.addTask { [prepared, activity] in
                    defer { activity.end() }
                    try await underWay.recording {
                        try await InFlight.finish {
                            try await self.post(day: day, minute: slot.minute, seed: seed, prepared: prepared, underWay: underWay, begunAt: begunAt)
                        }
                    }
                }
            }
            reserveBudget(for: day, [])
            try await group.waitForAll()
            try underWay.rethrowFailure()
        }
        let posted = try await plans.slots(of: day)?.filter { $0.state == .posted } ?? []
        let unchecked = posted.filter(\.postedUnchecked).count
        logger.notice(
            "day \(day): \(posted.count) of \(slots.count) slots posted\(settings.checksOriginals ? ", \(unchecked) of them unchecked (their originals looked up within the hour)" : "")"
        )
    }

    /// How long before a slot its pick is prepared and its original looked up (`CHECK_ORIGINALS`).
    static let preparationLead: TimeInterval = 300

    /// A slot's pick made ahead, and whether its original was found (nil: the look-up could not be answered, and why).
    struct Prepared: Sendable {
        /// The pick.
        var pick: PostPicker.Pick
        /// Why its original was not looked up, when it was not.
        var whyUnchecked: String?
    }

    /// Picks for the slot at `at` and looks its original up; an original the person deleted leaves the archive and
    /// another is picked, up to `picksPerSlot` tries. A look-up that cannot be answered (the network failing, rate-limited
    /// or refusing) keeps the pick, to be posted unchecked: a precaution's failure never costs the post. Nil when nothing
    /// is left to pick (the slot then picks at its minute).
    func prepare(at: Date, clockTime: String, seed: UInt64, underWay: PicksUnderWay = PicksUnderWay()) async throws -> Prepared? {
        var generator = SplitMix64(seed: seed)
        var deleted = Set<PostID>()
        for _ in 0..<max(1, settings.picksPerSlot) {
            guard let pick = try await underWay.pick({ try await picker.pick(at: at, excluding: deleted.union($0), using: &generator) }) else {
                return nil
            }
            do {
                if try await originalExists(pick, clockTime: clockTime) { return Prepared(pick: pick, whyUnchecked: nil) }
            } catch let error as NetworkError {
                logger.info(
                    "slot \(clockTime): the original \(pick.post.postID) could not be looked up ahead (\(error)); it is posted unchecked and looked up within the hour"
                )
                return Prepared(pick: pick, whyUnchecked: "its original could not be looked up (\(error))")
            }
            underWay.finish(pick.post.postID)
            deleted.insert(pick.post.postID)
        }
        return nil
    }

    /// Whether the pick's original is still on the network; one the person deleted leaves the archive (X asks that
    /// deleted content goes within 24 hours).
    private func originalExists(_ pick: PostPicker.Pick, clockTime: String) async throws -> Bool {
        guard try await !network.postExists(pick.post.postID.text, as: .human, for: .posts) else { return true }
        try await picker.archive.remove(postID: pick.post.postID)
        logger.notice("slot \(clockTime): the human deleted post \(pick.post.postID); removed from the archive")
        return false
    }

    /// Claims a slot and posts a post for it (`prepared`, when it was picked ahead), recording the outcome. Nothing is
    /// looked up at the minute: with `CHECK_ORIGINALS`, a pick not looked up ahead (another after a refusal, or a slot
    /// due as the poster began) goes out unchecked, and its original is looked up within the hour.
    func post(
        day: String, minute: Int, seed: UInt64, prepared: Prepared? = nil, underWay: PicksUnderWay = PicksUnderWay(),
        begunAt: Date? = nil
    ) async throws {
        // Posted at the moment its post began (the network's answer, and the store's, may take a while).
        let postedAt = begunAt ?? clock.now()
        var picked: Set<PostID> = prepared.map { [$0.pick.post.postID] } ?? []
        defer { picked.forEach(underWay.finish) }
        guard try await plans.claim(day: day, minute: minute) else { return }
        var generator = SplitMix64(seed: seed)
        var offeredPrepared = false
        let clockTime = LocalTime.clockTime(minute)
        let slotTime = LocalTime.date(of: minute, on: day, in: timeZone) ?? clock.now()
        func origin(_ pick: PostPicker.Pick) -> String { "\(pick.origin), within ±\(pick.radius) min of \(clockTime)" }
        var whyNothing: String?
        let outcome: DuplicateRetry.Outcome<PostPicker.Pick>
        do {
            outcome = try await DuplicateRetry.send(
                attempts: settings.picksPerSlot,
                pick: { refused in
                    if !offeredPrepared, let pick = prepared?.pick {
                        offeredPrepared = true
                        if !refused.contains(pick.post.postID) { return pick }
                    }
                    let pick = try await underWay.pick { underWay in
                        switch try await picker.choose(at: slotTime, excluding: refused.union(underWay), using: &generator) {
                        case .success(let pick): return pick
                        case .failure(let nothing):
                            whyNothing = nothing.description
                            return nil
                        }
                    }
                    if let pick { picked.insert(pick.post.postID) }
                    return pick
                }, sourceID: \.post.postID,
                send: { pick in
                    if settings.dryRun {
                        try await recordSkipped(day: day, minute: minute, reason: "dry run: would have posted \(origin(pick))")
                        logger.info("dry run: slot \(clockTime) would post \(origin(pick)): \(pick.text)")
                        return
                    }
                    let whyUnchecked: String? =
                        !settings.checksOriginals
                        ? nil
                        : pick.post.postID == prepared?.pick.post.postID
                            ? prepared?.whyUnchecked
                            : "picked at the minute (\(prepared == nil ? "no time to look it up ahead" : "the first pick was refused")), not looked up before"
                    // Noted before sending, so that a restart after a crash can read back whether it was made.
                    try await plans.noteSending(day: day, minute: minute, sourcePostID: pick.post.postID)
                    // A remix is remembered before it is sent: never written again, and read back after a crash.
                    if pick.remix != nil, let memory = picker.remixMemory {
                        try await memory.remember(pick.text, postedAt: postedAt)
                        try await memory.noteSending(pick.text, day: day, minute: minute)
                    }
                    let created = try await UncertainCreate.send(
                        pick.text, inReplyTo: nil, sentAt: clock.now(), on: network, for: .posts, clock: clock, logger: logger,
                        what: "slot \(clockTime)"
                    ) {
                        try await network.post(pick.text, warning: pick.contentWarning, slot: "slot \(day) \(minute)", for: .posts)
                    }
                    let unchecked = whyUnchecked.map { "; posted unchecked: \($0), looked up within the hour" } ?? ""
                    try await plans.markPosted(
                        day: day, minute: minute, sourcePostID: pick.post.postID, botPostID: created.map { PostID($0) },
                        postedAt: postedAt, reason: origin(pick) + unchecked, unchecked: whyUnchecked != nil)
                    if pick.remix != nil { try await picker.remixMemory?.settled(day: day, minute: minute) }
                    logger.info("posted slot \(clockTime) -> post \(created ?? "?") (\(origin(pick))\(unchecked))")
                    DaemonMetrics.posted(lateness: postedAt.timeIntervalSince(slotTime), unchecked: whyUnchecked != nil)
                },
                refused: { pick, why in
                    logger.info("slot \(clockTime): \(network.name) refused \(origin(pick)) \(why); picking another")
                })
        } catch let error as NetworkError {
            try await recordSkipped(day: day, minute: minute, reason: error.description)
            logger.warning("skipped slot \(clockTime) of \(day): \(error)")
            return
        }
        switch outcome {
        case .sent: return
        case .nothingToPick:
            try await recordSkipped(day: day, minute: minute, reason: whyNothing ?? PostPicker.NothingToPost.emptyArchive.description)
        case .allRefused:
            try await recordSkipped(
                day: day, minute: minute, reason: "\(network.name) refused \(settings.picksPerSlot) picks (duplicates, or too long)")
            logger.notice("skipped slot \(clockTime) of \(day): \(network.name) refused \(settings.picksPerSlot) picks (duplicates, or too long)")
        }
    }

    /// How many slots' posts are under way, and a wait until none is (for tests, and for what a shutdown waits on).
    public final class PostsUnderWay: Sendable {
        private let state = Mutex<(count: Int, waiting: [CheckedContinuation<Void, Never>])>((0, []))

        /// The posts under way now.
        public var count: Int { state.withLock { $0.count } }

        func begin() { state.withLock { $0.count += 1 } }

        func end() {
            let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.count -= 1
                guard state.count == 0 else { return [] }
                defer { state.waiting = [] }
                return state.waiting
            }
            ready.forEach { $0.resume() }
        }

        /// Returns once no post is under way.
        public func settled() async {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Bool in
                    if state.count == 0 { return true }
                    state.waiting.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        }
    }

    /// The person's posts picked for slots whose posts are under way (not recorded yet), left out of other slots' picks;
    /// and the first store failure of a post, which ends the round.
    final class PicksUnderWay: Sendable {
        private let state = Mutex<(picks: Set<PostID>, failure: (any Error)?)>(([], nil))

        /// A pick made by `pick` (given the picks under way), kept as under way.
        func pick(_ pick: (Set<PostID>) async throws -> PostPicker.Pick?) async throws -> PostPicker.Pick? {
            guard let chosen = try await pick(state.withLock { $0.picks }) else { return nil }
            state.withLock { _ = $0.picks.insert(chosen.post.postID) }
            return chosen
        }

        /// `source` is under way already: an interrupted slot's, being settled.
        func hold(_ source: PostID) { state.withLock { _ = $0.picks.insert(source) } }

        /// `source` is no longer under way (posted and recorded, or given up).
        func finish(_ source: PostID) { state.withLock { _ = $0.picks.remove(source) } }

        /// Runs `work`, keeping its failure (a cancellation is not one).
        func recording(_ work: () async throws -> Void) async throws {
            do { try await work() } catch is CancellationError { throw CancellationError() } catch {
                state.withLock { $0.failure = $0.failure ?? error }
            }
        }

        /// Throws the first failure kept.
        func rethrowFailure() throws { if let failure = state.withLock({ $0.failure }) { throw failure } }
    }

    /// The start of the local day after the one `date` falls on.
    static func startOfNextDay(after date: Date, in timeZone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let start = calendar.startOfDay(for: date)
        return calendar.date(byAdding: .day, value: 1, to: start) ?? date.addingTimeInterval(86_400)
    }
}
