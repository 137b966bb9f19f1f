import AsyncHTTPClient
import FakeX
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import Testing

@Suite("The fake's seed file and admin interface")
struct FakeXSeedAndAdminTests {
    @Test("A seed file with snake_case keys loads, and writing it back gives the same seed")
    func seedRoundTrip() throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "seed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appending(path: "seed.json").path
        try """
        {"now": "2024-05-01T12:00:00Z",
         "users": [{"id": "100", "username": "human", "name": "Human"}],
         "accounts": [{"user_id": "100", "consumer_key": "ck", "consumer_secret": "cs", "access_token": "t", "access_token_secret": "ts"}],
         "tweets": [{"id": "1", "author_id": "100", "text": "a", "created_at": "2024-05-01T08:00:00Z", "in_reply_to_user_id": "7",
                     "urls": [{"url": "https://t.co/a", "expanded_url": "https://example.com"}]}],
         "likes": {"100": ["1"]}, "follows": {}, "rate_limits": {"POST /2/tweets": 3}}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let seed = try FakeXSeed.load(path: path)
        #expect(seed.accounts.first?.userID == "100")
        #expect(seed.tweets.first?.inReplyToUserID == "7")
        #expect(seed.tweets.first?.urls?.first?.expandedURL == "https://example.com")
        #expect(seed.rateLimits == ["POST /2/tweets": 3])
        let copy = folder.appending(path: "copy.json").path
        try seed.write(to: copy)
        let reloaded = try FakeXSeed.load(path: copy)
        #expect(reloaded.tweets.first?.createdAt == seed.tweets.first?.createdAt)
        #expect(reloaded.accounts.first?.accessTokenSecret == "ts")
    }

    @Test("A bad seed file names the file and the place of the problem")
    func badSeed() throws {
        let path = FileManager.default.temporaryDirectory.appending(path: "bad-\(UUID().uuidString).json").path
        try #"{"users": [{"id": 5, "username": "x"}], "accounts": [], "tweets": [], "likes": {}, "follows": {}}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = try #require(throws: SeedFileError.self) { try FakeXSeed.load(path: path) }
        #expect(error.description.hasPrefix("The seed file \(path) cannot be used: users[0].id"))
        #expect(throws: SeedFileError.self) { try FakeXSeed.load(path: "/nonexistent/seed.json") }
    }

    @Test("/admin sets the clock, adds posts and likes, and reports state")
    func adminOverHTTP() async throws {
        let seed = FakeXSeed(now: Date(timeIntervalSince1970: 1_700_000_000), users: [.init(id: "100", username: "human")], accounts: [])
        let server = FakeXServer(seed: seed, logger: Logger(label: "admin", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await server.withRunning { base in
            func post(_ path: String, _ body: String) async throws -> Int {
                var request = HTTPClientRequest(url: base.absoluteString + path)
                request.method = .POST
                request.body = .bytes(ByteBuffer(string: body))
                return Int(try await HTTPClient.shared.execute(request, timeout: .seconds(5)).status.code)
            }
            #expect(try await post("/admin/clock", #"{"now": "2024-01-01T00:00:00Z"}"#) == 200)
            #expect(await server.now() == Date(timeIntervalSince1970: 1_704_067_200))
            #expect(try await post("/admin/clock", #"{"advance_seconds": 60}"#) == 200)
            #expect(await server.now() == Date(timeIntervalSince1970: 1_704_067_260))
            #expect(try await post("/admin/tweets", #"[{"id": "9", "author_id": "100", "text": "x", "created_at": "2024-01-01T00:00:00Z"}]"#) == 200)
            #expect(try await post("/admin/likes", #"{"user_id": "100", "tweet_ids": ["9"]}"#) == 200)
            #expect(try await post("/admin/faults", #"{"kind": "503", "count": 2}"#) == 200)
            #expect(try await post("/admin/faults", #"{"kind": "explode"}"#) == 400)
            #expect(try await post("/admin/clock", "not json") == 400)
            let state = try await HTTPClient.shared.execute(HTTPClientRequest(url: base.absoluteString + "/admin/state"), timeout: .seconds(5))
            let body = try await state.body.collect(upTo: 1 << 20)
            let json = try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any]
            #expect(json?["now"] as? String == "2024-01-01T00:01:00.000Z")
        }
    }
}
