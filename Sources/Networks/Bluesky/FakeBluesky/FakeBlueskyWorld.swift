import BlueskyAPI
import BotClock
import Foundation

/// An answer of the fake: status, JSON body, extra headers.
struct FakeBlueskyResponse: Error, Sendable {
    var status: Int
    var body: Data
    var headers: [(String, String)] = []

    static func json<Value: Encodable>(_ value: Value) -> FakeBlueskyResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return FakeBlueskyResponse(status: 200, body: (try? encoder.encode(value)) ?? Data("{}".utf8))
    }

    /// An XRPC error: `{"error": name, "message": message}`.
    static func error(_ status: Int, _ name: String, _ message: String) -> FakeBlueskyResponse {
        json(["error": name, "message": message]).with(status: status)
    }

    func with(status: Int) -> FakeBlueskyResponse {
        var copy = self
        copy.status = status
        return copy
    }
}

/// The fake's state: accounts, repositories of records, sessions, the clock, faults and counts.
actor FakeBlueskyWorld {
    struct StoredRecord {
        var uri: ATURI
        var value: JSONValue
        var cid: String
        var indexedAt: Date
        var seq: Int
    }

    private(set) var accounts: [String: FakeBlueskySeed.Account] = [:]
    /// The persona ids of seeded posts (by AT URI) and accounts (by DID), for `/admin/state`.
    private(set) var personaIDs: [String: String] = [:]
    private(set) var records: [String: StoredRecord] = [:] { didSet { postsAreStale = true } }
    /// The posts newest first (by `order`), made again after the records change; and each post record decoded, by its
    /// CID (a fleet's bots read far more often than they write: a request no longer sorts and decodes every post).
    private var postsAreStale = true
    private var newestFirstPosts: [StoredRecord] = []
    private var postSummaries: [PostSummary] = []
    private var decodedPosts: [String: PostRecord] = [:]

    /// What a page of posts is chosen by, beside each post of the index (read without copying the record).
    struct PostSummary {
        var indexedAt: Date
        var order: Int
        /// The author's DID.
        var repo: String
        /// The DID of the author of the post it answers, and the DIDs it mentions.
        var repliesTo: String?
        var mentions: [String]
    }
    private(set) var reposts: [(seq: Int, repost: FakeBlueskySeed.Repost)] = []
    private var nextSeq = 1
    private var accessTokens: [String: (did: String, expires: Date)] = [:]
    /// The OAuth authorization server's requests, codes, grants and nonces.
    var oauth = FakeBlueskyOAuthState()
    private var refreshTokens: [String: String] = [:]
    private var tokenCounter = 0
    private var logins: [String: [Date]] = [:]
    private var faults: [(nsid: String, fault: FakeBlueskyFault)] = []
    private(set) var requestCounts: [String: Int] = [:]
    private(set) var createSessionCalls = 0
    /// `createSession` calls by the handle or DID they named.
    private(set) var createSessionCallsByIdentifier: [String: Int] = [:]
    private(set) var refreshSessionCalls = 0
    /// Record writes in order: (method, uri).
    private(set) var writes: [(method: String, uri: String)] = []
    private var clockBase: Date
    private var clockSetAt = ContinuousClock.now
    private(set) var speed: Double = 0
    /// How long an access token lives.
    var accessLifetime: TimeInterval = 2 * 3_600
    /// The service URL the DID documents name as each account's PDS.
    var pdsURL = "http://127.0.0.1"

    init(seed: FakeBlueskySeed) {
        clockBase = seed.now
        var records: [String: StoredRecord] = [:]
        var seq = 1
        func store(_ uri: ATURI, _ value: JSONValue, at date: Date) {
            records[uri.description] = StoredRecord(uri: uri, value: value, cid: Self.cid(of: value), indexedAt: date, seq: seq)
            seq += 1
        }
        for account in seed.accounts {
            accounts[account.did] = account
            var profile: [String: JSONValue] = [
                "$type": .string("app.bsky.actor.profile"), "description": .string(account.description),
                "displayName": .string(account.handle),
            ]
            if !account.labels.isEmpty {
                profile["labels"] = .object([
                    "$type": .string(SelfLabels.type),
                    "values": .array(account.labels.map { .object(["val": .string($0)]) }),
                ])
            }
            store(
                ATURI(repo: account.did, collection: "app.bsky.actor.profile", rkey: "self"), .object(profile),
                at: seed.now.addingTimeInterval(-86_400 * 365))
        }
        for post in seed.posts {
            let uri = ATURI(repo: post.authorDID, collection: PostRecord.type, rkey: post.rkey)
            store(uri, Self.json(post.record), at: post.indexedAt)
            if let id = post.personaID { personaIDs[uri.description] = id }
        }
        for account in seed.accounts { if let id = account.personaID { personaIDs[account.did] = id } }
        for repost in seed.reposts.sorted(by: { $0.at < $1.at }) {
            reposts.append((seq, repost))
            seq += 1
        }
        self.records = records
        nextSeq = seq
    }

    // MARK: Clock, faults, counts

    var now: Date { clockBase.addingTimeInterval(speed * (ContinuousClock.now - clockSetAt).seconds) }
    func setClock(_ date: Date, speed newSpeed: Double?) {
        clockBase = date
        clockSetAt = .now
        if let newSpeed { speed = newSpeed }
    }
    func advanceClock(by seconds: TimeInterval) { setClock(now.addingTimeInterval(seconds), speed: nil) }
    func add(fault: FakeBlueskyFault, for nsid: String) { faults.append((nsid, fault)) }
    func takeFault(for nsid: String) -> FakeBlueskyFault? {
        guard let index = faults.firstIndex(where: { $0.nsid == nsid }) else { return nil }
        return faults.remove(at: index).fault
    }
    func countRequest(_ nsid: String) {
        if let (date, newSpeed) = armed {
            armed = nil
            setClock(date, speed: newSpeed)
        }
        requestCounts[nsid, default: 0] += 1
    }
    private var armed: (Date, Double)?
    private var lostAnswerRate = 0.0
    private var lostAnswerState: UInt64 = 0
    /// Cuts off the answer of `rate` of the record writes after the write is made, in an order drawn from `seed`.
    func setLostAnswerRate(_ rate: Double, seed: UInt64) {
        lostAnswerRate = rate
        lostAnswerState = seed
    }
    /// Whether this write's answer is to be cut off (a SplitMix64 draw against the rate).
    func drawLostAnswer() -> Bool {
        guard lostAnswerRate > 0 else { return false }
        lostAnswerState &+= 0x9E37_79B9_7F4A_7C15
        var z = lostAnswerState
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(1 << 53) < lostAnswerRate
    }
    /// Sets the clock when the next request arrives.
    func armClock(_ date: Date, speed newSpeed: Double) { armed = (date, newSpeed) }
    /// Like records written so far, by anyone, through the API.
    var likesWritten: Int { writes.filter { $0.uri.contains("/app.bsky.feed.like/") }.count }
    func setPDS(_ url: String) { pdsURL = url }
    /// Every access token expires now (refresh tokens still work).
    func expireAccessTokens() { for key in accessTokens.keys { accessTokens[key]?.expires = now } }
    /// Every token of every kind is revoked (the app password changed).
    func revokeAllTokens() {
        accessTokens = [:]
        refreshTokens = [:]
    }
    /// The account deleted its app password (Settings → App passwords): it logs in no more, and its sessions end.
    func revokeAppPassword(of did: String) {
        accounts[did]?.appPassword = nil
        accessTokens = accessTokens.filter { $0.value.did != did }
        refreshTokens = refreshTokens.filter { $0.value != did }
    }

    /// Records of `collection` by `did`, oldest first.
    func records(of did: String, in collection: String) -> [(uri: String, value: JSONValue, cid: String)] {
        records.values.filter { $0.uri.repo == did && $0.uri.collection == collection }.sorted { $0.seq < $1.seq }
            .map { ($0.uri.description, $0.value, $0.cid) }
    }

    // MARK: Sessions

    /// The caller of a request with `authorization`, or the error; `refresh` wants a refresh token.
    func authenticate(_ authorization: String?, refresh: Bool = false) -> Result<String, FakeBlueskyResponse> {
        guard let authorization, authorization.hasPrefix("Bearer ") else {
            return .failure(.error(401, "AuthenticationRequired", "Authentication Required"))
        }
        let token = String(authorization.dropFirst(7))
        if refresh {
            guard let did = refreshTokens[token] else { return .failure(.error(400, "ExpiredToken", "Token has been revoked")) }
            return .success(did)
        }
        guard let access = accessTokens[token] else { return .failure(.error(400, "InvalidToken", "Token could not be verified")) }
        guard access.expires > now else { return .failure(.error(400, "ExpiredToken", "Token has expired")) }
        return .success(access.did)
    }

    func createSession(identifier: String, password: String) -> FakeBlueskyResponse {
        createSessionCalls += 1
        createSessionCallsByIdentifier[identifier, default: 0] += 1
        guard let account = accounts.values.first(where: { $0.handle == identifier || $0.did == identifier }) else {
            return .error(401, "AuthenticationRequired", "Invalid identifier or password")
        }
        let recent = (logins[account.did] ?? []).filter { now.timeIntervalSince($0) < 300 }
        guard recent.count < 30 else {
            var refusal = FakeBlueskyResponse.error(429, "RateLimitExceeded", "Rate Limit Exceeded")
            refusal.headers = [
                ("ratelimit-limit", "30"), ("ratelimit-remaining", "0"),
                ("ratelimit-reset", String(Int(recent[0].addingTimeInterval(300).timeIntervalSince1970))), ("ratelimit-policy", "30;w=300"),
            ]
            return refusal
        }
        guard let expected = account.appPassword, expected == password else {
            return .error(401, "AuthenticationRequired", "Invalid identifier or password")
        }
        logins[account.did, default: []] = recent + [now]
        return session(for: account.did)
    }

    func refreshSession(did: String, refreshToken: String) -> FakeBlueskyResponse {
        refreshSessionCalls += 1
        refreshTokens[refreshToken] = nil  // single use
        return session(for: did)
    }

    private func session(for did: String) -> FakeBlueskyResponse {
        tokenCounter += 1
        let access = "access-\(tokenCounter)-\(did)"
        let refresh = "refresh-\(tokenCounter)-\(did)"
        accessTokens[access] = (did, now.addingTimeInterval(accessLifetime))
        refreshTokens[refresh] = did
        let handle = accounts[did]?.handle ?? "handle.invalid"
        return .json(
            JSONValue.object([
                "accessJwt": .string(access), "refreshJwt": .string(refresh), "handle": .string(handle), "did": .string(did),
                "didDoc": didDocument(of: did), "active": .bool(true),
            ]))
    }

    /// `did`'s DID document: its handle, and this server as its PDS.
    func didDocument(of did: String) -> JSONValue {
        let handle = accounts[did]?.handle ?? "handle.invalid"
        return .object([
            "@context": .array([.string("https://www.w3.org/ns/did/v1")]), "id": .string(did),
            "alsoKnownAs": .array([.string("at://\(handle)")]),
            "service": .array([
                .object(["id": .string("#atproto_pds"), "type": .string("AtprotoPersonalDataServer"), "serviceEndpoint": .string(pdsURL)])
            ]),
        ])
    }

    /// `com.atproto.server.getSession`: the caller's DID and handle.
    func getSession(of did: String) -> FakeBlueskyResponse {
        .json(JSONValue.object(["did": .string(did), "handle": .string(accounts[did]?.handle ?? "handle.invalid"), "active": .bool(true)]))
    }

    /// `com.atproto.identity.resolveIdentity`: a handle's or DID's DID, handle and DID document.
    func resolveIdentity(_ identifier: String) -> FakeBlueskyResponse {
        guard let did = did(of: identifier) else {
            return identifier.hasPrefix("did:")
                ? .error(404, "DidNotFound", "DID not found") : .error(404, "HandleNotFound", "Unable to resolve handle")
        }
        return .json(
            JSONValue.object(["did": .string(did), "handle": .string(accounts[did]?.handle ?? "handle.invalid"), "didDoc": didDocument(of: did)]))
    }

    // MARK: Identity and profiles

    func did(of actor: String) -> String? {
        if accounts[actor] != nil { return actor }
        return accounts.values.first { $0.handle == actor.lowercased() }?.did
    }

    func resolveHandle(_ handle: String) -> FakeBlueskyResponse {
        guard let did = accounts.values.first(where: { $0.handle == handle.lowercased() })?.did else {
            return .error(400, "InvalidRequest", "Unable to resolve handle")
        }
        return .json(["did": did])
    }

    func profileView(of did: String, withDescription: Bool) -> ProfileView {
        let profile = records[ATURI(repo: did, collection: "app.bsky.actor.profile", rkey: "self").description]
        let labels = Self.selfLabels(of: profile?.value).map {
            Label(src: did, uri: "at://\(did)/app.bsky.actor.profile/self", val: $0, cts: Self.time(now))
        }
        return ProfileView(
            did: did, handle: accounts[did]?.handle ?? "handle.invalid", displayName: profile?.value["displayName"]?.stringValue,
            description: withDescription ? profile?.value["description"]?.stringValue ?? "" : nil, labels: labels)
    }

    func getProfile(_ actor: String) -> FakeBlueskyResponse {
        guard let did = did(of: actor) else { return .error(400, "InvalidRequest", "Profile not found") }
        return .json(profileView(of: did, withDescription: true))
    }

    // MARK: Records

    func getRecord(repo: String, collection: String, rkey: String) -> FakeBlueskyResponse {
        guard let did = did(of: repo), let stored = records[ATURI(repo: did, collection: collection, rkey: rkey).description] else {
            return .error(400, "RecordNotFound", "Could not locate record: at://\(repo)/\(collection)/\(rkey)")
        }
        return .json(JSONValue.object(["uri": .string(stored.uri.description), "cid": .string(stored.cid), "value": stored.value]))
    }

    /// `putRecord` (`rkey` given) or `createRecord` (a new TID): the record is checked against its lexicon first.
    func write(caller: String, input: JSONValue, method: String) -> FakeBlueskyResponse {
        guard let repo = input["repo"]?.stringValue, let collection = input["collection"]?.stringValue, let record = input["record"] else {
            return .error(400, "InvalidRequest", "Input must have the properties \"repo\", \"collection\" and \"record\"")
        }
        guard did(of: repo) == caller else { return .error(401, "AuthRequiredError", "Auth may only write to its own repo") }
        let rkey: String
        if let given = input["rkey"]?.stringValue {
            rkey = given
        } else {
            guard method == "com.atproto.repo.createRecord" else { return .error(400, "InvalidRequest", "Input must have the property \"rkey\"") }
            rkey = TID(date: now, clockID: UInt64(nextSeq)).description
        }
        if let problem = FakeBlueskyLexicon.problem(with: record, in: collection, rkey: rkey, world: self) {
            return .error(400, "InvalidRecord", problem)
        }
        let uri = ATURI(repo: caller, collection: collection, rkey: rkey)
        if let swap = input["swapRecord"]?.stringValue, records[uri.description]?.cid != swap {
            return .error(400, "InvalidSwap", "Record was at \(records[uri.description]?.cid ?? "null")")
        }
        if method == "com.atproto.repo.createRecord", records[uri.description] != nil {
            return .error(400, "InvalidRequest", "Record already exists at \(uri)")
        }
        writes.append((method, uri.description))
        let stored = store(uri, record, at: records[uri.description]?.indexedAt ?? now)
        return .json(["uri": stored.uri.description, "cid": stored.cid])
    }

    func deleteRecord(caller: String, input: JSONValue) -> FakeBlueskyResponse {
        guard let repo = input["repo"]?.stringValue, let collection = input["collection"]?.stringValue, let rkey = input["rkey"]?.stringValue else {
            return .error(400, "InvalidRequest", "Input must have the properties \"repo\", \"collection\" and \"rkey\"")
        }
        guard did(of: repo) == caller else { return .error(401, "AuthRequiredError", "Auth may only write to its own repo") }
        let uri = ATURI(repo: caller, collection: collection, rkey: rkey)
        writes.append(("com.atproto.repo.deleteRecord", uri.description))
        records[uri.description] = nil
        return .json([String: String]())
    }

    /// Deletes a post as its author deleting it in an app; false when unknown.
    func delete(uri: String) -> Bool { records.removeValue(forKey: uri) != nil }

    /// Adds a post (visible at its time).
    func add(post: FakeBlueskySeed.Post) {
        store(ATURI(repo: post.authorDID, collection: PostRecord.type, rkey: post.rkey), Self.json(post.record), at: post.indexedAt)
    }

    /// Stores a record. An index of the posts that was up to date is kept so: a record of another kind leaves it as it
    /// was, a new post is put in its place (a fleet's bots write every few seconds between them, and sorting every post
    /// again after each write would hold the service up); a post replaced makes it again.
    @discardableResult
    private func store(_ uri: ATURI, _ value: JSONValue, at date: Date) -> StoredRecord {
        let stored = StoredRecord(uri: uri, value: value, cid: Self.cid(of: value), indexedAt: date, seq: nextSeq)
        nextSeq += 1
        let wasFresh = !postsAreStale
        let isNew = records[uri.description] == nil
        records[uri.description] = stored
        guard wasFresh else { return stored }
        if uri.collection != PostRecord.type {
            postsAreStale = false
        } else if isNew {
            let order = Self.order(stored.indexedAt, stored.seq)
            let place = firstPlace { $0.order < order }
            newestFirstPosts.insert(stored, at: place)
            postSummaries.insert(summary(of: stored), at: place)
            postsAreStale = false
        }
        return stored
    }

    /// The first place in the index (newest first) whose summary `isPast` says is past a bound (`isPast` false before
    /// it, true from it on: the index is sorted), by a binary search.
    private func firstPlace(where isPast: (PostSummary) -> Bool) -> Int {
        var low = 0
        var high = postSummaries.count
        while low < high {
            let middle = (low + high) / 2
            if isPast(postSummaries[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// What a page of posts is chosen by, for one post.
    private func summary(of stored: StoredRecord) -> PostSummary {
        let record = postRecord(stored)
        let mentions = (record?.facets ?? []).flatMap { $0.features }.compactMap { feature -> String? in
            if case .mention(let did) = feature { return did } else { return nil }
        }
        return PostSummary(
            indexedAt: stored.indexedAt, order: Self.order(stored.indexedAt, stored.seq), repo: stored.uri.repo,
            repliesTo: record?.reply.flatMap { ATURI($0.parent.uri)?.repo }, mentions: mentions)
    }

    func exists(_ reference: StrongRef) -> Bool { records[reference.uri]?.cid == reference.cid }
    func accountExists(_ did: String) -> Bool { accounts[did] != nil }

    // MARK: Views

    private func visiblePosts() -> [StoredRecord] {
        let current = now
        return newestFirst().filter { $0.indexedAt <= current }
    }

    /// Every post record, newest first by `order` (the index made again if the records changed).
    private func newestFirst() -> [StoredRecord] {
        if postsAreStale {
            newestFirstPosts = records.values.filter { $0.uri.collection == PostRecord.type }
                .sorted { Self.order($0.indexedAt, $0.seq) > Self.order($1.indexedAt, $1.seq) }
            postSummaries = newestFirstPosts.map(summary(of:))
            postsAreStale = false
        }
        return newestFirstPosts
    }

    /// The posts visible now, newest first, before `cursor` (an order), that `view` makes an item of: at most `limit`,
    /// with the cursor of the next page when there is one. Only what a page needs is looked at.
    /// `wanted` chooses by a post's summary, before its record is read.
    private func newestPage<Item>(
        cursor: String?, limit: Int, where wanted: (PostSummary) -> Bool,
        _ view: (StoredRecord, PostSummary) -> Item?
    ) -> (items: [Item], cursor: String?) {
        let before = cursor.flatMap { Int($0) } ?? .max
        let current = now
        _ = newestFirst()
        var items: [(seq: Int, item: Item)] = []
        // The posts still to come on the clock, and those before the cursor, lead the index: passed over.
        let start = firstPlace { $0.order < before && $0.indexedAt <= current }
        for index in postSummaries.indices[start...] {
            let summary = postSummaries[index]
            guard summary.indexedAt <= current, summary.order < before, wanted(summary), let item = view(newestFirstPosts[index], summary) else {
                continue
            }
            if items.count == limit { return (items.map(\.item), items.last.map { String($0.seq) }) }
            items.append((summary.order, item))
        }
        return (items.map(\.item), nil)
    }

    /// A post record decoded (once per CID).
    private func postRecord(_ stored: StoredRecord) -> PostRecord? {
        if let known = decodedPosts[stored.cid] { return known }
        guard let record = try? JSONDecoder().decode(PostRecord.self, from: Self.data(stored.value)) else { return nil }
        decodedPosts[stored.cid] = record
        return record
    }

    func postView(_ stored: StoredRecord) -> PostView? {
        guard let record = postRecord(stored) else { return nil }
        let labels = (record.labels?.values ?? []).map {
            Label(src: stored.uri.repo, uri: stored.uri.description, val: $0.val, cts: Self.time(stored.indexedAt))
        }
        return PostView(
            uri: stored.uri.description, cid: stored.cid, author: profileView(of: stored.uri.repo, withDescription: false), record: record,
            indexedAt: Self.time(stored.indexedAt), labels: labels)
    }

    /// Where an item stands in a feed: by the time it was seen (as the AppView sorts), then by arrival.
    static func order(_ date: Date, _ seq: Int) -> Int { Int((date.timeIntervalSince1970 * 1_000).rounded()) * 1_000_000 + seq % 1_000_000 }

    /// A page of items by their order (`order`), newest first, after `cursor` (an order), at most `limit`.
    private func page<Item>(_ items: [(seq: Int, item: Item)], cursor: String?, limit: Int) -> (items: [Item], cursor: String?) {
        let before = cursor.flatMap { Int($0) } ?? .max
        let sorted = items.filter { $0.seq < before }.sorted { $0.seq > $1.seq }
        let chosen = Array(sorted.prefix(limit))
        return (chosen.map(\.item), sorted.count > limit ? chosen.last.map { String($0.seq) } : nil)
    }

    func authorFeed(actor: String, filter: String?, limit: Int, cursor: String?) -> FakeBlueskyResponse {
        guard let did = did(of: actor) else { return .error(400, "InvalidRequest", "Profile not found") }
        // Each item rendered once on its page (a fleet's benchmark pages through thousands).
        var items: [(seq: Int, item: () -> JSONValue)] = visiblePosts().filter { $0.uri.repo == did }.compactMap { stored in
            guard let view = postView(stored) else { return nil }
            if filter == "posts_no_replies", view.record.reply != nil { return nil }
            return (Self.order(stored.indexedAt, stored.seq), { Self.json(FeedViewPost(post: view)) })
        }
        for (seq, repost) in reposts where repost.byDID == did && repost.at <= now {
            if let stored = records[repost.uri], let view = postView(stored) {
                let by = profileView(of: did, withDescription: false)
                items.append(
                    (
                        Self.order(repost.at, seq),
                        {
                            let reason: JSONValue = .object([
                                "$type": .string("app.bsky.feed.defs#reasonRepost"), "by": Self.json(by),
                                "indexedAt": .string(Self.time(repost.at)),
                            ])
                            return .object(["post": Self.json(view), "reason": reason])
                        }
                    ))
            }
        }
        let (feed, next) = page(items, cursor: cursor, limit: limit)
        return .json(FeedPageBody(cursor: next, feed: feed.map { $0() }))
    }

    func timeline(caller: String, limit: Int, cursor: String?) -> FakeBlueskyResponse {
        let (feed, next) = newestPage(cursor: cursor, limit: limit, where: { $0.repo != caller }) { stored, _ in
            postView(stored).map { Self.json(FeedViewPost(post: $0)) }
        }
        return .json(FeedPageBody(cursor: next, feed: feed))
    }

    func actorLikes(caller: String, actor: String, limit: Int, cursor: String?) -> FakeBlueskyResponse {
        guard did(of: actor) == caller else { return .error(400, "InvalidRequest", "Profile not found") }
        let likes = records.values.filter { $0.uri.repo == caller && $0.uri.collection == "app.bsky.feed.like" }
        let items: [(seq: Int, item: JSONValue)] = likes.compactMap { like in
            guard let uri = like.value["subject"]?["uri"]?.stringValue, let stored = records[uri], let view = postView(stored) else { return nil }
            return (Self.order(like.indexedAt, like.seq), Self.json(FeedViewPost(post: view)))
        }
        let (feed, next) = page(items, cursor: cursor, limit: limit)
        return .json(FeedPageBody(cursor: next, feed: feed))
    }

    func notifications(caller: String, reasons: [String], limit: Int, cursor: String?) -> FakeBlueskyResponse {
        func reason(_ summary: PostSummary) -> String? {
            summary.repliesTo == caller ? "reply" : summary.mentions.contains(caller) ? "mention" : nil
        }
        let wanted = { (summary: PostSummary) in
            summary.repo != caller && reason(summary).map { reasons.isEmpty || reasons.contains($0) } == true
        }
        let (notifications, next) = newestPage(cursor: cursor, limit: limit, where: wanted) { stored, summary -> BlueskyNotification? in
            guard let view = postView(stored), let reason = reason(summary) else { return nil }
            return BlueskyNotification(
                uri: view.uri, cid: view.cid, author: profileView(of: stored.uri.repo, withDescription: true),
                reason: reason, record: view.record, isRead: false, indexedAt: view.indexedAt)
        }
        return .json(NotificationsBody(cursor: next, notifications: notifications))
    }

    func posts(uris: [String]) -> FakeBlueskyResponse {
        guard uris.count <= 25 else { return .error(400, "InvalidRequest", "uris must not have more than 25 elements") }
        return .json(["posts": uris.compactMap { records[$0] }.filter { $0.indexedAt <= now }.compactMap(postView)])
    }

    // MARK: Helpers

    struct FeedPageBody: Encodable {
        var cursor: String?
        var feed: [JSONValue]
    }

    struct NotificationsBody: Encodable {
        var cursor: String?
        var notifications: [BlueskyNotification]
    }

    static func json<Value: Encodable>(_ value: Value) -> JSONValue {
        (try? JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))) ?? .null
    }

    static func data(_ value: JSONValue) -> Data { (try? JSONEncoder().encode(value)) ?? Data() }

    /// The self-labels' values of a record.
    static func selfLabels(of value: JSONValue?) -> [String] {
        guard case .array(let values)? = value?["labels"]?["values"] else { return [] }
        return values.compactMap { $0["val"]?.stringValue }
    }

    /// A CID-shaped name of `value`: `bafyrei` and 52 base32 characters of its hash.
    static func cid(of value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let bytes = (try? encoder.encode(value)) ?? Data()
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var characters = "bafyrei"
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
        for round in 0..<52 {
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            hash = (hash ^ UInt64(round)) &* 0x100_0000_01b3
            characters.append(alphabet[Int(hash >> 59)])
        }
        return characters
    }

    /// RFC 3339 with milliseconds, as the AppView writes times.
    static func time(_ date: Date) -> String { ISO8601Time.string(from: date) }
}

extension Duration {
    fileprivate var seconds: TimeInterval { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
