import BotClock
import Foundation
import Testing

@testable import FrontDoor

/// The door's imports beside their answers, on a virtual clock: the answer waits a while, the progress page sees it
/// running, then its outcome once, then nothing.
@Suite("The front door's imports beside their answers")
struct ArchiveImportsTests {
    /// A gate the test opens: the import's work waits on it.
    actor Gate {
        private var waiting: CheckedContinuation<Void, Never>?
        private var isOpen = false
        func pass() async {
            if isOpen { return }
            await withCheckedContinuation { waiting = $0 }
        }
        func open() {
            isOpen = true
            waiting?.resume()
            waiting = nil
        }
    }

    @Test("An import that outlasts the answer's wait is running on the progress page; once it ends its page is shown once, then nothing")
    func runningThenOnce() async throws {
        let clock = ManualBotClock(now: Date(timeIntervalSince1970: 1_795_000_000))
        let imports = ArchiveImports(clock: clock)
        let gate = Gate()
        await imports.start(for: "alice") {
            await gate.pass()
            return .init(status: .ok, html: "imported")
        }
        #expect(await imports.outcome(for: "alice", waitingUpTo: .milliseconds(100)) == nil, "still running: the answer shows the progress")
        guard case .running(let since) = await imports.progress(for: "alice") else {
            Issue.record("not running")
            return
        }
        #expect(since == clock.now())
        #expect(await imports.progress(for: "bob") == nil, "another person's import is not alice's")
        await gate.open()
        let outcome = await imports.outcome(for: "alice", waitingUpTo: .seconds(10))
        #expect(outcome?.html == "imported", "the import ended within 10 s of its gate opening")
        #expect(await imports.progress(for: "alice") == nil, "said once")
    }

    @Test("An import that ends within the wait is the upload's own answer; one nobody came back for is forgotten after ten minutes")
    func withinTheWait() async throws {
        let clock = ManualBotClock(now: Date(timeIntervalSince1970: 1_795_000_000))
        let imports = ArchiveImports(clock: clock)
        await imports.start(for: "alice") { .init(status: .unprocessableContent, html: "refused") }
        #expect(await imports.outcome(for: "alice", waitingUpTo: .seconds(10))?.status == .unprocessableContent)
        // Bob's ends and nobody comes back for it: a later import's start forgets it after ten minutes.
        await imports.start(for: "bob") { .init(status: .ok, html: "bob's") }
        for _ in 0..<200 where await !imports.hasEnded("bob") { try await Task.sleep(for: .milliseconds(50)) }
        #expect(await imports.hasEnded("bob"), "bob's import ended within 10 s")
        clock.advance(by: ArchiveImports.kept - 1)
        await imports.start(for: "carol") { .init(status: .ok, html: "carol's") }
        #expect(await imports.hasEnded("bob"), "kept for ten minutes")
        clock.advance(by: 2)
        await imports.start(for: "dave") { .init(status: .ok, html: "dave's") }
        #expect(await imports.progress(for: "bob") == nil, "forgotten")
    }
}

extension ArchiveImports.Progress: Equatable {
    static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.running(let a), .running(let b)): a == b
        case (.finished(let a), .finished(let b)): a.status == b.status && a.html == b.html
        default: false
        }
    }
}
