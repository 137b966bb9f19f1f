import AsyncHTTPClient
import BlueskyAPI
import FakeBluesky
import Foundation
import NIOCore
import NIOFoundationCompat
import Testing

import struct FakeX.FakeXPersona

/// The fake Bluesky against the lexicons: every answer of every method the bot calls validates against its
/// method's output schema, and what the fake refuses it refuses as the lexicon says.
@Suite("The fake Bluesky against the AT Protocol lexicons")
struct FakeBlueskyContractTests {
    /// One raw XRPC request: its status and JSON body.
    static func xrpc(_ base: URL, _ nsid: String, query: [(String, String)] = [], input: JSONValue? = nil, bearer: String? = nil) async throws
        -> (status: Int, body: JSONValue)
    {
        var components = URLComponents(url: base.appendingPathComponent("xrpc/\(nsid)"), resolvingAgainstBaseURL: false)!
        if !query.isEmpty { components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) } }
        var request = HTTPClientRequest(url: components.url!.absoluteString)
        request.method = input == nil ? .GET : .POST
        if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        if let input {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(input)))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), try JSONDecoder().decode(JSONValue.self, from: Data(buffer: body)))
    }

    @Test("Every answer of every method the bot calls validates against its lexicon's output; errors are {error, message}")
    func answersMatchTheLexicons() async throws {
        let lexicons = try LexiconValidator()
        #expect(lexicons.count > 100)
        let server = FakeBlueskyServer(seed: BlueskyFixture.seed, logger: BlueskyFixture.quiet_logger)
        try await server.withRunning { url in
            func check(_ nsid: String, query: [(String, String)] = [], input: JSONValue? = nil, bearer: String? = nil) async throws -> JSONValue {
                let (status, body) = try await Self.xrpc(url, nsid, query: query, input: input, bearer: bearer)
                #expect(status == 200, "\(nsid): \(status) \(body)")
                #expect(lexicons.problems(ofOutput: body, of: nsid) == [], "\(nsid)")
                return body
            }
            let session = try await check(
                "com.atproto.server.createSession",
                input: .object(["identifier": .string("mirror.test"), "password": .string(BlueskyFixture.botPassword)]))
            let access = try #require(session["accessJwt"]?.stringValue)
            let refresh = try #require(session["refreshJwt"]?.stringValue)
            let renewed = try await check("com.atproto.server.refreshSession", input: .object([:]), bearer: refresh)
            let token = try #require(renewed["accessJwt"]?.stringValue)
            #expect(token != access)
            _ = try await check("com.atproto.identity.resolveHandle", query: [("handle", "person.test")])
            _ = try await check("app.bsky.actor.getProfile", query: [("actor", "quiet.test")])
            let feed = try await check(
                "app.bsky.feed.getAuthorFeed", query: [("actor", BlueskyFixture.person), ("limit", "3"), ("filter", "posts_with_replies")])
            guard case .array(let items)? = feed["feed"] else {
                Issue.record("no feed")
                return
            }
            #expect(items.count == 3)
            let cursor = try #require(feed["cursor"]?.stringValue)
            let rest = try await check("app.bsky.feed.getAuthorFeed", query: [("actor", BlueskyFixture.person), ("cursor", cursor)])
            guard case .array(let older)? = rest["feed"] else {
                Issue.record("no feed")
                return
            }
            // Four posts, a reply and a repost: six items over the two pages, the repost with its reason.
            #expect(items.count + older.count == 6)
            #expect((items + older).filter { $0["reason"]?["$type"]?.stringValue == "app.bsky.feed.defs#reasonRepost" }.count == 1)
            _ = try await check("app.bsky.feed.getTimeline", query: [("limit", "10")], bearer: token)
            _ = try await check("app.bsky.feed.getActorLikes", query: [("actor", "mirror.test")], bearer: token)
            let text = "@friend.test それな 見て https://example.com/b #日本"
            let facets = await RichText.facets(of: text) { $0 == "friend.test" ? BlueskyFixture.friend : nil }
            let record = PostRecord(text: text, createdAt: "2025-11-24T16:00:00.000Z", langs: ["ja"], facets: facets)
            let recordJSON = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(record))
            #expect(lexicons.problems(ofRecord: recordJSON, in: "app.bsky.feed.post") == [])
            let rkey = TID(date: BlueskyFixture.start, purpose: "slot 2025-11-24 16:00").description
            let written = try await check(
                "com.atproto.repo.putRecord",
                input: .object([
                    "repo": .string(BlueskyFixture.bot), "collection": .string("app.bsky.feed.post"), "rkey": .string(rkey), "record": recordJSON,
                ]), bearer: token)
            let uri = try #require(written["uri"]?.stringValue)
            _ = try await check(
                "app.bsky.feed.getPosts", query: [("uris", uri), ("uris", BlueskyFixture.uri(BlueskyFixture.person, BlueskyFixture.tid(240)))])
            _ = try await check(
                "com.atproto.repo.getRecord", query: [("repo", BlueskyFixture.bot), ("collection", "app.bsky.actor.profile"), ("rkey", "self")])
            // The friend's mention of the bot, then the bot's notifications.
            let friendSession = try await check(
                "com.atproto.server.createSession",
                input: .object(["identifier": .string("mirror.test"), "password": .string(BlueskyFixture.botPassword)]))
            _ = friendSession
            await server.add(
                post: .init(
                    authorDID: BlueskyFixture.friend, rkey: BlueskyFixture.tid(1),
                    record: PostRecord(
                        text: "@mirror.test 元気？", createdAt: BlueskyFixture.time(1), langs: ["ja"],
                        facets: [Facet(index: ByteSlice(byteStart: 0, byteEnd: 12), features: [.mention(did: BlueskyFixture.bot)])]),
                    indexedAt: BlueskyFixture.start.addingTimeInterval(-60)))
            let notifications = try await check(
                "app.bsky.notification.listNotifications", query: [("reasons", "mention"), ("reasons", "reply")], bearer: token)
            guard case .array(let listed)? = notifications["notifications"] else {
                Issue.record("no notifications")
                return
            }
            #expect(listed.map { $0["reason"]?.stringValue } == ["mention"])
            _ = try await check(
                "com.atproto.repo.deleteRecord",
                input: .object([
                    "repo": .string(BlueskyFixture.bot), "collection": .string("app.bsky.feed.post"), "rkey": .string(rkey),
                ]), bearer: token)

            // Errors: an expired access token, a method not served, a bad password.
            await server.expireAccessTokens()
            let expired = try await Self.xrpc(url, "app.bsky.feed.getTimeline", bearer: token)
            #expect(expired.status == 400 && expired.body["error"]?.stringValue == "ExpiredToken" && expired.body["message"]?.stringValue != nil)
            let spent = try await Self.xrpc(url, "com.atproto.server.refreshSession", input: .object([:]), bearer: refresh)
            #expect(spent.status == 400 && spent.body["error"]?.stringValue == "ExpiredToken", "a refresh token works once")
            let unknown = try await Self.xrpc(url, "app.bsky.feed.searchPosts", query: [("q", "x")])
            #expect(unknown.status == 501 && unknown.body["error"]?.stringValue == "MethodNotImplemented")
            let refused = try await Self.xrpc(
                url, "com.atproto.server.createSession",
                input: .object(["identifier": .string("mirror.test"), "password": .string("wrong")]))
            #expect(refused.status == 401 && refused.body["error"]?.stringValue == "AuthenticationRequired")
        }
    }

    @Test(
        "The fake refuses a post the lexicon refuses: 301 graphemes, facets counted in characters not bytes, a reply to a post that is not there, a key that is not a TID"
    )
    func refusesWhatTheLexiconRefuses() async throws {
        let server = FakeBlueskyServer(seed: BlueskyFixture.seed, logger: BlueskyFixture.quiet_logger)
        try await server.withRunning { url in
            let session = try await Self.xrpc(
                url, "com.atproto.server.createSession",
                input: .object(["identifier": .string("mirror.test"), "password": .string(BlueskyFixture.botPassword)]))
            let token = try #require(session.body["accessJwt"]?.stringValue)
            func put(_ record: PostRecord, rkey: String = TID(date: BlueskyFixture.start, clockID: 1).description) async throws -> (Int, String?) {
                let json = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(record))
                let answer = try await Self.xrpc(
                    url, "com.atproto.repo.putRecord",
                    input: .object([
                        "repo": .string(BlueskyFixture.bot), "collection": .string("app.bsky.feed.post"), "rkey": .string(rkey), "record": json,
                    ]), bearer: token)
                return (answer.status, answer.body["message"]?.stringValue)
            }
            let at = "2025-11-24T16:00:00Z"
            #expect(try await put(PostRecord(text: String(repeating: "あ", count: 300), createdAt: at)).0 == 200)
            let long = try await put(PostRecord(text: String(repeating: "あ", count: 301), createdAt: at))
            #expect(long.0 == 400 && long.1?.contains("300 graphemes") == true)
            // "見て https://…": the link starts at character 3, byte 7. Counted in characters, the range covers other text
            // ("て https://example.c"); in "これ見て https://…" its start (5) falls inside a character.
            let text = "見て https://example.com/a"
            let byCharacters = Facet(index: ByteSlice(byteStart: 3, byteEnd: 24), features: [.link(uri: "https://example.com/a")])
            let wrong = try await put(PostRecord(text: text, createdAt: at, facets: [byCharacters]))
            #expect(wrong.0 == 400 && wrong.1?.contains("a link covers") == true, "\(wrong)")
            let inside = Facet(index: ByteSlice(byteStart: 5, byteEnd: 26), features: [.link(uri: "https://example.com/a")])
            let split = try await put(PostRecord(text: "これ" + text, createdAt: at, facets: [inside]))
            #expect(split.0 == 400 && split.1?.contains("inside a character") == true, "\(split)")
            let byBytes = await RichText.facets(of: text) { _ in nil }
            #expect(byBytes == [Facet(index: ByteSlice(byteStart: 7, byteEnd: 28), features: [.link(uri: "https://example.com/a")])])
            #expect(try await put(PostRecord(text: text, createdAt: at, facets: byBytes)).0 == 200)
            let missing = StrongRef(uri: BlueskyFixture.uri(BlueskyFixture.friend, BlueskyFixture.tid(999)), cid: "bafyreiabc")
            let orphan = try await put(PostRecord(text: "はい", createdAt: at, reply: ReplyRef(root: missing, parent: missing)))
            #expect(orphan.0 == 400 && orphan.1?.contains("Record/reply/root") == true)
            let badKey = try await put(PostRecord(text: "はい", createdAt: at), rkey: "slot-2025-11-24")
            #expect(badKey.0 == 400 && badKey.1?.contains("not a TID") == true)
        }
    }

    @Test(
        "fake-x's generated persona on Bluesky: every post a valid record whose facets cover exactly their link or @handle, every reply's parent and root there, the person's retweets as reposts never as posts, the bot labelled; /admin/state names the persona's ids and /admin/clock arms the clock"
    )
    func personaOnBluesky() async throws {
        let lexicons = try LexiconValidator()
        let persona = FakeXPersona(.init(randomSeed: 7, dayStart: BlueskyFixture.start, historyDays: 20, postsPerDay: 12, followedAccounts: 4))
        let seed = await FakeBlueskySeed(persona: persona.persona)
        let handles = Dictionary(uniqueKeysWithValues: seed.accounts.map { ($0.did, $0.handle) })
        let uris = Set(seed.posts.map { "at://\($0.authorDID)/app.bsky.feed.post/\($0.rkey)" })
        var mentions = 0
        var links = 0
        for post in seed.posts {
            let json = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(post.record))
            #expect(lexicons.problems(ofRecord: json, in: PostRecord.type) == [], "\(post.record.text)")
            #expect(TID(post.rkey) != nil && post.record.langs == ["ja"])
            let bytes = Array(post.record.text.utf8)
            for facet in post.record.facets ?? [] {
                let covered = String(decoding: bytes[facet.index.byteStart..<facet.index.byteEnd], as: UTF8.self)
                switch facet.features.first {
                case .link(let uri)?:
                    links += 1
                    #expect(covered == uri)
                case .mention(let did)?:
                    mentions += 1
                    #expect(covered == "@" + (handles[did] ?? "?"), "\(post.record.text)")
                default: Issue.record("an unexpected facet in \(post.record.text)")
                }
            }
            if let reply = post.record.reply { #expect(uris.contains(reply.parent.uri) && uris.contains(reply.root.uri)) }
            #expect(!post.record.text.hasPrefix("RT @") || post.authorDID != "did:plc:persona\(persona.human.id)")
        }
        #expect(links > 0 && mentions > 0)
        let human = persona.seed.tweets.filter { $0.authorID == persona.human.id }
        #expect(seed.posts.filter { $0.authorDID == "did:plc:persona\(persona.human.id)" }.count == human.filter { $0.retweetOf == nil }.count)
        #expect(seed.reposts.count == human.filter { $0.retweetOf != nil }.count && !seed.reposts.isEmpty)
        let bot = try #require(seed.accounts.first { $0.personaID == persona.bot.id })
        #expect(bot.labels == ["bot"] && bot.appPassword == "demo-bot-app-password" && bot.handle == "hanako-mirror.bsky.example")

        let server = FakeBlueskyServer(seed: seed, logger: BlueskyFixture.quiet_logger)
        try await server.withRunning { url in
            func admin(_ path: String, body: String? = nil) async throws -> JSONValue {
                var request = HTTPClientRequest(url: url.appendingPathComponent(path).absoluteString)
                if let body {
                    request.method = .POST
                    request.body = .bytes(ByteBuffer(string: body))
                }
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
                #expect(response.status.code == 200)
                return try JSONDecoder().decode(JSONValue.self, from: Data(buffer: try await response.body.collect(upTo: 1 << 24)))
            }
            // Armed a day ahead with the clock stopped: set by the next XRPC request, not before.
            let later = BlueskyFixture.start.addingTimeInterval(86_400)
            _ = try await admin(
                "admin/clock", body: #"{"now": "\#(ISO8601DateFormatter().string(from: later))", "speed": 0, "on_first_request": true}"#)
            #expect(await server.now() == BlueskyFixture.start, "armed, not yet set")
            let state = try await admin("admin/state")
            _ = try await Self.xrpc(url, "com.atproto.identity.resolveHandle", query: [("handle", bot.handle)])
            #expect(await server.now() == later, "set by the first request after arming")
            #expect(state["network"]?.stringValue == "bluesky" && state["posted"] == .array([]))
            let first = try #require(seed.posts.first)
            let number = String(try #require(TID(first.rkey)).value)
            #expect(state["aliases"]?[number]?.stringValue == first.personaID)
            #expect(state["aliases"]?[bot.did]?.stringValue == persona.bot.id)
        }
    }
}
