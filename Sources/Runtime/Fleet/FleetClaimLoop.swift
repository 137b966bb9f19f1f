public import BotClock
public import Foundation
public import Logging
public import ServiceLifecycle
public import Stores
import Synchronization

/// How long a fleet's lease lasts unless renewed, and how often it is renewed.
public struct FleetTiming: Sendable {
    /// A lease not renewed within this is another process's to claim.
    public var leaseSeconds: TimeInterval
    /// How often leases are renewed and bots claimed.
    public var roundSeconds: TimeInterval
    /// Timing; the defaults take a killed process's bots over within 45 s.
    public init(leaseSeconds: TimeInterval = 20, roundSeconds: TimeInterval = 5) {
        self.leaseSeconds = leaseSeconds
        self.roundSeconds = roundSeconds
    }
}

/// A fleet process's rounds: every `timing.roundSeconds` it says it is alive, renews the leases it holds (a bot whose
/// lease was lost, or was paused, is stopped), hands bots over past its share of the live processes, and claims free
/// or expired bots up to that share, each run by `runBot` in a service group of its own. A bot whose run fails while
/// its lease is still this process's is paused with the reason. On graceful shutdown it stops every bot and lets
/// their leases go.
public struct FleetClaimLoop: Service {
    /// How the loop runs one bot of the fleet, holding `claim`, logging to `logger`; returns when the bot stops.
    public typealias RunBot = @Sendable (_ bot: FleetBot, _ claim: FleetClaim, _ lease: FleetDaemonLease, _ logger: Logger) async throws -> Void

    let registry: any FleetRegistry
    let timing: FleetTiming
    let process: String
    let lapses: LeaseLapses
    let logger: Logger
    let runBot: RunBot
    let botContext: @Sendable (_ bot: FleetBot, _ body: () -> Void) -> Void
    let botEnded: @Sendable (_ bot: FleetBot) -> Void

    /// A loop over `registry` as `process`, on `timing`, each bot run by `runBot` inside `botContext` (a task-local
    /// label for its metrics), `botEnded` told when a bot's run has ended (its status page hidden).
    public init(
        registry: any FleetRegistry, timing: FleetTiming, process: String, lapses: LeaseLapses, logger: Logger, runBot: @escaping RunBot,
        botContext: @escaping @Sendable (_ bot: FleetBot, _ body: () -> Void) -> Void = { $1() },
        botEnded: @escaping @Sendable (_ bot: FleetBot) -> Void = { _ in }
    ) {
        self.registry = registry
        self.timing = timing
        self.process = process
        self.lapses = lapses
        self.logger = logger
        self.runBot = runBot
        self.botContext = botContext
        self.botEnded = botEnded
    }

    /// Runs the rounds until graceful shutdown or cancellation, then stops every bot and lets its lease go.
    public func run() async throws {
        // A stop may take the lease's length: past it another process may take the bot anyway.
        let running = RunningBots(limits: .init(graceful: .milliseconds(Int64(timing.leaseSeconds * 1000))), logger: logger)
        logger.notice(
            "fleet: process \(process); leases of \(Int(timing.leaseSeconds)) s, renewed every \(Int(timing.roundSeconds)) s")
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await round(process: process, running: running)
            } catch is CancellationError {
                break
            } catch {
                logger.warning("fleet: a round failed (\(error)); the next one in \(Int(timing.roundSeconds)) s")
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .milliseconds(Int64(timing.roundSeconds * 1000))) }
        }
        logger.notice("fleet: stopping \(running.count) bots and letting their leases go")
        await running.stopAll()
        try? await registry.release(for: process)
    }

    /// One round.
    func round(process: String, running: RunningBots) async throws {
        let live = try await registry.heartbeat(process, liveness: timing.leaseSeconds)
        let bots = try await registry.bots()
        let active = bots.filter { $0.pauseReason == nil }
        let share = active.isEmpty ? 0 : (active.count + live - 1) / live
        // Renewed, or stopped: a lease lost (expired while this process stalled, or taken over) or a bot paused.
        let held = running.claims
        // Taken before the statement: the database's expiry, counted from its own later moment, is no earlier.
        let renewing = Date()
        let kept = Set(try await registry.renew(held, for: process, expiresIn: timing.leaseSeconds))
        for claim in kept { lapses.set(claim, renewing.addingTimeInterval(timing.leaseSeconds)) }
        for claim in held where !kept.contains(claim) {
            logger.notice(
                "fleet: bot \(running.name(of: claim.botID) ?? "?") is no longer this process's (its lease was lost or it was paused); stopping it"
            )
            // Once stopped, its lease goes (a paused bot is at once free for `bots exec NAME -- train clear`); a lease
            // another process took carries another fencing number and is left alone.
            running.stopInBackground(claim.botID) { try? await registry.release([claim], for: process) }
        }
        // Over its share (a process joined): the newest claims go back, for the others to take.
        let excess = running.count - share
        if excess > 0 {
            for claim in running.claims.suffix(excess) {
                logger.notice("fleet: handing bot \(running.name(of: claim.botID) ?? "?") over (\(live) processes share \(active.count) bots)")
                // Let go once it has stopped (its lease, no longer renewed, lapses anyway if the stop takes long).
                running.stopInBackground(claim.botID) { try? await registry.release([claim], for: process) }
            }
        }
        guard running.count < share else { return }
        let claiming = Date()
        let claims = try await registry.claim(for: process, limit: share - running.count, expiresIn: timing.leaseSeconds)
        for claim in claims { lapses.set(claim, claiming.addingTimeInterval(timing.leaseSeconds)) }
        // A bot added since this round's list was read is in the next one's.
        let known = claims.contains { claim in !bots.contains { $0.id == claim.botID } } ? try await registry.bots() : bots
        for claim in claims {
            guard let bot = known.first(where: { $0.id == claim.botID }) else { continue }
            start(bot, claim: claim, process: process, running: running)
        }
    }

    /// Starts `bot` in a task of its own, under a service group of its own (stopped gracefully when its lease goes).
    func start(_ bot: FleetBot, claim: FleetClaim, process: String, running: RunningBots) {
        var logger = logger
        logger[metadataKey: "bot"] = "\(bot.name)"
        logger.notice("fleet: running bot \(bot.name) (\(bot.network), lease \(claim.fence))")
        let lease = FleetDaemonLease(registry: registry, claim: claim, process: process, lapses: lapses, length: timing.leaseSeconds)
        let service = FleetBotService(registry: registry, bot: bot, lease: lease, logger: logger, runBot: runBot)
        let group = ServiceGroup(configuration: .init(services: [.init(service: service)], gracefulShutdownSignals: [], logger: logger))
        let botLogger = logger
        let (lapses, botEnded) = (lapses, botEnded)
        // The bot's task (and every task it starts) runs in its context (its metrics labelled bot="<name>").
        botContext(bot) {
            running.add(bot: bot, claim: claim, group: group) {
                do {
                    try await group.run()
                } catch {
                    botLogger.error("fleet: bot \(bot.name) stopped: \(error)")
                }
                botEnded(bot)
                running.ended(claim)
                lapses.forget(claim)
            }
        }
    }
}

/// One bot of the fleet, run by the loop's `runBot`; its failures are its own: paused with the reason, unless its
/// lease is gone (it is another process's now).
struct FleetBotService: Service {
    let registry: any FleetRegistry
    let bot: FleetBot
    let lease: FleetDaemonLease
    let logger: Logger
    let runBot: FleetClaimLoop.RunBot

    func run() async throws {
        do {
            try await runBot(bot, lease.claim, lease, logger)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // A bot whose lease is gone failed because it is another's now (its statements are refused): it stops,
            // unpaused, and runs where it is held.
            guard await lease.isHeld(logger: logger) else {
                logger.notice("fleet: bot \(bot.name) stopped: its lease is no longer this process's (\(error))")
                return
            }
            // The bot's failure is its own: paused with the reason, never tried again until someone resumes it.
            let reason = "stopped \(Date().formatted(.iso8601)): \(error)"
            do {
                // Only a bot nobody paused meanwhile: a person's pause, or the operator's, stays theirs.
                if try await registry.setPaused(bot.name, reason: String(reason.prefix(500)), ifStill: nil) {
                    logger.error("fleet: bot \(bot.name) paused: \(error)")
                } else {
                    logger.error("fleet: bot \(bot.name) failed (\(error)) while it was being paused: its pause stays as it is")
                }
            } catch let pausing {
                logger.error(
                    "fleet: bot \(bot.name) failed (\(error)), and pausing it failed too (\(pausing)): it is tried again at a later claim")
            }
        }
    }
}

/// A bot's lease in the fleet, as the daemon's lease keeper checks it: held while this process's hold (its fencing
/// number) is still the bot's and unexpired. Its network writes end before the hold lapses as this process last
/// knew it (its claim or last renewal, plus the lease's length, on the real clock).
public struct FleetDaemonLease: DaemonLease {
    let registry: any FleetRegistry
    /// The hold.
    public let claim: FleetClaim
    let process: String
    let lapses: LeaseLapses
    /// The lease's length.
    let length: TimeInterval

    /// Writes end before the hold lapses as this process last knew it.
    public var writeDeadline: WriteDeadline? {
        let (lapses, claim) = (lapses, claim)
        return WriteDeadline(clock: SystemBotClock(), leaseLength: length) { lapses.lapse(of: claim) ?? .distantPast }
    }

    /// This process.
    public var holder: LeaseHolder { .thisProcess() }
    /// Whether the registry still says the hold is this process's.
    public func isHeld(logger: Logger) async -> Bool { (try? await registry.holds(claim, for: process)) ?? false }
    /// The fleet's loop lets leases go.
    public func release() async {}
    /// The fleet's rounds renew it, and stop the bot when it is lost.
    public var isKeptByTheDaemon: Bool { false }
}

/// When each hold of this process lapses unless renewed, as its claim or last renewal said (on the real clock).
public final class LeaseLapses: Sendable {
    private let lapses = Mutex<[FleetClaim: Date]>([:])

    /// None yet.
    public init() {}

    /// `claim` was claimed or renewed: it lapses at `date` unless renewed again.
    public func set(_ claim: FleetClaim, _ date: Date) { lapses.withLock { $0[claim] = date } }
    /// When `claim` lapses; nil when it is not this process's.
    public func lapse(of claim: FleetClaim) -> Date? { lapses.withLock { $0[claim] } }
    /// `claim`'s bot stopped here.
    public func forget(_ claim: FleetClaim) { _ = lapses.withLock { $0.removeValue(forKey: claim) } }
}

/// The bots this process runs.
final class RunningBots: Sendable {
    struct Entry {
        var bot: FleetBot
        var claim: FleetClaim
        var group: ServiceGroup
        var task: Task<Void, Never>
        var finished: Finished
    }
    /// Whether a bot's task has ended.
    final class Finished: Sendable {
        private let value = Mutex(false)
        var isSet: Bool { value.withLock { $0 } }
        func set() { value.withLock { $0 = true } }
    }
    /// How long, in real time, a stopping bot may take to finish gracefully before it is cancelled, and then to end
    /// before the process stops waiting for it (a bot still starting, waiting on a network that does not answer, only
    /// ends when cancelled; one that ignores even that is left to end with the process).
    struct StopLimits: Sendable {
        var graceful: Duration = .seconds(20)
        var cancelled: Duration = .seconds(5)
    }
    private let entries = Mutex<[Int64: Entry]>([:])
    /// Bots being stopped in the background, until they have.
    private let stopping = Mutex<[UUID: Task<Void, Never>]>([:])
    let limits: StopLimits
    let logger: Logger

    init(limits: StopLimits = StopLimits(), logger: Logger) {
        self.limits = limits
        self.logger = logger
    }

    var count: Int { entries.withLock { $0.count } }
    /// The claims held, oldest bot first.
    var claims: [FleetClaim] { entries.withLock { $0.values.map(\.claim).sorted { $0.botID < $1.botID } } }
    func name(of botID: Int64) -> String? { entries.withLock { $0[botID]?.bot.name } }

    /// Adds the bot and starts `body` in a task of its own; the entry is in before the task can end and remove it.
    func add(bot: FleetBot, claim: FleetClaim, group: ServiceGroup, body: @escaping @Sendable () async -> Void) {
        let finished = Finished()
        entries.withLock {
            $0[bot.id] = Entry(
                bot: bot, claim: claim, group: group,
                task: Task {
                    await body()
                    finished.set()
                }, finished: finished)
        }
    }

    /// A bot's run (the hold `claim`) ended by itself (paused with its reason): its lease lapses, unrenewed. A later
    /// hold of the same bot, already running again, is left alone.
    func ended(_ claim: FleetClaim) {
        entries.withLock { entries in if entries[claim.botID]?.claim == claim { entries.removeValue(forKey: claim.botID) } }
    }

    /// Stops a bot gracefully (its tick in flight finishes) in the background, then, once it has ended, runs `then`
    /// (letting its lease go): the rounds go on meanwhile, renewing the other bots' leases however long a stop takes.
    /// From now on the bot's lease is no longer renewed.
    func stopInBackground(_ botID: Int64, then: @escaping @Sendable () async -> Void = {}) {
        guard let entry = entries.withLock({ $0.removeValue(forKey: botID) }) else { return }
        let key = UUID()
        let task = Task { [self] in
            if await stop(entry) { await then() }
        }
        stopping.withLock { $0[key] = task }
        Task {
            await task.value
            _ = stopping.withLock { $0.removeValue(forKey: key) }
        }
    }

    /// Stops every bot, all at once, and waits for them and for those being stopped (each within the limits).
    func stopAll() async {
        let all = entries.withLock { entries in
            defer { entries = [:] }
            return Array(entries.values)
        }
        await withTaskGroup(of: Void.self) { group in
            for entry in all { group.addTask { [self] in _ = await stop(entry) } }
        }
        for task in stopping.withLock({ Array($0.values) }) { await task.value }
    }

    /// Stops `entry`'s bot: gracefully, then cancelled past `limits.graceful`; true once it has ended, false when it
    /// had not within `limits.cancelled` more (said in the log).
    private func stop(_ entry: Entry) async -> Bool {
        await entry.group.triggerGracefulShutdown()
        if await Self.wait(for: entry.finished, upTo: limits.graceful) { return true }
        logger.warning("fleet: bot \(entry.bot.name) did not stop within \(limits.graceful) of being asked to; cancelling it")
        entry.task.cancel()
        if await Self.wait(for: entry.finished, upTo: limits.cancelled) { return true }
        logger.error(
            "fleet: bot \(entry.bot.name) did not end within \(limits.cancelled) of being cancelled; left to end with the process (its lease lapses)")
        return false
    }

    /// Whether `finished` is set within `limit` of real time (looked at every 50 ms); at once when the waiting task is
    /// cancelled (the process is ending anyway).
    private static func wait(for finished: Finished, upTo limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while !finished.isSet {
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return finished.isSet }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return true
    }
}
