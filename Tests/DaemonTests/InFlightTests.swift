import Foundation
import Synchronization
import Testing

@testable import Daemon

/// A write in flight through a shutdown: finished and recorded when it ends within the grace, cancelled when it does not.
@Suite("Writes in flight during a shutdown")
struct InFlightTests {
    /// A gate a write waits at until the test opens it (or the write is cancelled).
    final class Gate: Sendable {
        private let waiting = Mutex<CheckedContinuation<Void, Never>?>(nil)
        private let opened = Mutex(false)
        private let arrivals = AsyncStream<Void>.makeStream()

        /// Waits until opened; returns at once when cancelled.
        func wait() async {
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let open = opened.withLock { $0 }
                    if open { continuation.resume() } else { waiting.withLock { $0 = continuation } }
                    arrivals.continuation.yield()
                }
            } onCancel: {
                self.open()
            }
        }

        /// Lets the waiting write go on.
        func open() {
            opened.withLock { $0 = true }
            waiting.withLock { $0.take() }?.resume()
        }

        /// Returns once a write waits at the gate.
        func arrived() async { for await _ in arrivals.stream { return } }
    }

    @Test("A write that ends after its service is cancelled, within the grace, is finished: its result returned, its record made")
    func finishedWithinGrace() async throws {
        let gate = Gate()
        let recorded = Mutex(false)
        let caller = Task {
            try await InFlight.finish(grace: .seconds(3_600)) {
                await gate.wait()
                try Task.checkCancellation()  // not cancelled: the grace has not run out
                recorded.withLock { $0 = true }
                return "tweet 1"
            }
        }
        await gate.arrived()
        caller.cancel()
        gate.open()
        #expect(try await caller.value == "tweet 1")
        #expect(recorded.withLock { $0 })
    }

    @Test(
        "A write that hangs past the grace after its service is cancelled is cancelled: CancellationError, nothing recorded", .timeLimit(.minutes(1)))
    func cancelledAfterGrace() async throws {
        let gate = Gate()
        let recorded = Mutex(false)
        let caller = Task {
            try await InFlight.finish(grace: .zero) {
                await gate.wait()  // opened only by the write's own cancellation
                try Task.checkCancellation()
                recorded.withLock { $0 = true }
                return "tweet 1"
            }
        }
        await gate.arrived()
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
        #expect(!recorded.withLock { $0 })
    }
}
