import BotClock
import Synchronization
import Testing

/// The real-time limit on waiting for a store or a server.
@Suite("Time limits")
struct TimeLimitTests {
    /// Something that waits until opened and does not answer cancellation (as a query written to a connection the
    /// server ended may never complete).
    final class Gate: Sendable {
        private let waiting = Mutex<[CheckedContinuation<Void, Never>]>([])
        private let isOpen = Mutex(false)
        func wait() async {
            await withCheckedContinuation { continuation in
                let open = isOpen.withLock { $0 }
                if open { continuation.resume() } else { waiting.withLock { $0.append(continuation) } }
            }
        }
        func open() {
            isOpen.withLock { $0 = true }
            for continuation in waiting.withLock({ list in
                defer { list = [] }
                return list
            }) { continuation.resume() }
        }
    }

    @Test("The limit holds for an operation that ignores its cancellation; one within it returns its value")
    func limitHolds() async throws {
        let gate = Gate()
        await #expect(throws: TimeLimitExceeded.self) {
            try await withTimeLimit(.milliseconds(50)) {
                await gate.wait()
                return 1
            }
        }
        gate.open()
        #expect(try await withTimeLimit(.seconds(60)) { 42 } == 42)
    }

    @Test("Cancelling the caller returns at once with CancellationError, even when the operation ignores it")
    func callerCancelled() async throws {
        let gate = Gate()
        let waiting = Task {
            try await withTimeLimit(.seconds(3_600)) {
                await gate.wait()
                return 1
            }
        }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        gate.open()
    }
}
