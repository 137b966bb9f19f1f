import AsyncHTTPClient
import BotConfiguration
import FakeX
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import TestSupport
import Testing
import XAPI

/// One recorded answer of the fake and the OpenAPI schema it must satisfy.
struct Sample: Sendable {
    var name: String
    var schema: String
    var body: Data
}

@Suite("The fake X server follows the OpenAPI document")
struct FakeXContractTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)
    static let human = AccountCredentials(consumerKey: "ck", consumerSecret: "cs", accessToken: "100-t", accessTokenSecret: "ts")
    static let bot = AccountCredentials(consumerKey: "bk", consumerSecret: "bs", accessToken: "200-t", accessTokenSecret: "bts")

    static var seed: FakeXSeed {
        var tweets: [FakeXSeed.Tweet] = []
        for index in 0..<30 {
            let link = FakeXSeed.Tweet.Link(url: "https://t.co/x\(index)", expandedURL: "https://example.com/\(index)")
            let author = index % 3 == 0 ? "300" : "100"
            let createdAt = start.addingTimeInterval(Double(index - 30) * 60)
            tweets.append(
                FakeXSeed.Tweet(
                    id: String(1_000 + index), authorID: author, text: "post \(index) &amp; \(link.url)",
                    createdAt: createdAt, urls: [link]))
        }
        tweets.append(.init(id: "2000", authorID: "300", text: "@mirror_bot hi", createdAt: start.addingTimeInterval(-5)))
        tweets.append(
            .init(
                id: "2001", authorID: "100", text: "@friend yo", createdAt: start.addingTimeInterval(-4),
                inReplyToTweetID: "2000", inReplyToUserID: "300"))
        tweets.append(.init(id: "2002", authorID: "100", text: "RT @friend: post 0", createdAt: start.addingTimeInterval(-3), retweetOf: "1000"))
        return FakeXSeed(
            now: start,
            users: [
                .init(id: "100", username: "human", name: "Human"), .init(id: "200", username: "mirror_bot"), .init(id: "300", username: "friend"),
            ],
            accounts: [
                .init(
                    userID: "100", consumerKey: human.consumerKey, consumerSecret: human.consumerSecret,
                    accessToken: human.accessToken, accessTokenSecret: human.accessTokenSecret),
                .init(
                    userID: "200", consumerKey: bot.consumerKey, consumerSecret: bot.consumerSecret,
                    accessToken: bot.accessToken, accessTokenSecret: bot.accessTokenSecret),
            ],
            tweets: tweets, likes: ["100": ["1003", "1004"]], follows: ["100": ["300"], "200": ["100", "300"]])
    }

    struct RawResponse {
        var status: Int
        var headers: [String: String]
        var body: Data
        var json: Any? { try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) }
    }

    /// Sends a signed request and returns the raw answer.
    static func request(
        _ method: String, _ base: URL, _ pathAndQuery: String, as credentials: AccountCredentials,
        body: [String: Any]? = nil
    ) async throws -> RawResponse {
        let url = URL(string: base.absoluteString + pathAndQuery)!
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = HTTPMethod(rawValue: method)
        request.headers.add(
            name: "Authorization",
            value: OAuth1.authorizationHeader(
                method: method, url: url, credentials: credentials, nonce: OAuth1.makeNonce(), timestamp: Int(Date().timeIntervalSince1970)))
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: body)))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 1 << 22)
        var headers: [String: String] = [:]
        for header in response.headers { headers[header.name.lowercased()] = header.value }
        return RawResponse(status: Int(response.status.code), headers: headers, body: Data(buffer: bytes))
    }

    @Test("Every endpoint's answers, errors included, validate against the schemas, with no undocumented field")
    func responsesValidate() async throws {
        let server = FakeXServer(seed: Self.seed, logger: Logger(label: "contract", factory: { _ in SwiftLogNoOpLogHandler() }))
        let samples: [Sample] = try await server.withRunning { base in
            var samples: [Sample] = []
            func record(_ name: String, _ schema: String, status expected: Int, _ response: RawResponse) {
                #expect(response.status == expected, "\(name)")
                samples.append(Sample(name: name, schema: "#/components/schemas/" + schema, body: response.body))
            }
            let fields =
                "tweet.fields=author_id,conversation_id,created_at,entities,in_reply_to_user_id,referenced_tweets&expansions=author_id&user.fields=username"
            record(
                "users/me", "Get2UsersMeResponse", status: 200,
                try await Self.request("GET", base, "/2/users/me?user.fields=username", as: Self.human))
            let first = try await Self.request("GET", base, "/2/users/100/tweets?max_results=5&\(fields)", as: Self.human)
            record("user tweets, first page", "Get2UsersIdTweetsResponse", status: 200, first)
            for header in ["x-rate-limit-limit", "x-rate-limit-remaining", "x-rate-limit-reset"] { #expect(first.headers[header] != nil) }
            let token = try #require(((first.json as? [String: Any])?["meta"] as? [String: Any])?["next_token"] as? String)
            record(
                "user tweets, next page", "Get2UsersIdTweetsResponse", status: 200,
                try await Self.request("GET", base, "/2/users/100/tweets?max_results=5&pagination_token=\(token)&\(fields)", as: Self.human))
            record(
                "user tweets, nothing new", "Get2UsersIdTweetsResponse", status: 200,
                try await Self.request("GET", base, "/2/users/100/tweets?since_id=2002&\(fields)", as: Self.human))
            record(
                "user tweets, no fields asked", "Get2UsersIdTweetsResponse", status: 200,
                try await Self.request("GET", base, "/2/users/100/tweets?exclude=retweets,replies", as: Self.human))
            record(
                "liked tweets", "Get2UsersIdLikedTweetsResponse", status: 200,
                try await Self.request("GET", base, "/2/users/100/liked_tweets?\(fields)", as: Self.human))
            record(
                "home timeline", "Get2UsersIdTimelinesReverseChronologicalResponse", status: 200,
                try await Self.request("GET", base, "/2/users/100/timelines/reverse_chronological?max_results=1&\(fields)", as: Self.human))
            record(
                "mentions", "Get2UsersIdMentionsResponse", status: 200,
                try await Self.request("GET", base, "/2/users/200/mentions?\(fields)", as: Self.bot))
            record(
                "create post", "TweetCreateResponse", status: 201,
                try await Self.request("POST", base, "/2/tweets", as: Self.bot, body: ["text": "hello <world>"]))
            record(
                "create reply", "TweetCreateResponse", status: 201,
                try await Self.request(
                    "POST", base, "/2/tweets", as: Self.bot, body: ["text": "@friend yo", "reply": ["in_reply_to_tweet_id": "2000"]]))
            record(
                "post by id", "Get2TweetsIdResponse", status: 200,
                try await Self.request("GET", base, "/2/tweets/1002?tweet.fields=author_id", as: Self.human))
            #expect(await server.delete(tweetID: "1002"))
            record(
                "deleted post by id", "Get2TweetsIdResponse", status: 200,
                try await Self.request("GET", base, "/2/tweets/1002?tweet.fields=author_id", as: Self.human))
            record(
                "post by a malformed id", "InvalidRequestProblem", status: 400,
                try await Self.request("GET", base, "/2/tweets/nope", as: Self.human))
            // Today's self-serve access: the likes endpoints answer 403 client-forbidden (client-not-enrolled).
            record(
                "like, app not enrolled", "ClientForbiddenProblem", status: 403,
                try await Self.request("POST", base, "/2/users/200/likes", as: Self.bot, body: ["tweet_id": "1001"]))
            record(
                "unlike, app not enrolled", "ClientForbiddenProblem", status: 403,
                try await Self.request("DELETE", base, "/2/users/200/likes/1001", as: Self.bot))
            await server.setAccess(.enterprise)
            record(
                "like", "UsersLikesCreateResponse", status: 200,
                try await Self.request("POST", base, "/2/users/200/likes", as: Self.bot, body: ["tweet_id": "1001"]))
            record(
                "like a missing post", "UsersLikesCreateResponse", status: 200,
                try await Self.request("POST", base, "/2/users/200/likes", as: Self.bot, body: ["tweet_id": "999999"]))
            record(
                "unlike", "UsersLikesDeleteResponse", status: 200,
                try await Self.request("DELETE", base, "/2/users/200/likes/1001", as: Self.bot))
            record(
                "unknown user", "Get2UsersIdTweetsResponse", status: 200,
                try await Self.request("GET", base, "/2/users/999/tweets", as: Self.human))
            record(
                "duplicate post", "Problem", status: 403,
                try await Self.request("POST", base, "/2/tweets", as: Self.bot, body: ["text": "hello <world>"]))
            record(
                "max_results out of range", "InvalidRequestProblem", status: 400,
                try await Self.request("GET", base, "/2/users/100/tweets?max_results=1000", as: Self.human))
            record(
                "bad pagination token", "InvalidRequestProblem", status: 400,
                try await Self.request("GET", base, "/2/users/100/tweets?pagination_token=nope", as: Self.human))
            record(
                "another user's home timeline", "Problem", status: 403,
                try await Self.request("GET", base, "/2/users/100/timelines/reverse_chronological", as: Self.bot))
            var wrong = Self.human
            wrong.consumerSecret = "wrong"
            record("bad signature", "Problem", status: 401, try await Self.request("GET", base, "/2/users/me", as: wrong))
            await server.add(fault: FakeXFault(kind: .serviceUnavailable))
            record("503", "Problem", status: 503, try await Self.request("GET", base, "/2/users/me", as: Self.human))
            await server.add(fault: FakeXFault(kind: .usageCapped))
            record("usage capped", "UsageCapExceededProblem", status: 429, try await Self.request("GET", base, "/2/users/me", as: Self.human))
            await server.setRateLimit(1, for: "GET /2/users/:id/mentions")
            _ = try await Self.request("GET", base, "/2/users/200/mentions", as: Self.bot)
            let limited = try await Self.request("GET", base, "/2/users/200/mentions", as: Self.bot)
            record("rate limited", "Problem", status: 429, limited)
            #expect(limited.headers["x-rate-limit-remaining"] == "0")
            // Credits spent: every request answers 402 until more are bought.
            await server.setCredits(0.001)
            record("credits depleted", "Problem", status: 402, try await Self.request("GET", base, "/2/users/me", as: Self.human))
            return samples
        }
        #expect(samples.count == 28)

        // Validate with an independent OpenAPI validator (openapi-schema-validator from PyPI).
        let folder = FileManager.default.temporaryDirectory.appending(path: "fakex-contract-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let samplesFile = folder.appending(path: "samples.json")
        try Self.samplesJSON(samples).write(to: samplesFile)
        let spec = try #require(Bundle.module.url(forResource: "Resources/x-api-v2-openapi-2.166", withExtension: "json"))
        let (status, text) = try await PythonScript.run("validate-openapi.py", [spec.path, samplesFile.path])
        #expect(status == 0, "\(text)")
        #expect(text.contains("28 passed, 0 failed"), "\(text)")
    }

    /// The samples file the validator reads: name, schema and the body exactly as the fake sent it.
    static func samplesJSON(_ samples: [Sample]) throws -> Data {
        let objects: [[String: Any]] = try samples.map { sample in
            [
                "name": sample.name, "schema": sample.schema,
                "body": try JSONSerialization.jsonObject(with: sample.body, options: [.fragmentsAllowed]),
            ]
        }
        return try JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted])
    }
}
