import Foundation
import TestSupport
import Testing

/// What the HTTP layer answers before a route: HEAD as GET without a body, unreadable requests and over-large bodies
/// with the API's error body, at once (issue 43).
@Suite("The status server's answers below the routes", .serialized)
struct RequestDefencesTests {
    @Test("HEAD is answered as GET, without the body: /healthz 200 for anyone, the page 401 without the password and 200 with it")
    func headAnsweredAsGet() async throws {
        try await StatusWorld.with(.memory, password: "pw") { world async throws in
            let health = try await world.request("/healthz", method: .HEAD)
            #expect(health.status == 200 && health.body.isEmpty, "\(health.status)")
            #expect(health.headers.first(name: "Content-Type") == "application/json; charset=utf-8")
            #expect(health.headers.first(name: "Cache-Control") == "no-store")
            let closed = try await world.request("/api/v1/actions", method: .HEAD)
            #expect(closed.status == 401 && closed.body.isEmpty)
            let open = try await world.request("/api/v1/actions", method: .HEAD, password: "pw")
            #expect(open.status == 200 && open.body.isEmpty)
            // The connection goes on: a GET after is answered whole.
            #expect(try await world.request("/healthz").json["status"] as? String == "ok")
        }
    }

    @Test("A request the HTTP parser cannot read is 400 with the API's error body (code 1002), and the connection closed")
    func unreadableRequestsHaveTheErrorBody() async throws {
        try await StatusWorld.with(.memory, password: "pw") { world async throws in
            let port = try #require(world.url.port)
            for request in [
                "GET /healthz HTTP/1.1\r\nHost: bot\r\nThis is no header\r\n\r\n",
                "GET /healthz HTTP/1.1\r\nHost: bot\r\nContent-Length: lots\r\n\r\n",
                "GET /healthz HTTP/9.9\r\n\r\n",
            ] {
                let answer = await OffThePool.run { () -> (closed: Bool, answer: String) in
                    guard let connection = try? RawConnection(port: port) else { return (false, "no connection") }
                    connection.send(request)
                    return connection.answerUntilClosed()
                }
                #expect(answer.closed, "\(request.debugDescription): still open after 10 s")
                #expect(answer.answer.hasPrefix("HTTP/1.1 400"), "\(request.debugDescription): \(answer.answer)")
                #expect(
                    answer.answer.contains("application/json") && answer.answer.contains("{\"errors\":[{\"code\":\"1002\",\"message\":"),
                    "\(request.debugDescription): \(answer.answer)")
            }
            #expect(try await world.request("/healthz").status == 200)
        }
    }

    @Test(
        "A request declaring a body past the limit is 413 with the API's error body at once; one sending 10 MB with Connection: close is closed at once, not after the idle timeout"
    )
    func largeBodiesRefusedAtOnce() async throws {
        try await StatusWorld.with(.memory, password: "pw", idleTimeout: .seconds(30)) { world async throws in
            let port = try #require(world.url.port)
            let declared = await OffThePool.run { () -> (closed: Bool, answer: String) in
                guard let connection = try? RawConnection(port: port) else { return (false, "no connection") }
                connection.send("POST /healthz HTTP/1.1\r\nHost: bot\r\nContent-Length: 10000000\r\nConnection: close\r\n\r\n")
                return connection.answerUntilClosed()
            }
            #expect(declared.closed, "still open after 10 s")
            #expect(declared.answer.hasPrefix("HTTP/1.1 413") && declared.answer.contains("{\"errors\":[{\"code\":\"1002\""), "\(declared.answer)")
            // The whole 10 MB, sent blocking: more than the sockets' buffers hold, so the send returns only once the
            // server reads it all or closes the connection (before the fix: at the idle timeout, 30 s later).
            let started = ContinuousClock.now
            let sending = await OffThePool.run { () -> (closed: Bool, answer: String) in
                guard let connection = try? RawConnection(port: port) else { return (false, "no connection") }
                connection.send(
                    "POST /healthz HTTP/1.1\r\nHost: bot\r\nContent-Length: 10000000\r\nConnection: close\r\n\r\n"
                        + String(repeating: "x", count: 10_000_000))
                return connection.answerUntilClosed()
            }
            #expect(sending.closed, "a connection sending 10 MB was still open after 10 s")
            #expect(ContinuousClock.now - started < .seconds(10), "a connection sending 10 MB was held \(ContinuousClock.now - started)")
            // Chunked, with no length declared: closed as it passes the limit.
            let chunked = await OffThePool.run { () -> (closed: Bool, answer: String) in
                guard let connection = try? RawConnection(port: port) else { return (false, "no connection") }
                let chunk = String(repeating: "x", count: 32_768)
                connection.send(
                    "GET /healthz HTTP/1.1\r\nHost: bot\r\nTransfer-Encoding: chunked\r\n\r\n" + String(chunk.count, radix: 16) + "\r\n" + chunk
                        + "\r\n")
                return connection.answerUntilClosed()
            }
            #expect(chunked.closed, "a chunked body past the limit was still open after 10 s")
            #expect(try await world.request("/healthz").status == 200)
        }
    }
}
