import BotClock
import Foundation

/// Runs tasks one at a time, in the order they become ready, on a thread of its own, and moves a manual clock to its
/// next sleeper's deadline whenever no task is ready: every task of the bot that prefers this executor then waits on
/// the clock, so time moves only when nothing can happen before. What the bot does at a minute happens at that minute
/// exactly, and a day replays the same for the same seed.
///
/// Some work runs elsewhere (ServiceLifecycle signals a shutdown or a cancellation through tasks of its own): during a
/// stop (`stopping(at:)`) the clock does not move at all (the scripted network answers what is under way at once), and
/// an idle executor waits for that work: a stop replays the same whatever real time its signalling takes.
final class VirtualTimeExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var queue: [UnownedJob] = []
    private var head = 0
    private var finished = false
    private var stoppingAt: Date?
    private var lastWork = ContinuousClock.now
    /// The clock moved.
    let clock: ManualBotClock
    /// How many times the clock was moved.
    private(set) var advances = 0

    /// An executor moving `clock`.
    init(clock: ManualBotClock) { self.clock = clock }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        queue.append(job)
        lastWork = .now
        condition.signal()
        condition.unlock()
    }

    /// A run of the daemon stops at `date` (nil: the stop is over): until it is, the clock does not move, and an idle
    /// executor waits for work done elsewhere.
    func stopping(at date: Date?) {
        condition.lock()
        stoppingAt = date
        condition.signal()
        condition.unlock()
    }

    /// Runs `body` on this executor (and every task it starts, the bot's unstructured ones included) until it returns;
    /// throws what it throws. Fails, rather than hanging, when nothing happens for `stuckAfter` of real time.
    func run<Result: Sendable>(stuckAfter: Duration = .seconds(60), _ body: @escaping @Sendable () async throws -> Result) async throws -> Result {
        let thread = Thread { [self] in loop(stuckAfter: stuckAfter) }
        thread.stackSize = 8 << 20
        thread.start()
        let task = Task(executorPreference: self) { [self] in
            try await DetachedWork.$executor.withValue(self) { try await body() }
        }
        setStuckHandler { task.cancel() }
        let result = await task.result
        finish()
        return try result.get()
    }

    private func setStuckHandler(_ handler: @escaping @Sendable () -> Void) {
        condition.lock()
        onStuck = handler
        condition.unlock()
    }

    private func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    /// Whether the loop found itself stuck: idle, nothing asleep on the clock, nothing arriving (the run is then cancelled).
    private(set) var stuck = false
    private var onStuck: (@Sendable () -> Void)?

    private func loop(stuckAfter: Duration) {
        condition.lock()
        while true {
            if head < queue.count {
                let job = queue[head]
                head += 1
                if head > 1_024 {
                    queue.removeFirst(head)
                    head = 0
                }
                condition.unlock()
                job.runSynchronously(on: asUnownedTaskExecutor())
                condition.lock()
                continue
            }
            if finished { break }
            if stoppingAt != nil {
                // Work done elsewhere (a shutdown's signalling) is all that can come: wait for it.
                stuckCheck(stuckAfter)
                continue
            }
            if clock.sleeperCount > 0 {
                condition.unlock()
                clock.advanceToNextSleeper()
                condition.lock()
                advances += 1
                continue
            }
            // Nothing ready, nothing asleep on the clock: only work from elsewhere can come.
            stuckCheck(stuckAfter)
        }
        condition.unlock()
    }

    /// Waits a little for work from elsewhere; when none came for `stuckAfter`, the run is stuck and is cancelled.
    /// Called with the lock held.
    private func stuckCheck(_ stuckAfter: Duration) {
        guard !condition.wait(until: Date().addingTimeInterval(0.05)), ContinuousClock.now - lastWork > stuckAfter else { return }
        stuck = true
        lastWork = .now
        let cancel = onStuck
        condition.unlock()
        cancel?()
        condition.lock()
    }
}
