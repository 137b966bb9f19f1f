import BotConfiguration
import Foundation
import RedisClient
import TestSupport
import Testing

/// `rediss://` against a throwaway redis-server that serves TLS only, with a certificate of a throwaway CA and an idle
/// timeout of one second (`script/test` starts it), as Heroku's Redis add-on is reached.
@Suite("Redis over TLS", .serialized)
struct RedisTLSTests {
    static func server() throws -> (url: RedisURL, ca: String, wrongCA: String) {
        let environment = ProcessInfo.processInfo.environment
        let names = ["MIRROR_BOT_TEST_TLS_REDIS_URL", "MIRROR_BOT_TEST_TLS_CA", "MIRROR_BOT_TEST_WRONG_CA"]
        guard let text = environment[names[0]], let url = RedisURL(text), let ca = environment[names[1]], let wrong = environment[names[2]] else {
            throw TestServers.NotConfigured(variables: names)
        }
        return (url, ca, wrong)
    }

    @Test("Commands go through TLS, unverified by default (Heroku's self-signed certificates) and verified with REDIS_TLS_CA")
    func commands() async throws {
        let server = try Self.server()
        let unverified = RedisConnection(url: server.url)
        #expect(try await unverified.send("PING") == .status("PONG"))
        let key = TestServers.uniqueName("tls")
        let verified = RedisConnection(url: server.url, certificateAuthority: server.ca)
        let replies = try await verified.pipeline([["SET", key, "値"], ["GET", key], ["DEL", key]])
        #expect(replies == [.status("OK"), .bulkString(Array("値".utf8)), .integer(1)])
    }

    @Test("A certificate the given CA did not sign fails the connection with a line that names REDIS_TLS_CA")
    func wrongCertificateAuthority() async throws {
        let server = try Self.server()
        let error = try await #require(throws: RedisError.self) {
            try await RedisConnection(url: server.url, certificateAuthority: server.wrongCA).send("PING")
        }
        guard case .tlsFailed = error else {
            Issue.record("expected a TLS failure, got \(error)")
            return
        }
        #expect(error.description.contains("REDIS_TLS_CA") && !error.description.contains("\n"), "\(error)")
        let missing = try await #require(throws: RedisError.self) {
            try await RedisConnection(url: server.url, certificateAuthority: "/nonexistent/ca.pem").send("PING")
        }
        #expect(missing.description.contains("REDIS_TLS_CA"), "\(missing)")
    }

    @Test("A connection the server closed while idle (its timeout) is opened again before the next command, which does not fail")
    func idleClose() async throws {
        let server = try Self.server()
        let connection = RedisConnection(url: server.url)
        #expect(try await connection.send("PING") == .status("PONG"))
        // The server's own timeout (1 s) is real time: wait it out, with its once-a-100-ms check.
        try await Task.sleep(for: .milliseconds(2_500))
        #expect(try await connection.send("PING") == .status("PONG"))
        #expect(connection.statistics.connects == 2)
    }

    @Test("A thousand reconnects leave no socket to the server open behind")
    func reconnectsDoNotLeak() async throws {
        let server = try Self.server()
        let connection = RedisConnection(url: server.url)
        _ = try await connection.send("PING")
        // Only this process's sockets whose peer is the server count: the other suites run beside this one and open
        // and close descriptors of their own. A leaked socket stays in the tables (CLOSE_WAIT) until it is closed.
        func openSockets() throws -> Int { try Self.socketsOpen(toPort: server.url.port) }
        // Settled: what closes on the event loops closes a moment after the call returns.
        func settled(atMost limit: Int) async throws -> Int {
            let deadline = ContinuousClock.now + .seconds(10)
            var count = try openSockets()
            while count > limit, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                count = try openSockets()
            }
            return count
        }
        let before = try openSockets()
        #expect(before >= 1, "the open connection's socket is not seen: the count could not see a leak either")
        for _ in 0..<1_000 {
            connection.close()
            _ = try await connection.send("PING")
        }
        #expect(connection.statistics.connects == 1_001)
        let after = try await settled(atMost: before + 2)
        #expect(after <= before + 2, "\(before) sockets to the server open before, \(after) after")
    }

    /// How many of this process's descriptors are TCP sockets whose remote port is `port`: the socket inodes behind
    /// `/proc/self/fd`, looked up in `/proc/self/net/tcp` and `tcp6`.
    static func socketsOpen(toPort port: Int) throws -> Int {
        var inodes = Set<String>()
        for name in try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name),
                target.hasPrefix("socket:[")
            else { continue }
            inodes.insert(String(target.dropFirst("socket:[".count).dropLast()))
        }
        var count = 0
        for table in ["/proc/self/net/tcp", "/proc/self/net/tcp6"] {
            // Read to the end: String(contentsOfFile:) stops at the first page of a /proc file, whose size is 0.
            guard let file = FileHandle(forReadingAtPath: table), let data = try? file.readToEnd() else { continue }
            let text = String(decoding: data, as: UTF8.self)
            for line in text.split(separator: "\n").dropFirst() {
                // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count > 9, let remotePort = fields[2].split(separator: ":").last.flatMap({ Int($0, radix: 16) }) else { continue }
                if remotePort == port, inodes.contains(String(fields[9])) { count += 1 }
            }
        }
        return count
    }
}
