import BotAssembly
import BotClock
import BotCore
import Classifier
import Daemon
import Foundation
import InMemoryStores
import Logging
import ScriptedNetwork
import Stores
import Synchronization
import TestSupport
import Tokenizer
import Training

/// One day of the whole daemon (every service at once, through restarts) on the virtual clock, against the scripted
/// network and the in-memory stores, for a seed: what the day is (the network's kind, its faults, when the bot
/// restarts or is killed) comes from the seed, and so does everything that happens in it.
struct VirtualDay: Sendable {
    /// The network a day runs on.
    enum Flavour: String, Sendable {
        /// As X: mentions polled, no likes, a create's lost answer read back, a duplicate refused.
        case xLike
        /// As Mastodon: mentions pushed, likes, creates made once per idempotency key (kept for an hour).
        case mastodonLike
        /// As Misskey: mentions pushed, likes (reactions), and whatever is sent is posted: no idempotency key, no
        /// duplicate refused.
        case misskeyLike

        /// Whether a create sent again is the same post.
        var idempotentCreates: Bool { self == .mastodonLike }
        /// Its name in log lines.
        var name: String {
            switch self {
            case .xLike: "X-like"
            case .mastodonLike: "Mastodon-like"
            case .misskeyLike: "Misskey-like"
            }
        }
    }

    /// How a run of the daemon ends.
    enum Stop: String, Sendable {
        /// SIGTERM: a graceful shutdown.
        case graceful
        /// SIGKILL: the process is gone at once.
        case crash
        /// The process stalls (SIGSTOP, a frozen VM) at the first slot's minute from then, in the fleet: its lease lapses
        /// unrenewed, another process claims the bot in its next round and runs it on, and the stalled one runs again
        /// (its downtime after the takeover) to find its writes refused, until its own next round stops it.
        case stall
    }

    /// The fleet's lease on the virtual clock, as production's defaults: 20 s, renewed (and claimed) in rounds of 5 s.
    static let fleetLease: (length: TimeInterval, round: TimeInterval) = (20, 5)

    /// One run of the daemon: until when, how it ends, and how long the bot is down after it.
    struct Run: Sendable {
        var until: Date
        var stop: Stop
        var downtime: TimeInterval
    }

    /// The day's seed.
    let seed: UInt64
    /// The network.
    let flavour: Flavour
    /// The share of calls that meet a fault.
    let faultRate: Double
    /// The runs of the daemon, in order; the last ends after the day.
    let runs: [Run]
    /// Whether the like threshold is calibrated (`FAVORITE_RATE_THRESHOLD=auto`).
    let calibratesLikes: Bool

    /// The person's zone.
    static let timeZone = TimeZone(identifier: "Asia/Tokyo")!
    /// The day: 2026-11-23 in Tokyo.
    static let dayStart = Date(timeIntervalSince1970: 1_795_359_600)
    /// The day's name.
    static let day = "2026-11-23"
    /// When the last run stops: a minute after the day, so that its last minute is handled.
    static let end = dayStart.addingTimeInterval(86_400 + 60)
    /// One tokenizer for every day (the dictionary is loaded once).
    static let tokenizer: PostTokenizer = try! PostTokenizer()

    /// The day of `seed`: by the seed's remainder by three on an X-like, a Mastodon-like or a Misskey-like network; every
    /// second triple with faults (5% of calls); a third without restarts, a third with one graceful restart, a third with
    /// a SIGKILL and another stop (so every 18 seeds hold each combination once): a SIGKILL, a graceful stop, or a stall
    /// and a failover to another fleet process.
    init(seed: UInt64) {
        self.seed = seed
        flavour = [Flavour.xLike, .mastodonLike, .misskeyLike][Int(seed % 3)]
        faultRate = (seed / 3) % 2 == 1 ? 0.05 : 0
        var random = SeededGenerator(seed: seed &* 31 &+ 7)
        func moment(_ minutes: Range<Int>) -> Date {
            Self.dayStart.addingTimeInterval(Double(Int.random(in: minutes, using: &random) * 60 + 30))  // never on a slot's minute
        }
        var runs: [Run] = []
        switch (seed / 6) % 3 {
        case 1:
            runs.append(Run(until: moment(300..<1_300), stop: .graceful, downtime: Double(Int.random(in: 1...20, using: &random) * 60)))
        case 2:
            let first = moment(200..<700)
            let second = moment(800..<1_300)
            runs.append(Run(until: first, stop: .crash, downtime: Double(Int.random(in: 0...15, using: &random) * 60)))
            let stop = [Stop.crash, .graceful, .stall][Int.random(in: 0...2, using: &random)]
            runs.append(
                Run(
                    until: second, stop: stop,
                    downtime: stop == .stall ? Double(Int.random(in: 1...40, using: &random)) : Double(Int.random(in: 1...5, using: &random) * 60)))
        default:
            break
        }
        runs.append(Run(until: Self.end, stop: .graceful, downtime: 0))
        self.runs = runs
        calibratesLikes = seed % 10 == 3
    }

    /// What a day left: the network's truth, the stores, and when each run's poster began.
    struct Outcome: Sendable {
        let day: VirtualDay
        let persona: ScriptedPersona
        let stores: InMemoryStoreSet
        let settings: DaemonSettings
        /// Each run: when its poster began (after it asked who the accounts are), and when it stopped.
        let runs: [(posterBegan: Date, stoppedAt: Date)]
        /// The log, for a failure's report.
        let log: LogRecorder
        /// How many times the clock moved.
        let advances: Int
        /// Whether the executor found the day stuck.
        let stuck: Bool
        var world: ScriptedWorld { persona.world }
    }

    /// The daemon's settings on this day's network.
    var settings: DaemonSettings {
        DaemonSettings(
            timeZone: Self.timeZone, postLinks: flavour != .xLike, likes: .auto, checksOriginals: true,
            likeDecision: LikeSettings(threshold: 3, calibrates: calibratesLikes, models: [.original]))
    }

    /// Runs the day.
    func run() async throws -> Outcome {
        let persona = ScriptedPersona(seed: seed, dayStart: Self.dayStart, timeZone: Self.timeZone)
        let clock = ManualBotClock(now: Self.dayStart)
        let memory = InMemoryStoreSet(settings: StoreSettings(timeZone: Self.timeZone).forDaemon())
        // What the trainings stored before the day: the person's posts, what they liked and saw.
        try await memory.archive.insert(
            persona.history.map { post in
                ArchivedPost(
                    postID: PostID(post.id), text: post.text, replyUserID: post.replyToUserID.map { AccountID($0) }, createdAt: post.createdAt)
            })
        guard let counts = try memory.sharedWordCounts(now: { clock.now() }) else { throw CancellationError() }
        let trainer = FavoriteClassifier(store: counts, tokenizer: Self.tokenizer, threshold: 3, examples: ExampleRecorder(memory.examples))
        let post = { (post: ScriptedWorld.Post) in
            (String(post.id), FavoriteClassifier.Post(text: post.text, authorUsername: persona.world.user(post.authorID)?.handle))
        }
        _ = try await trainer.learnOnce(persona.seen.map(post) + persona.liked.map(post), as: .normal, source: .timeline, at: Self.dayStart)
        _ = try await trainer.learnOnce(persona.liked.map(post), as: .favorite, source: .likes, at: Self.dayStart)
        // `train classifier` stores the person's likes with their times (the scripted network gives them).
        try await memory.likes.recordPersonLikes(
            persona.liked.map { PersonLike(postID: PostID($0.id), likedAt: $0.createdAt.addingTimeInterval(600), isExact: true) })

        let log = LogRecorder()
        // Tracing a day (VIRTUAL_DAY_TRACE): every line to standard error.
        let logger =
            ProcessInfo.processInfo.environment["VIRTUAL_DAY_TRACE"] == nil
            ? log.logger(level: .info)
            : Logger(label: "day") { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = .debug
                return handler
            }
        let executor = VirtualTimeExecutor(clock: clock)
        let (settings, flavour, faults, runs, seed) = (self.settings, self.flavour, FaultPlan(seed: seed, rate: faultRate), self.runs, self.seed)
        let began = Mutex<[(posterBegan: Date, stoppedAt: Date)]>([])
        try await executor.run {
            // A stalled process, until its own next round stops it; the run after a stall is the other fleet process's.
            var stalled: Task<Void, any Error>?
            var afterStall = false
            for run in runs {
                let network = ScriptedNetwork(
                    world: persona.world, clock: clock, faults: faults, name: flavour.name,
                    likes: flavour != .xLike, streamsMentions: flavour != .xLike,
                    idempotentCreates: flavour.idempotentCreates, refusesRepeats: flavour == .xLike, showsWarnings: flavour != .xLike)
                let stores: InMemoryStoreSet
                let lease: any DaemonLease
                var fleetHold: InMemoryFleetLease?
                if run.stop == .stall || afterStall {
                    let claimed = try memory.claim(clock: clock, length: Self.fleetLease.length, round: Self.fleetLease.round)
                    (stores, lease, fleetHold) = (claimed.stores, claimed.lease, claimed.lease)
                } else {
                    stores = memory.process()
                    lease = try await stores.takeLease(logger: logger)
                }
                let classifier = FavoriteClassifier(
                    store: try stores.sharedWordCounts(now: { clock.now() })!, tokenizer: Self.tokenizer, threshold: 3,
                    examples: ExampleRecorder(stores.examples), logger: logger)
                let startedAt = clock.now()
                let parts = DaemonComposition.Parts(
                    settings: settings, database: stores, classifier: classifier, network: network, clock: clock,
                    lease: lease, leaseClock: clock, logger: logger)
                let duration = run.stop == .graceful ? run.until.timeIntervalSince(startedAt) : nil
                var options = DaemonRunner.Options(duration: duration, handlesSignals: false, seed: seed &+ UInt64(startedAt.timeIntervalSince1970))
                // The stop's limits are real time; a test machine running many suites may give this one little of it.
                (options.gracefulShutdownLimit, options.cancellationLimit) = (.seconds(120), .seconds(120))
                let daemon = DetachedWork.start { [options] in try await DaemonComposition.run(parts, options: options) }
                // The poster began once the bot's account was known (the last thing asked before the services start).
                func posterBegan() -> Date {
                    persona.world.calls.last { $0.operation == "whoAmI" && $0.key == "bot" && $0.carriedOut && $0.at >= startedAt }?.at ?? startedAt
                }
                if run.stop == .stall, let fleetHold {
                    // A second before the minute of the first slot still to post from `until` (so that the slot is noted
                    // and its create held as the process stalls, as one frozen between the two would), or at `until`.
                    let due = try await memory.plans.slots(of: Self.day)?.filter { $0.state == .planned }
                        .compactMap { LocalTime.date(of: $0.minute, on: Self.day, in: Self.timeZone) }.filter { $0 > run.until }.min()
                    let stallAt = due?.addingTimeInterval(-1) ?? run.until
                    try await clock.sleep(until: stallAt)
                    network.stall()
                    fleetHold.stopRenewing(at: stallAt)
                    began.withLock { $0.append((posterBegan(), stallAt)) }
                    // The other process claims the bot in its first round after the lease lapsed; the stalled one runs
                    // again `downtime` later, and its own next round finds the lease lost and stops the bot.
                    let takeover = fleetHold.lapsesAt.addingTimeInterval(Self.fleetLease.round)
                    let resumeAt = takeover.addingTimeInterval(run.downtime)
                    stalled = DetachedWork.start {
                        try await clock.sleep(until: resumeAt)
                        network.resume()
                        try await clock.sleep(for: .milliseconds(Int64(Self.fleetLease.round * 1000)))
                        daemon.cancel()
                        _ = await daemon.result
                    }
                    try await clock.sleep(until: takeover)
                    afterStall = true
                    continue
                }
                try await clock.sleep(until: run.until)
                executor.stopping(at: run.until)
                network.hurry()
                if run.stop == .crash {
                    network.kill()
                    stores.kill()
                    daemon.cancel()
                }
                let result = await daemon.result
                if run.stop == .graceful, case .failure(let error) = result { throw error }
                await lease.release()
                executor.stopping(at: nil)
                began.withLock { $0.append((posterBegan(), clock.now())) }
                if run.downtime > 0 { try await clock.sleep(for: .milliseconds(Int64(run.downtime * 1000))) }
            }
            try await stalled?.value
        }
        return Outcome(
            day: self, persona: persona, stores: memory, settings: settings, runs: began.withLock { $0 }, log: log,
            advances: executor.advances, stuck: executor.stuck)
    }
}

extension VirtualDay: CustomStringConvertible {
    /// "seed 12: X-like, faults 5%, runs until 09:12:30 (crash, down 3 min), …".
    var description: String {
        let stops = runs.map { run in
            "\(LocalTime(of: run.until, in: Self.timeZone).clockTime) (\(run.stop.rawValue)"
                + (run.stop == .stall
                    ? ", taken over, runs again \(Int(run.downtime)) s later)" : run.downtime > 0 ? ", down \(Int(run.downtime / 60)) min)" : ")")
        }
        return
            "seed \(seed): \(flavour.rawValue), faults \(Int(faultRate * 100))%, runs until \(stops.joined(separator: ", "))\(calibratesLikes ? ", likes calibrated" : "")"
    }
}
