import AsyncHTTPClient
import BotCore
import FakeMastodon
import Foundation
import MastodonAPI
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import TestSupport
import Testing

/// The fake instance's answers checked against Mastodon's OpenAPI document by an independent validator, as fake X's are.
@Suite("The fake Mastodon follows the OpenAPI document")
struct FakeMastodonContractTests {
    struct Sample: Sendable {
        var name: String
        var schema: String
        /// The JSON exactly as the fake sent it (one element of an array answer).
        var body: Data
    }

    struct RawResponse {
        var status: Int
        var headers: [String: String]
        var json: Any
    }

    static func request(
        _ method: String, _ base: URL, _ pathAndQuery: String, token: String?, body: [String: Any]? = nil,
        key: String? = nil
    ) async throws -> RawResponse {
        var request = HTTPClientRequest(url: base.absoluteString + pathAndQuery)
        request.method = HTTPMethod(rawValue: method)
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let key { request.headers.add(name: "Idempotency-Key", value: key) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: body)))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 1 << 22)
        var headers: [String: String] = [:]
        for header in response.headers { headers[header.name.lowercased()] = header.value }
        return RawResponse(
            status: Int(response.status.code), headers: headers,
            json: try JSONSerialization.jsonObject(with: Data(buffer: bytes), options: [.fragmentsAllowed]))
    }

    /// Opens the notification stream as `token`, runs `cause`, and returns the first `notification` event's data.
    static func streamedEvent(_ base: URL, token: String, cause: () async -> Void) async throws -> RawResponse {
        var request = HTTPClientRequest(url: base.absoluteString + "/api/v1/streaming/user/notification")
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        #expect(response.headers.first(name: "content-type") == "text/event-stream")
        await cause()
        var text = ""
        for try await chunk in response.body {
            text += String(buffer: chunk)
            if let event = text.components(separatedBy: "\n\n").first(where: { $0.contains("event: notification") }),
                let data = event.split(separator: "\n").first(where: { $0.hasPrefix("data: ") })
            {
                return RawResponse(
                    status: Int(response.status.code), headers: [:], json: try JSONSerialization.jsonObject(with: Data(data.dropFirst(6).utf8)))
            }
        }
        throw CancellationError()
    }

    @Test("An Idempotency-Key is kept an hour, as Mastodon keeps it: within it the same status, after it a new one")
    func idempotencyKeyExpires() async throws {
        try await withFakeMastodon { server, base async throws in
            let bot = MastodonFixture.botToken
            let body: [String: Any] = ["status": "once an hour"]
            let start = await server.now()
            await server.armClock(start, speed: 0)
            let first = try await Self.request("POST", base, "/api/v1/statuses", token: bot, body: body, key: "hourly")
            await server.armClock(start.addingTimeInterval(3_599), speed: 0)
            let within = try await Self.request("POST", base, "/api/v1/statuses", token: bot, body: body, key: "hourly")
            let id = { (response: RawResponse) in (response.json as? [String: Any])?["id"] as? String }
            #expect(id(within) != nil && id(within) == id(first), "within the hour, the same key gives the same status")
            await server.armClock(start.addingTimeInterval(3_601), speed: 0)
            let after = try await Self.request("POST", base, "/api/v1/statuses", token: bot, body: body, key: "hourly")
            #expect(id(after) != nil && id(after) != id(first), "past the hour, the key is forgotten and a new status made")
            #expect(await server.posted().count == 2)
        }
    }

    @Test(
        "While the clock runs (1,440x: Mastodon's hour in 2.5 real seconds), a key is kept a minute of real time too: a create sent again late still meets it"
    )
    func idempotencyKeyOutlivesRequestsInFlight() async throws {
        try await withFakeMastodon { server, base async throws in
            let bot = MastodonFixture.botToken
            let body: [String: Any] = ["status": "sent again late"]
            let start = await server.now()
            await server.armClock(start, speed: 1_440)
            let first = try await Self.request("POST", base, "/api/v1/statuses", token: bot, body: body, key: "late")
            // Two hours on the running clock, a moment of real time: the same request, late, meets its key.
            await server.armClock(start.addingTimeInterval(7_200), speed: 1_440)
            let late = try await Self.request("POST", base, "/api/v1/statuses", token: bot, body: body, key: "late")
            let id = { (response: RawResponse) in (response.json as? [String: Any])?["id"] as? String }
            #expect(id(late) != nil && id(late) == id(first), "sent again seconds later, the same status")
            // The clock stopped, the hour is the clock's alone (as in idempotencyKeyExpires).
            await server.armClock(start.addingTimeInterval(10_800), speed: 0)
            let stopped = try await Self.request("POST", base, "/api/v1/statuses", token: bot, body: body, key: "late")
            #expect(id(stopped) != nil && id(stopped) != id(first), "past the hour on a stopped clock, a new status")
            #expect(await server.posted().count == 2)
        }
    }

    @Test("Every endpoint's answers, errors included, validate against the schemas, with no undocumented field")
    func responsesValidate() async throws {
        let samples: [Sample] = try await withFakeMastodon { server, base async throws in
            var samples: [Sample] = []
            /// One sample per element of an array answer (each against `schema`), or the object itself.
            func record(_ name: String, _ schema: String, status expected: Int, _ response: RawResponse, minimumItems: Int = 1) {
                #expect(response.status == expected, "\(name): \(response.status)")
                if let items = response.json as? [Any] {
                    #expect(items.count >= minimumItems, "\(name): \(items.count) items")
                    for (index, item) in items.enumerated() {
                        samples.append(
                            Sample(name: "\(name) [\(index)]", schema: schema, body: (try? JSONSerialization.data(withJSONObject: item)) ?? Data()))
                    }
                } else {
                    samples.append(
                        Sample(
                            name: name, schema: schema,
                            body: (try? JSONSerialization.data(withJSONObject: response.json, options: [.fragmentsAllowed])) ?? Data()))
                }
            }
            let person = MastodonFixture.personToken
            let bot = MastodonFixture.botToken
            let statuses = try await Self.request("GET", base, "/api/v1/accounts/100/statuses?limit=3", token: person)
            record("account statuses", "Status", status: 200, statuses)
            for header in ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "link"] {
                #expect(statuses.headers[header] != nil, "\(header)")
            }
            #expect(statuses.headers["link"]?.contains("rel=\"next\"") == true)
            record(
                "verify_credentials", "CredentialAccount", status: 200,
                try await Self.request("GET", base, "/api/v1/accounts/verify_credentials", token: bot))
            record(
                "account statuses with a boost and every visibility", "Status", status: 200,
                try await Self.request("GET", base, "/api/v1/accounts/100/statuses", token: person))
            record("favourites", "Status", status: 200, try await Self.request("GET", base, "/api/v1/favourites", token: person))
            record(
                "mention notifications", "Notification", status: 200,
                try await Self.request("GET", base, "/api/v1/notifications?types%5B%5D=mention", token: bot))
            record("home timeline", "Status", status: 200, try await Self.request("GET", base, "/api/v1/timelines/home", token: bot))
            record(
                "status", "Status", status: 200, try await Self.request("GET", base, "/api/v1/statuses/\(MastodonFixture.statusID(0))", token: bot))
            let created = try await Self.request(
                "POST", base, "/api/v1/statuses", token: bot,
                body: ["status": "hello <world> & you", "visibility": "unlisted"], key: "one")
            record("post status", "Status", status: 200, created)
            let again = try await Self.request(
                "POST", base, "/api/v1/statuses", token: bot,
                body: ["status": "hello <world> & you", "visibility": "unlisted"], key: "one")
            #expect(
                (again.json as? [String: Any])?["id"] as? String == (created.json as? [String: Any])?["id"] as? String,
                "the same key, the same status")
            #expect(await server.posted().count == 1)
            record(
                "reply", "Status", status: 200,
                try await Self.request(
                    "POST", base, "/api/v1/statuses", token: bot,
                    body: [
                        "status": "@friend yo", "in_reply_to_id": MastodonFixture.statusID(10),
                        "visibility": "private",
                    ], key: "two"))
            record(
                "favourite", "Status", status: 200,
                try await Self.request("POST", base, "/api/v1/statuses/\(MastodonFixture.statusID(1))/favourite", token: bot))
            record("instance", "Instance", status: 200, try await Self.request("GET", base, "/api/v2/instance", token: nil))
            let replyID = try #require((await server.posted().last?.id))
            let context = try await Self.request("GET", base, "/api/v1/statuses/\(replyID)/context", token: bot)
            record("context", "Context", status: 200, context)
            #expect(((context.json as? [String: Any])?["ancestors"] as? [Any])?.count == 1)
            record("lookup", "Account", status: 200, try await Self.request("GET", base, "/api/v1/accounts/lookup?acct=friend", token: person))
            record(
                "lookup of an unknown account", "Error", status: 404,
                try await Self.request("GET", base, "/api/v1/accounts/lookup?acct=nobody%40elsewhere.example", token: person))
            record("app credentials", "Application", status: 200, try await Self.request("GET", base, "/api/v1/apps/verify_credentials", token: bot))
            record(
                "streamed notification", "Notification", status: 200,
                try await Self.streamedEvent(base, token: bot) {
                    await server.add(statuses: [
                        .init(
                            id: MastodonFixture.statusID(900), accountID: MastodonFixture.friendID, content: "<p>@mirror 今？</p>",
                            createdAt: await server.now(), mentionIDs: [MastodonFixture.botID])
                    ])
                })
            // OAuth: an application registered, a code exchanged with PKCE (RFC 7636's example verifier), the errors of a
            // code used twice and of a wrong secret, the token's application, and the token revoked.
            let oob = "urn:ietf:wg:oauth:2.0:oob"
            let registered = try await Self.request(
                "POST", base, "/api/v1/apps", token: nil,
                body: ["client_name": "mirror_bot", "redirect_uris": [oob], "scopes": "read write:statuses"])
            record("registered application", "CredentialApplication", status: 200, registered)
            let application = try #require(registered.json as? [String: Any])
            let clientID = try #require(application["client_id"] as? String)
            let clientSecret = try #require(application["client_secret"] as? String)
            let address = try #require(
                AuthorizeUser(clientID: clientID, redirectURI: oob, scopes: ["read"], codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
                    .address(on: base))
            let code = try await server.approveAuthorization(at: address, as: MastodonFixture.botID)
            let exchange: [String: Any] = [
                "grant_type": "authorization_code", "code": code, "client_id": clientID, "client_secret": clientSecret,
                "redirect_uri": oob, "code_verifier": "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
            ]
            let issued = try await Self.request("POST", base, "/oauth/token", token: nil, body: exchange)
            record("token", "Token", status: 200, issued)
            record("code used twice", "Error", status: 400, try await Self.request("POST", base, "/oauth/token", token: nil, body: exchange))
            record(
                "wrong client secret", "Error", status: 401,
                try await Self.request(
                    "POST", base, "/oauth/token", token: nil,
                    body: exchange.merging(["client_secret": "wrong"]) { $1 }))
            let oauthToken = try #require((issued.json as? [String: Any])?["access_token"] as? String)
            record(
                "app credentials of an OAuth token", "Application", status: 200,
                try await Self.request("GET", base, "/api/v1/apps/verify_credentials", token: oauthToken))
            let revoked = try await Self.request(
                "POST", base, "/oauth/revoke", token: nil,
                body: ["client_id": clientID, "client_secret": clientSecret, "token": oauthToken])
            #expect(revoked.status == 200 && (revoked.json as? [String: Any])?.isEmpty == true)
            record(
                "revoked token", "Error", status: 401, try await Self.request("GET", base, "/api/v1/accounts/verify_credentials", token: oauthToken))
            record("bad token", "Error", status: 401, try await Self.request("GET", base, "/api/v1/accounts/verify_credentials", token: "nope"))
            record(
                "outside the scopes", "Error", status: 403,
                try await Self.request(
                    "POST", base, "/api/v1/statuses", token: person,
                    body: ["status": "x"], key: "three"))
            record("unknown status", "Error", status: 404, try await Self.request("GET", base, "/api/v1/statuses/1", token: bot))
            record(
                "text too long", "Error", status: 422,
                try await Self.request(
                    "POST", base, "/api/v1/statuses", token: bot,
                    body: ["status": String(repeating: "あ", count: 501)], key: "four"))
            await server.setRateLimit(1)
            _ = try await Self.request("GET", base, "/api/v1/timelines/home", token: bot)
            let limited = try await Self.request("GET", base, "/api/v1/timelines/home", token: bot)
            record("rate limited", "Error", status: 429, limited)
            #expect(limited.headers["x-ratelimit-remaining"] == "0")
            return samples
        }
        #expect(samples.count >= 30)

        let folder = FileManager.default.temporaryDirectory.appending(path: "fakemastodon-contract-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let samplesFile = folder.appending(path: "samples.json")
        let objects = try samples.map { sample -> [String: Any] in
            [
                "name": sample.name, "schema": "#/components/schemas/" + sample.schema,
                "body": try JSONSerialization.jsonObject(with: sample.body, options: [.fragmentsAllowed]),
            ]
        }
        try JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted]).write(to: samplesFile)
        let spec = try #require(Bundle.module.url(forResource: "Resources/mastodon-openapi", withExtension: "json"))
        let (status, text) = try await PythonScript.run("validate-openapi.py", [spec.path, samplesFile.path])
        #expect(status == 0, "\(text)")
        #expect(text.contains("\(samples.count) passed, 0 failed"), "\(text)")
    }
}
