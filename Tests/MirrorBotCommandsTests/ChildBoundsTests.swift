import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The bounds the process tests put on their children: a child that hangs fails its test within the bound, killed,
/// instead of stalling the run (issue 43, "every wait bounded").
@Suite("Bounds on child processes")
struct ChildBoundsTests {
    static func sleeper() throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sleep")
        process.arguments = ["60"]
        try process.run()
        return process
    }

    @Test("A child that does not end within its bound is killed and the wait fails saying what it waited for; one that ends is waited for")
    func hungChildKilled() async throws {
        let hung = try Self.sleeper()
        // Unbounded, the wait would end with the sleep, 60 s on, without an error: the error is the bound holding.
        do {
            try await hung.exit(within: .milliseconds(300), "a sleep of 60 s to end")
            Issue.record("the wait for a hung child returned")
        } catch let error as ChildDidNotExit {
            #expect(error.description.contains("a sleep of 60 s to end") && error.description.contains("killed"), "\(error)")
        }
        #expect(!hung.isRunning && hung.terminationReason == .uncaughtSignal && hung.terminationStatus == SIGKILL)

        let quick = Process()
        quick.executableURL = URL(fileURLWithPath: "/bin/true")
        try quick.run()
        try await quick.exit(within: .seconds(30), "true to end")
        #expect(quick.terminationStatus == 0)
    }

    @Test("A watchdog kills a child still running when its bound passes, and says it fired; cancelled in time, it does nothing")
    func watchdogFires() async throws {
        let hung = try Self.sleeper()
        let watchdog = ChildWatchdog(hung, limit: .milliseconds(200))
        try await hung.exit(within: .seconds(30), "the watchdog to kill the sleep")
        #expect(watchdog.fired && hung.terminationStatus == SIGKILL)

        let spared = try Self.sleeper()
        let cancelled = ChildWatchdog(spared, limit: .milliseconds(200))
        cancelled.cancel()
        // Real time: the watchdog's bound is real time, and this waits three times it to see it not fire.
        try await Task.sleep(for: .milliseconds(600))
        #expect(spared.isRunning && !cancelled.fired, "a cancelled watchdog killed its child")
        kill(spared.processIdentifier, SIGKILL)
        try await spared.exit(within: .seconds(30), "the spared sleep to end once killed")
    }
}
