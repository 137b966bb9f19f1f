import BotConfiguration
import RedisClient
import TestSupport
import Testing

@Suite("Redis connection over hiredis", .serialized)
struct RedisConnectionTests {
    @Test("A pipeline is one round trip and its replies come back in order")
    func pipelineIsOneRoundTrip() async throws {
        let connection = try TestServers.redisConnection()
        let key = TestServers.uniqueName("pipeline")
        let before = connection.statistics
        let replies = try await connection.pipeline([
            ["SET", key, "41"], ["INCR", key], ["GET", key], ["GET", key + ":missing"], ["DEL", key],
        ])
        #expect(replies == [.status("OK"), .integer(42), .bulkString(Array("42".utf8)), .null, .integer(1)])
        #expect(connection.statistics.roundTrips - before.roundTrips == 1)
        #expect(connection.statistics.commands - before.commands == 5)
    }

    @Test("Keys and values are binary-safe: any Unicode, spaces, empty strings and NUL bytes")
    func binarySafety() async throws {
        let connection = try TestServers.redisConnection()
        let key = TestServers.uniqueName("binary") + ":名詞 with space\u{0}and NUL 🍣"
        let value = "値\u{0}\r\n*3\r\n$3"
        try await connection.send("SET", key, value)
        #expect(try await connection.send("GET", key) == .bulkString(Array(value.utf8)))
        try await connection.send("SET", key, "")
        #expect(try await connection.send("GET", key) == .bulkString([]))
        try await connection.send("DEL", key)
    }

    @Test("An error reply fails its command only, not the pipeline or the connection")
    func errorReplies() async throws {
        let connection = try TestServers.redisConnection()
        let key = TestServers.uniqueName("errors")
        let replies = try await connection.pipeline([["SET", key, "text"], ["INCR", key], ["GET", key], ["DEL", key]])
        guard case .error(let message) = replies[1] else {
            Issue.record("INCR on text should fail: \(replies[1])")
            return
        }
        #expect(message.contains("not an integer"))
        #expect(replies[2].stringValue == "text")
        #expect(throws: RedisError.self) { try replies[1].checked() }
        #expect(try await connection.send("PING") == .status("PONG"))
    }

    @Test("A connection killed by the server is re-established on the next call")
    func reconnectsAfterClientKill() async throws {
        let connection = try TestServers.redisConnection()
        let killer = try TestServers.redisConnection()
        let id = try #require(try await connection.send("CLIENT", "ID").integerValue)
        #expect(try await killer.send("CLIENT", "KILL", "ID", String(id)).integerValue == 1)
        // The next call notices the closed socket before writing, reconnects, and succeeds.
        #expect(try await connection.send("PING") == .status("PONG"))
        #expect(connection.statistics.connects == 2)
        let newID = try #require(try await connection.send("CLIENT", "ID").integerValue)
        #expect(newID != id)
    }

    @Test("A connection that breaks mid-call fails that call and works again on the next")
    func recoversAfterFailedCall() async throws {
        let connection = try TestServers.redisConnection()
        let id = try #require(try await connection.send("CLIENT", "ID").integerValue)
        // CLIENT KILL of itself: the server answers, then closes the connection while the pipeline waits for PING's reply.
        let failure = await #expect(throws: RedisError.self) {
            try await connection.pipeline([["CLIENT", "KILL", "ID", String(id), "SKIPME", "no"], ["PING"]])
        }
        if case .connectionLost = failure {} else { Issue.record("expected connectionLost, got \(String(describing: failure))") }
        #expect(try await connection.send("PING") == .status("PONG"))
        #expect(connection.statistics.connects == 2)
    }

    @Test("A server that does not answer gives a connection error naming it")
    func unreachableServer() async throws {
        let port = try TestServers.redisURL().port == 1 ? 2 : 1
        let connection = RedisConnection(url: RedisURL(host: "127.0.0.1", port: port))
        let error = try await #require(throws: RedisError.self) { try await connection.send("PING") }
        #expect(error.description.contains("127.0.0.1:\(port)"))
        #expect(error.description.contains("REDIS_URL"))
    }

    @Test("A wrong password is reported as a connection error with the server's words, not the password")
    func wrongPassword() async throws {
        var url = try TestServers.redisURL()
        url.password = "not-the-password"
        let error = try await #require(throws: RedisError.self) { try await RedisConnection(url: url).send("PING") }
        guard case .connectionFailed(_, let reason) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(reason.contains("AUTH") || reason.contains("auth") || reason.contains("password"))
        #expect(!error.description.contains("not-the-password"))
    }

    @Test("rediss:// to a server that speaks no TLS fails the handshake with one readable line")
    func tlsToPlainServer() async throws {
        var url = try TestServers.redisURL()
        url.usesTLS = true
        let error = try await #require(throws: RedisError.self) { try await RedisConnection(url: url).send("PING") }
        guard case .tlsFailed(let server, _) = error else {
            Issue.record("expected a TLS error, got \(error)")
            return
        }
        #expect(server == "\(url.host):\(url.port)" && !error.description.contains("\n"))
    }

    @Test("The logical database of the URL is selected")
    func selectsDatabase() async throws {
        var url = try TestServers.redisURL()
        url.database = 3
        let connection = RedisConnection(url: url)
        let key = TestServers.uniqueName("db3")
        try await connection.send("SET", key, "here")
        let other = try TestServers.redisConnection()
        #expect(try await other.send("EXISTS", key).integerValue == 0)
        #expect(try await connection.send("EXISTS", key).integerValue == 1)
        try await connection.send("DEL", key)
    }
}
