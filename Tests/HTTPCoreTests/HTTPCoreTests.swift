import AsyncHTTPClient
import BotClock
import FakeKit
import FakeX
import Foundation
import HTTPCore
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import Synchronization
import TestSupport
import Testing

/// The core's policy against a real HTTP server on loopback that answers from a script (one status per request),
/// on the manual clock: what is retried, what is waited for, what is never sent twice.
@Suite("The HTTP core every API client runs through")
struct HTTPCoreTests {
    static let quiet = Logger(label: "http-core-tests", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A client that, as the API clients' own, leaves retrying a failed connection to the core.
    static let httpClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(5)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// A server answering each request with the next of `statuses` (then 200), the body `{"ok":true}` unless the
    /// status is listed in `unreadable`, and a window resetting `resetIn` seconds on for 429s.
    final class ScriptedServer: Sendable {
        let statuses: Mutex<[Int]>
        let requests = Mutex(0)
        let unreadable: Set<Int>
        let resetAt: Date?
        /// Whether a write is held unanswered until `releaseWrites()` (or an hour).
        let holdsWrites: Bool
        private let released = Mutex(false)

        init(_ statuses: [Int], unreadable: Set<Int> = [], resetAt: Date? = nil, holdsWrites: Bool = false) {
            self.statuses = Mutex(statuses)
            self.unreadable = unreadable
            self.resetAt = resetAt
            self.holdsWrites = holdsWrites
        }

        func withRunning<Result: Sendable>(_ body: (URL) async throws -> Result) async throws -> Result {
            let router = Router()
            router.get("/x") { [self] _, _ -> Response in answer() }
            router.post("/x") { [self] _, _ -> Response in
                if holdsWrites {
                    requests.withLock { $0 += 1 }
                    let until = ContinuousClock.now + .seconds(3_600)
                    while !released.withLock({ $0 }) && ContinuousClock.now < until { try await Task.sleep(for: .milliseconds(50)) }
                }
                return answer()
            }
            return try await LoopbackServer.withRunning(
                logger: HTTPCoreTests.quiet,
                { onStarted in
                    Application(
                        router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
                        onServerRunning: { channel in await onStarted(channel.localAddress?.port ?? 0) }, logger: HTTPCoreTests.quiet)
                }, body)
        }

        /// Lets the held writes be answered (so that the server can stop).
        func releaseWrites() { released.withLock { $0 = true } }

        private func answer() -> Response {
            requests.withLock { $0 += 1 }
            let status = statuses.withLock { $0.isEmpty ? 200 : $0.removeFirst() }
            var headers = HTTPFields()
            if status == 429, let resetAt { headers[HTTPField.Name("x-reset")!] = String(Int(resetAt.timeIntervalSince1970)) }
            let body = unreadable.contains(status) ? "{\"ok\":" : "{\"ok\":true}"
            return Response(status: .init(code: status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
        }
    }

    /// What the call's hooks saw.
    final class Hooks: Sendable {
        let sent = Mutex(0)
        let failed = Mutex(0)
    }

    static func call(_ url: URL, _ repeatability: Repeatability, hooks: Hooks) -> HTTPCall<Bool> {
        let isWrite = repeatability != .read
        return HTTPCall(
            name: (isWrite ? "POST" : "GET") + " /x", repeatability: repeatability, isWrite: isWrite,
            makeRequest: {
                var request = HTTPClientRequest(url: url.appending(path: "x").absoluteString)
                request.method = isWrite ? .POST : .GET
                return request
            },
            onSend: { hooks.sent.withLock { $0 += 1 } },
            onFailure: { hooks.failed.withLock { $0 += 1 } },
            observe: { headers in headers.first(name: "x-reset").flatMap(TimeInterval.init).map(Date.init(timeIntervalSince1970:)) },
            decode: { _, _, data in
                (try? JSONSerialization.jsonObject(with: data)) == nil ? .unreadable("\(data.count) bytes") : .value(true)
            },
            refusal: { status, _, _ in HTTPCallFailure.malformed(reason: "refused with \(status)") })
    }

    static let start = Date(timeIntervalSince1970: 1_795_359_600)

    /// Sends `call` through a core on a manual clock, moving the clock to each sleeper's deadline until it is done;
    /// returns the result and the clock's sleeps.
    /// With `lapsesAfter`, the call runs under a lease lapsing that long after the start, on the same clock.
    static func send(_ call: HTTPCall<Bool>, policy: HTTPCore.Policy = HTTPCore.Policy(), lapsesAfter: TimeInterval? = nil)
        async -> (Result<Bool, any Error>, [Duration])
    {
        let clock = ManualBotClock(now: start)
        let core = HTTPCore(service: "Test API", server: "the server", policy: policy, httpClient: Self.httpClient, clock: clock, logger: quiet)
        let deadline = lapsesAfter.map { after in WriteDeadline(clock: clock) { start.addingTimeInterval(after) } }
        let task = Task { try await WriteDeadline.$current.withValue(deadline) { try await core.send(call) } }
        let driver = Task {
            while !Task.isCancelled {
                try await clock.waitForSleepers()
                _ = clock.advanceToNextSleeper()
            }
        }
        let result = await task.result
        driver.cancel()
        return (result, clock.sleepRequests)
    }

    @Test("A read answered 503 then 500 is retried with backoff on the clock, and its answer returned; every attempt metered")
    func readRetried() async throws {
        let server = ScriptedServer([503, 500])
        try await server.withRunning { url async throws in
            let hooks = Hooks()
            let (result, sleeps) = await Self.send(Self.call(url, .read, hooks: hooks))
            #expect(try result.get() == true)
            #expect(server.requests.withLock { $0 } == 3 && hooks.sent.withLock { $0 } == 3 && hooks.failed.withLock { $0 } == 2)
            #expect(sleeps.count == 2 && sleeps.allSatisfy { $0 >= .milliseconds(500) && $0 <= .seconds(2) }, "\(sleeps)")
        }
    }

    @Test("A create answered 500 is never sent again: its outcome is unknown; answered 503 (not taken), it is sent again")
    func createNotRepeated() async throws {
        let failing = ScriptedServer([500])
        try await failing.withRunning { url async throws in
            let (result, _) = await Self.send(Self.call(url, .create, hooks: Hooks()))
            #expect(throws: HTTPCallFailure.outcomeUnknown(reason: "the server answered 500")) { try result.get() }
            #expect(failing.requests.withLock { $0 } == 1)
        }
        let busy = ScriptedServer([503])
        try await busy.withRunning { url async throws in
            let (result, _) = await Self.send(Self.call(url, .create, hooks: Hooks()))
            #expect(try result.get() == true)
            #expect(busy.requests.withLock { $0 } == 2)
        }
    }

    @Test("An unreadable 2xx: a read is malformed, a create's outcome is unknown, an idempotent write is asked again")
    func unreadableAnswers() async throws {
        for (repeatability, requests) in [(Repeatability.read, 1), (.create, 1), (.idempotentWrite, 2)] {
            let server = ScriptedServer([202], unreadable: [202])
            try await server.withRunning { url async throws in
                let (result, _) = await Self.send(Self.call(url, repeatability, hooks: Hooks()))
                switch repeatability {
                case .read: #expect(throws: HTTPCallFailure.malformed(reason: "6 bytes")) { try result.get() }
                case .create:
                    #expect(throws: HTTPCallFailure.outcomeUnknown(reason: "its 202 answer could not be read (6 bytes)")) { try result.get() }
                case .idempotentWrite: #expect(try result.get() == true)
                }
                #expect(server.requests.withLock { $0 } == requests, "\(repeatability)")
            }
        }
    }

    @Test("A 429 whose window resets in 30 s is waited out on the clock (31 s); one resetting in an hour is not waited for")
    func rateLimits() async throws {
        let soon = ScriptedServer([429], resetAt: Self.start.addingTimeInterval(30))
        try await soon.withRunning { url async throws in
            let (result, sleeps) = await Self.send(Self.call(url, .read, hooks: Hooks()))
            #expect(try result.get() == true)
            #expect(sleeps == [.seconds(31)], "\(sleeps)")
        }
        let late = ScriptedServer([429], resetAt: Self.start.addingTimeInterval(3_600))
        try await late.withRunning { url async throws in
            let (result, sleeps) = await Self.send(Self.call(url, .read, hooks: Hooks()))
            #expect(throws: HTTPCallFailure.rateLimited(resetsAt: Self.start.addingTimeInterval(3_600))) { try result.get() }
            #expect(sleeps.isEmpty && late.requests.withLock { $0 } == 1)
        }
    }

    @Test(
        "Nothing listening: a create that surely never left is tried again up to the attempts, then a transport failure (or, where exhausted writes are uncertain, an unknown outcome)"
    )
    func connectionRefused() async throws {
        // Held for the test, so that no server of a test running beside takes it (one did, and answered 404).
        let refusing = RefusingPort()
        defer { refusing.close() }
        let url = URL(string: "http://127.0.0.1:\(refusing.port)")!
        let hooks = Hooks()
        let (result, sleeps) = await Self.send(Self.call(url, .create, hooks: hooks), policy: HTTPCore.Policy(maxAttempts: 3))
        guard case .failure(HTTPCallFailure.transport(_, let attempts)) = result else {
            Issue.record("\(result)")
            return
        }
        #expect(attempts == 3 && hooks.sent.withLock { $0 } == 3 && sleeps.count == 2)
        let (uncertain, _) = await Self.send(
            Self.call(url, .create, hooks: Hooks()), policy: HTTPCore.Policy(maxAttempts: 2, exhaustedWritesAreUncertain: true))
        guard case .failure(HTTPCallFailure.outcomeUnknown) = uncertain else {
            Issue.record("\(uncertain)")
            return
        }
    }

    @Test("A call cancelled while it waits for its backoff ends with CancellationError, not an HTTP failure")
    func cancellation() async throws {
        let server = ScriptedServer([503, 503, 503])
        try await server.withRunning { url async throws in
            let clock = ManualBotClock(now: Self.start)
            let core = HTTPCore(
                service: "Test API", server: "the server", policy: HTTPCore.Policy(), httpClient: Self.httpClient, clock: clock,
                logger: Self.quiet)
            let task = Task { try await core.send(Self.call(url, .read, hooks: Hooks())) }
            try await clock.waitForSleepers()
            task.cancel()
            let result = await task.result
            guard case .failure(let error) = result else {
                Issue.record("\(result)")
                return
            }
            #expect(error is CancellationError, "\(error)")
            #expect(server.requests.withLock { $0 } == 1)
        }
    }

    @Test("Under a lease with too little left (under margin and least time: 2.9 s), a write is not sent at all; a read is")
    func writeNotSentPastTheLease() async throws {
        let server = ScriptedServer([])
        try await server.withRunning { url async throws in
            for repeatability in [Repeatability.create, .idempotentWrite] {
                let hooks = Hooks()
                let (result, _) = await Self.send(Self.call(url, repeatability, hooks: hooks), lapsesAfter: 2.9)
                #expect(throws: WriteDeadlinePassed.self) { try result.get() }
                #expect(hooks.sent.withLock { $0 } == 0, "\(repeatability)")
            }
            #expect(server.requests.withLock { $0 } == 0)
            let (read, _) = await Self.send(Self.call(url, .read, hooks: Hooks()), lapsesAfter: 2.9)
            #expect(try read.get() == true)
            // With a little more left (3.1 s: 1.1 s past the margin), it is sent.
            let (write, _) = await Self.send(Self.call(url, .create, hooks: Hooks()), lapsesAfter: 3.1)
            #expect(try write.get() == true)
            #expect(server.requests.withLock { $0 } == 2)
        }
    }

    @Test("A create answered 503 is sent again only while the lease leaves time after the backoff")
    func retryNotSentPastTheLease() async throws {
        let server = ScriptedServer([503])
        try await server.withRunning { url async throws in
            // The backoff is 30 to 60 s on the test's clock: 25 s to the lapse leave the first attempt 23 s of real time
            // (ample on a loaded machine, where a 503 may take seconds to come back) and none for a second.
            let (result, sleeps) = await Self.send(
                Self.call(url, .create, hooks: Hooks()), policy: HTTPCore.Policy(initialBackoff: .seconds(60)), lapsesAfter: 25)
            #expect(throws: WriteDeadlinePassed.self) { try result.get() }
            #expect(server.requests.withLock { $0 } == 1 && sleeps.count == 1, "\(sleeps)")
        }
    }

    @Test("A write to a server that never answers is given only what its lease has left, not the policy's hour")
    func writeCutAtTheLease() async throws {
        let server = ScriptedServer([], holdsWrites: true)
        try await server.withRunning { url async throws in
            let core = HTTPCore(
                service: "Test API", server: "the server", policy: HTTPCore.Policy(requestTimeout: .seconds(3_600)), httpClient: Self.httpClient,
                clock: SystemBotClock(), logger: Self.quiet)
            // The lease's clock stands still (a loaded machine may take seconds to reach the send: the write must still
            // leave), so the write leaves with 2 s past the margin, and only the request's own cut ends it.
            let leaseClock = ManualBotClock(now: Date())
            let lapse = leaseClock.now().addingTimeInterval(4)
            let deadline = WriteDeadline(clock: leaseClock) { lapse }
            // Bounded: without the cut, the hour's limit would hold it here until this bound fails the test.
            let error: (any Error)? = try await withTimeLimit(.seconds(60)) {
                do {
                    _ = try await WriteDeadline.$current.withValue(deadline) { try await core.send(Self.call(url, .create, hooks: Hooks())) }
                    return nil
                } catch {
                    return error
                }
            }
            server.releaseWrites()
            guard case HTTPCallFailure.outcomeUnknown(let reason)? = error else {
                Issue.record("\(String(describing: error))")
                return
            }
            #expect(reason.contains("deadline"), "\(reason)")
            #expect(server.requests.withLock { $0 } == 1)
        }
    }
}
