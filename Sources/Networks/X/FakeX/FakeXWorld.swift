import BotCore
import FakeKit
import Foundation
import SeededRandom
import XAPI

/// An API response before it is put on the wire.
struct FakeXResponse: Sendable {
    var status: Int
    var body: JSONValue
    var rateLimit: (limit: Int, remaining: Int, reset: Int)?
}

/// Everything the fake server knows, in memory: users, posts, likes, follows, its clock, rate-limit windows,
/// pending faults, and what clients posted and liked. All API behaviour is here; the HTTP layer only dispatches.
actor FakeXWorld: AdjustableFakeClock {
    struct StoredPost {
        var numericID: UInt64
        var tweet: FakeXSeed.Tweet
    }

    struct Window {
        var start: Date
        var used: Int
    }

    /// The documented limits per 15 minutes and user (2026).
    static let documentedRateLimits: [String: Int] = [
        "GET /2/users/me": 75,
        "GET /2/users/:id/tweets": 900,
        "GET /2/users/:id/liked_tweets": 75,
        "GET /2/users/:id/timelines/reverse_chronological": 180,
        "GET /2/users/:id/mentions": 300,
        "POST /2/tweets": 100,
        "DELETE /2/tweets/:id": 50,
        "POST /2/users/:id/likes": 50,
        "DELETE /2/users/:id/likes/:tweet_id": 50,
    ]
    static let windowLength: TimeInterval = 15 * 60

    /// The clock: `anchor` plus the real time since `anchorInstant`, times `speed` (0 stops it).
    private var anchor: Date
    private var anchorInstant = ContinuousClock.now
    private(set) var speed: Double
    var now: Date {
        guard speed > 0 else { return anchor }
        let elapsed = ContinuousClock.now - anchorInstant
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return anchor.addingTimeInterval(seconds * speed)
    }
    /// The access level of every app: `pay-per-use` (today's self-serve access: no likes endpoints) or `enterprise`.
    private(set) var access: FakeXSeed.Access
    /// Prepaid credits per app in dollars; nil: unlimited. Spent credits answer 402.
    private var credits: Double?
    /// X's bill as it de-duplicates it: per UTC day and app, each resource once.
    private var billing: [BillingKey: BillingDay] = [:]
    private(set) var users: [String: FakeXSeed.User] = [:]
    private var accountsByToken: [String: FakeXSeed.Account] = [:]
    private var consumerSecrets: [String: String] = [:]
    private var tweets: [StoredPost] = []  // ascending by id
    private var likes: [String: [String]] = [:]
    private var follows: [String: Set<String>] = [:]
    private var rateLimits: [String: Int]
    private var windows: [String: Window] = [:]
    private var faults: [FakeXFault] = []
    /// Random faults: each request meets one of `kinds` with probability `rate`, drawn from `random`.
    private var chaos: (rate: Double, kinds: [FakeXFault.Kind], random: SplitMix64)?
    /// The faults injected so far (queued or random), in order.
    private(set) var faultsInjected: [FakeXFault.Injected] = []
    /// Answers a hang fault has begun to hold back.
    private(set) var hangsBegun = 0
    private var usedNonces: Set<String> = []
    /// Request tokens of the PIN flow, by token.
    var pendingAuthorizations: [String: PendingAuthorization] = [:]
    private var snowflakes = SnowflakeIDs()
    private(set) var posted: [FakeXSeed.Tweet] = []
    /// The ids of posts deleted through `DELETE /2/tweets/:id`, in order.
    private(set) var deletedByAPI: [String] = []
    private(set) var liked: [(userID: String, postID: String)] = []
    private(set) var requestCounts: [String: Int] = [:]
    private(set) var servedCounts: [String: Int] = [:]
    private var autoRepliers: Set<String>
    private var autoReplyCount = 0
    private var armedClock: (Date, Double)?

    init(seed: FakeXSeed) {
        access = seed.access ?? .payPerUse
        credits = seed.credits
        anchor = seed.now ?? Date()
        speed = seed.speed ?? 0
        autoRepliers = Set(seed.autoRepliers ?? [])
        rateLimits = Self.documentedRateLimits.merging(seed.rateLimits ?? [:]) { _, seeded in seeded }
        for user in seed.users { users[user.id] = user }
        for account in seed.accounts {
            accountsByToken[account.accessToken] = account
            consumerSecrets[account.consumerKey] = account.consumerSecret
        }
        for tweet in seed.tweets { Self.insert(tweet, into: &tweets) }
        likes = seed.likes
        follows = seed.follows.mapValues(Set.init)
    }

    // MARK: - Administration

    func setClock(_ date: Date, speed newSpeed: Double? = nil) {
        anchor = date
        anchorInstant = .now
        if let newSpeed { speed = max(0, newSpeed) }
    }
    func advanceClock(by seconds: TimeInterval) { setClock(now.addingTimeInterval(seconds)) }
    /// Sets the clock when the next API request arrives, so that a bot started just now and the server agree.
    func armClock(_ date: Date, speed newSpeed: Double) { armedClock = (date, newSpeed) }
    func countServed(_ endpoint: String, _ count: Int) { servedCounts[endpoint, default: 0] += count }
    func add(tweets newTweets: [FakeXSeed.Tweet]) { newTweets.forEach(insert) }
    func add(likes newLikes: [String], by userID: String) { likes[userID, default: []].insert(contentsOf: newLikes, at: 0) }
    func add(users newUsers: [FakeXSeed.User]) { for user in newUsers { users[user.id] = user } }
    func add(fault: FakeXFault) { faults.append(fault) }
    func setRateLimit(_ limit: Int, for endpoint: String) {
        rateLimits[endpoint] = limit
        windows = windows.filter { !$0.key.hasPrefix(endpoint + " ") }
    }
    func likedPairs() -> [(userID: String, postID: String)] { liked }
    func setAccess(_ newAccess: FakeXSeed.Access) { access = newAccess }
    func setCredits(_ dollars: Double?) { credits = dollars }
    /// Revokes an access token: requests signed with it are answered 401 from now on.
    func revoke(accessToken: String) -> Bool { accountsByToken.removeValue(forKey: accessToken) != nil }

    func setChaos(rate: Double, kinds: [FakeXFault.Kind], seed: UInt64) {
        chaos = kinds.isEmpty || rate <= 0 ? nil : (rate, kinds, SplitMix64(seed: seed))
    }

    /// The first pending fault for the endpoint named by one of `names` (its name first, its most specific last), used
    /// up by one; else, with chaos on, a random one. Each is recorded as met by a request of `userID`.
    func takeFault(for names: [String], userID: String) -> FakeXFault? {
        let endpoint = names.last ?? ""
        guard let index = faults.firstIndex(where: { $0.endpoint == nil || names.contains($0.endpoint ?? "") }) else {
            guard let (rate, kinds, start) = chaos else { return nil }
            var random = start
            defer { chaos = (rate, kinds, random) }
            guard Double.random(in: 0..<1, using: &random) < rate, let kind = kinds.randomElement(using: &random) else { return nil }
            faultsInjected.append(.init(endpoint: endpoint, userID: userID, kind: kind, at: now, wasQueued: false))
            return FakeXFault(kind: kind)
        }
        let fault = faults[index]
        faults[index].count -= 1
        if faults[index].count <= 0 { faults.remove(at: index) }
        faultsInjected.append(.init(endpoint: endpoint, userID: userID, kind: fault.kind, at: now, wasQueued: true))
        return fault
    }

    func noteHang() { hangsBegun += 1 }

    func countRequest(_ endpoint: String) {
        if let (date, newSpeed) = armedClock {
            armedClock = nil
            setClock(date, speed: newSpeed)
        }
        requestCounts[endpoint, default: 0] += 1
    }

    // MARK: - Authentication

    /// The app's consumer secret, if the app is known.
    func consumerSecret(of consumerKey: String) -> String? { consumerSecrets[consumerKey] }
    /// The seed's account made with the app `consumerKey` (the app's owner), if any.
    func accountsByConsumerKey(_ consumerKey: String) -> FakeXSeed.Account? {
        accountsByToken.values.filter { $0.consumerKey == consumerKey }.sorted { $0.userID < $1.userID }.first
    }
    /// Registers an account's access token (as the PIN flow makes one).
    func addAccount(_ account: FakeXSeed.Account) {
        accountsByToken[account.accessToken] = account
        consumerSecrets[account.consumerKey] = account.consumerSecret
    }
    /// Uses a nonce: false when it was used before (a replay).
    func useNonce(_ key: String) -> Bool { usedNonces.insert(key).inserted }

    /// The user the signed request acts as and its app (consumer key), or a 401 response.
    func authenticate(method: String, url: URL, authorization: String?) -> Result<Caller, FakeXResponseError> {
        let unauthorized = FakeXResponseError(
            FakeXResponse(
                status: 401, body: .problem(type: ProblemType.blank, title: "Unauthorized", detail: "Unauthorized", status: 401)))
        guard let authorization, let fields = OAuthHeader.parse(authorization),
            let consumerKey = fields["oauth_consumer_key"], let token = fields["oauth_token"],
            let nonce = fields["oauth_nonce"], let timestamp = fields["oauth_timestamp"].flatMap({ Int($0) }),
            let signature = fields["oauth_signature"], fields["oauth_signature_method"] == "HMAC-SHA1",
            let consumerSecret = consumerSecrets[consumerKey], let account = accountsByToken[token],
            account.consumerKey == consumerKey
        else { return .failure(unauthorized) }
        // A request signed more than 15 minutes from the real time, or a nonce used before, is refused as replayed.
        guard abs(Date().timeIntervalSince1970 - Double(timestamp)) < 900, !usedNonces.contains(consumerKey + nonce) else {
            return .failure(unauthorized)
        }
        let expected = OAuthHeader.signature(
            method: method, url: url, fields: fields, consumerSecret: consumerSecret,
            tokenSecret: account.accessTokenSecret)
        guard expected == signature else { return .failure(unauthorized) }
        usedNonces.insert(consumerKey + nonce)
        return .success(Caller(userID: account.userID, app: consumerKey))
    }

    /// Counts a call against the user's window; a 429 response when the window is used up.
    func useRateLimit(_ endpoint: String, userID: String) -> Result<(Int, Int, Int), FakeXResponseError> {
        let limit = rateLimits[endpoint] ?? 900
        let key = endpoint + " " + userID
        var window = windows[key] ?? Window(start: now, used: 0)
        if now.timeIntervalSince(window.start) >= Self.windowLength { window = Window(start: now, used: 0) }
        let reset = Int(window.start.addingTimeInterval(Self.windowLength).timeIntervalSince1970)
        guard window.used < limit else {
            windows[key] = window
            return .failure(
                FakeXResponseError(
                    FakeXResponse(
                        status: 429, body: .problem(type: ProblemType.blank, title: "Too Many Requests", detail: "Too Many Requests", status: 429),
                        rateLimit: (limit, 0, reset))))
        }
        window.used += 1
        windows[key] = window
        return .success((limit, limit - window.used, reset))
    }

    // MARK: - Billing

    struct BillingKey: Hashable {
        var day: String
        var app: String
    }

    /// One app's UTC day: each resource billed once, writes per request.
    struct BillingDay {
        var ownedPosts = Set<String>()
        var posts = Set<String>()
        var users = Set<String>()
        var bill = XBill()
    }

    /// The UTC day of the server's clock.
    private var billingDay: String { UsageMeter.billingDay(of: now) }

    /// Bills what a response returned: posts (owned when the caller reads their own timeline, mentions or likes)
    /// and users, each once per UTC day and app.
    func bill(app: String, ownedPosts: [String] = [], posts: [String] = [], users: [String] = []) {
        guard !(ownedPosts.isEmpty && posts.isEmpty && users.isEmpty) else { return }
        let key = BillingKey(day: billingDay, app: app)
        var day = billing[key] ?? BillingDay()
        for id in ownedPosts where day.ownedPosts.insert(id).inserted { day.bill.ownedPostReads += 1 }
        for id in posts where day.posts.insert(id).inserted { day.bill.postReads += 1 }
        for id in users where day.users.insert(id).inserted { day.bill.userReads += 1 }
        billing[key] = day
    }

    /// Bills a write.
    func bill(app: String, write: XWrite) {
        let key = BillingKey(day: billingDay, app: app)
        var day = billing[key] ?? BillingDay()
        switch write {
        case .post(let withURL): if withURL { day.bill.postsCreatedWithURL += 1 } else { day.bill.postsCreated += 1 }
        case .interactionCreate: day.bill.interactionsCreated += 1
        case .interactionDelete: day.bill.interactionsDeleted += 1
        }
        billing[key] = day
    }

    /// The billing record: per UTC day and app, what was billed.
    func billingRecord() -> [(day: String, app: String, bill: XBill)] {
        billing.map { ($0.key.day, $0.key.app, $0.value.bill) }.sorted { ($0.day, $0.app) < ($1.day, $1.app) }
    }

    /// A 402 when the app's prepaid credits are spent.
    func checkCredits(app: String) -> FakeXResponseError? {
        guard let credits else { return nil }
        let spent = billing.filter { $0.key.app == app }.values.reduce(0) { $0 + XPriceList.current.cost(of: $1.bill) }
        guard spent >= credits else { return nil }
        return FakeXResponseError(
            FakeXResponse(
                status: 402,
                body: .problem(
                    type: ProblemType.creditsDepleted, title: "Payment Required", detail: "credits depleted", status: 402)))
    }

    /// The 403 X sends an app whose access does not include an endpoint (likes, for pay-per-use apps since 2026-04-20).
    static let notEnrolled = FakeXResponse(
        status: 403,
        body: .problem(
            type: ProblemType.forbidden, title: "Client Forbidden",
            detail:
                "This request must be made using an approved developer account that is enrolled in the requested endpoint. Learn more by visiting our documentation.",
            status: 403,
            extra: [
                ("reason", .string("client-not-enrolled")),
                ("registration_url", .string("https://developer.x.com/en/portal/products")),
            ]))

    // MARK: - Endpoints

    func usersMe(caller: Caller, query: [String: String]) -> FakeXResponse {
        guard let user = users[caller.userID] else { return notFound("user", caller.userID) }
        bill(app: caller.app, users: [user.id])
        var json = [("id", JSONValue.string(user.id)), ("name", .string(user.name)), ("username", .string(user.username))]
        // user.fields=description asks for the bio (X leaves the field out of an account without one).
        if (query["user.fields"] ?? "").split(separator: ",").contains("description") {
            json.append(("description", .string(user.description ?? "")))
        }
        return FakeXResponse(status: 200, body: .object([("data", .object(json))]))
    }

    enum Timeline {
        case userTweets, likedTweets, home, mentions

        /// The endpoint's name, as in `requestCounts`.
        var endpoint: String {
            switch self {
            case .userTweets: "GET /2/users/:id/tweets"
            case .likedTweets: "GET /2/users/:id/liked_tweets"
            case .home: "GET /2/users/:id/timelines/reverse_chronological"
            case .mentions: "GET /2/users/:id/mentions"
            }
        }
    }

    func timeline(_ kind: Timeline, pathUserID: String, caller: Caller, query: [String: String]) -> FakeXResponse {
        let callerID = caller.userID
        let minimum = kind == .home ? 1 : 5
        var maxResults = 10
        if let text = query["max_results"] {
            guard let number = Int(text), (minimum...100).contains(number) else {
                return invalid(
                    "max_results", query["max_results"] ?? "",
                    "The `max_results` query parameter value [\(text)] is not between \(minimum) and 100")
            }
            maxResults = number
        }
        var exclude = Set<String>()
        if let text = query["exclude"], kind == .userTweets || kind == .home {
            for value in text.split(separator: ",").map(String.init) {
                guard ["replies", "retweets"].contains(value) else {
                    return invalid("exclude", text, "The `exclude` query parameter value [\(value)] is not one of [replies, retweets]")
                }
                exclude.insert(value)
            }
        }
        var sinceID: UInt64?
        var untilID: UInt64?
        for (name, target) in [("since_id", 0), ("until_id", 1)] {
            guard let text = query[name], kind != .likedTweets else { continue }
            guard let number = UInt64(text), text.count <= 19 else {
                return invalid(name, text, "The `\(name)` query parameter value [\(text)] does not match ^[0-9]{1,19}$")
            }
            if target == 0 { sinceID = number } else { untilID = number }
        }
        var boundary: UInt64?  // the id of the newest post of the requested page
        if let token = query["pagination_token"] {
            guard let decoded = PaginationToken.decode(token) else {
                return invalid("pagination_token", token, "The `pagination_token` query parameter value [\(token)] is not valid")
            }
            boundary = decoded
        }
        guard users[pathUserID] != nil else { return notFound("user", pathUserID) }
        if kind == .home, pathUserID != callerID {
            return FakeXResponse(
                status: 403,
                body: .problem(
                    type: ProblemType.blank, title: "Forbidden",
                    detail: "You can only read the home timeline of the authenticated user.", status: 403))
        }

        // The newest first, visible now, then the documented caps, then the filters of this request. (Posts newer than
        // since_id are a prefix of the newest-first list, so reading only those gives the same answer, faster.)
        let visible = kind == .likedTweets ? [] : visibleTweets(newerThan: sinceID)
        var candidates: [StoredPost]
        switch kind {
        case .userTweets:
            candidates = visible.filter { $0.tweet.authorID == pathUserID }
            candidates = Array(candidates.prefix(3_200))
            if exclude.contains("replies") {
                candidates = Array(candidates.filter { $0.tweet.inReplyToTweetID == nil && $0.tweet.inReplyToUserID == nil }.prefix(800))
            }
        case .home:
            let followed = (follows[pathUserID] ?? []).union([pathUserID])
            candidates = Array(visible.filter { followed.contains($0.tweet.authorID) }.prefix(3_200))
            if exclude.contains("replies") { candidates = candidates.filter { $0.tweet.inReplyToTweetID == nil } }
        case .mentions:
            let handle = "@" + (users[pathUserID]?.username ?? "").lowercased()
            candidates = Array(
                visible.filter { stored in
                    stored.tweet.authorID != pathUserID && stored.tweet.retweetOf == nil
                        && (stored.tweet.inReplyToUserID == pathUserID || stored.tweet.text.lowercased().contains(handle))
                }.prefix(800))
        case .likedTweets:
            let current = now
            candidates = (likes[pathUserID] ?? []).compactMap(stored(id:)).filter { $0.tweet.createdAt <= current }
        }
        if exclude.contains("retweets") { candidates = candidates.filter { $0.tweet.retweetOf == nil } }
        if let sinceID { candidates = candidates.filter { $0.numericID > sinceID } }
        if let untilID { candidates = candidates.filter { $0.numericID < untilID } }

        // A token names the first post of its page, so new posts arriving between pages shift nothing.
        let start = boundary.map { id in candidates.firstIndex { $0.numericID <= id } ?? candidates.count } ?? 0
        let page = Array(candidates[start..<min(start + maxResults, candidates.count)])
        servedCounts[kind.endpoint, default: 0] += page.count
        let fields = Set((query["tweet.fields"] ?? "").split(separator: ",").map(String.init))
        let expandAuthors = (query["expansions"] ?? "").split(separator: ",").contains("author_id")
        var body: [(String, JSONValue)] = []
        // Owned reads: the caller's own posts, mentions or likes; the home timeline is other people's posts.
        let owned = kind != .home && pathUserID == callerID
        bill(app: caller.app, ownedPosts: owned ? page.map(\.tweet.id) : [], posts: owned ? [] : page.map(\.tweet.id))
        if !page.isEmpty {
            body.append(("data", .array(page.map { tweetJSON($0.tweet, fields: fields) })))
            if expandAuthors {
                var seen = Set<String>()
                let authors = page.compactMap { stored -> FakeXSeed.User? in
                    guard seen.insert(stored.tweet.authorID).inserted else { return nil }
                    return users[stored.tweet.authorID]
                }
                bill(app: caller.app, users: authors.map(\.id))
                if !authors.isEmpty { body.append(("includes", .object([("users", .array(authors.map(userJSON)))]))) }
            }
        }
        var meta: [(String, JSONValue)] = [("result_count", .int(page.count))]
        if let first = page.first, let last = page.last, kind != .likedTweets {  // the likes' meta has no ids
            meta.insert(("newest_id", .string(first.tweet.id)), at: 0)
            meta.insert(("oldest_id", .string(last.tweet.id)), at: 1)
        }
        if start + maxResults < candidates.count {
            meta.append(("next_token", .string(PaginationToken.encode(candidates[start + maxResults].numericID))))
        }
        body.append(("meta", .object(meta)))
        return FakeXResponse(status: 200, body: .object(body))
    }

    func createTweet(caller: Caller, body: Data) -> FakeXResponse {
        let userID = caller.userID
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any], let text = object["text"] as? String else {
            return FakeXResponse(
                status: 400,
                body: .problem(
                    type: ProblemType.invalidRequest, title: "Invalid Request",
                    detail: "One or more parameters to your request was invalid.", status: 400,
                    extra: [("errors", .array([.object([("message", .string("$.text: is missing but it is required"))])]))]))
        }
        guard !text.isEmpty, text.count <= 280 else {
            return invalidBody("text", "Your Tweet text is empty or longer than 280 characters.")
        }
        let recent = tweets.reversed().lazy.filter { $0.tweet.authorID == userID }.prefix(200)
        let escaped = Self.escapeHTML(text)
        if recent.contains(where: { $0.tweet.text == escaped }) {
            return FakeXResponse(
                status: 403,
                body: .problem(
                    type: ProblemType.blank, title: "Forbidden",
                    detail: "You are not allowed to create a Tweet with duplicate content.", status: 403))
        }
        var inReplyToTweetID: String?
        var inReplyToUserID: String?
        if let reply = object["reply"] as? [String: Any] {
            guard let target = reply["in_reply_to_tweet_id"] as? String, let parent = tweets.first(where: { $0.tweet.id == target }) else {
                return invalidBody("reply.in_reply_to_tweet_id", "The post you are replying to does not exist or is not visible.")
            }
            inReplyToTweetID = target
            inReplyToUserID = parent.tweet.authorID
        }
        let tweet = FakeXSeed.Tweet(
            id: String(nextID()), authorID: userID, text: escaped, createdAt: now,
            inReplyToTweetID: inReplyToTweetID, inReplyToUserID: inReplyToUserID)
        insert(tweet)
        posted.append(tweet)
        bill(app: caller.app, write: .post(withURL: Self.containsURL(text)))
        answerAsAutoRepliers(tweet)
        return FakeXResponse(
            status: 201,
            body: .object([
                ("data", .object([("id", .string(tweet.id)), ("text", .string(tweet.text))]))
            ]))
    }

    func like(pathUserID: String, caller: Caller, body: Data) -> FakeXResponse {
        let callerID = caller.userID
        guard access == .enterprise else { return Self.notEnrolled }
        guard pathUserID == callerID else {
            return FakeXResponse(
                status: 403,
                body: .problem(
                    type: ProblemType.forbidden, title: "Forbidden", detail: "You are not permitted to like on behalf of another user.", status: 403))
        }
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any], let tweetID = object["tweet_id"] as? String else {
            return invalidBody("tweet_id", "$.tweet_id: is missing but it is required")
        }
        guard let target = stored(id: tweetID), target.tweet.createdAt <= now else {
            return FakeXResponse(
                status: 200,
                body: .object([
                    ("data", .object([("liked", .bool(false))])),
                    (
                        "errors",
                        .array([
                            .problem(
                                type: ProblemType.notFound, title: "Not Found Error",
                                detail: "Could not find tweet with tweet_id: [\(tweetID)].", status: 404,
                                extra: [
                                    ("value", .string(tweetID)), ("parameter", .string("tweet_id")),
                                    ("resource_id", .string(tweetID)), ("resource_type", .string("tweet")),
                                ])
                        ])
                    ),
                ]))
        }
        if !(likes[callerID] ?? []).contains(tweetID) {  // liking twice changes nothing
            likes[callerID, default: []].insert(tweetID, at: 0)
            liked.append((callerID, tweetID))
        }
        bill(app: caller.app, write: .interactionCreate)
        return FakeXResponse(status: 200, body: .object([("data", .object([("liked", .bool(true))]))]))
    }

    /// `GET /2/tweets/:id`: one post visible now, or X's "Not Found Error" (a 200 with `errors` only) for a post that
    /// was deleted or never was. Billed as an owned read when the caller wrote it.
    func lookUpTweet(id: String, caller: Caller, query: [String: String]) -> FakeXResponse {
        guard UInt64(id) != nil, id.count <= 19 else {
            return invalid("id", id, "The `id` query parameter value [\(id)] does not match ^[0-9]{1,19}$")
        }
        guard let stored = stored(id: id), stored.tweet.createdAt <= now else { return notFound("tweet", id) }
        let owned = stored.tweet.authorID == caller.userID
        bill(app: caller.app, ownedPosts: owned ? [id] : [], posts: owned ? [] : [id])
        servedCounts["GET /2/tweets/:id", default: 0] += 1
        let fields = Set((query["tweet.fields"] ?? "").split(separator: ",").map(String.init))
        return FakeXResponse(status: 200, body: .object([("data", tweetJSON(stored.tweet, fields: fields))]))
    }

    /// Deletes a post, as its author deleting it on X; false when there is no such post.
    func delete(tweetID: String) -> Bool {
        guard let number = UInt64(tweetID), let index = tweets.firstIndex(where: { $0.numericID == number }) else { return false }
        tweets.remove(at: index)
        return true
    }

    /// `DELETE /2/tweets/:id`: the caller deletes a post of theirs. Another's post is refused (403); one already
    /// gone answers `deleted: false`.
    func deleteTweet(id: String, caller: Caller) -> FakeXResponse {
        guard UInt64(id) != nil, id.count <= 19 else {
            return invalid("id", id, "The `id` query parameter value [\(id)] does not match ^[0-9]{1,19}$")
        }
        bill(app: caller.app, write: .interactionDelete)
        guard let stored = stored(id: id) else {
            return FakeXResponse(status: 200, body: .object([("data", .object([("deleted", .bool(false))]))]))
        }
        guard stored.tweet.authorID == caller.userID else {
            return FakeXResponse(
                status: 403,
                body: .problem(
                    type: ProblemType.blank, title: "Forbidden", detail: "You are not allowed to delete this Tweet.", status: 403))
        }
        _ = delete(tweetID: id)
        posted.removeAll { $0.id == id }
        deletedByAPI.append(id)
        return FakeXResponse(status: 200, body: .object([("data", .object([("deleted", .bool(true))]))]))
    }

    /// `DELETE /2/users/:id/likes/:tweet_id`: taking back a like (one never made changes nothing).
    func unlike(pathUserID: String, tweetID: String, caller: Caller) -> FakeXResponse {
        guard access == .enterprise else { return Self.notEnrolled }
        guard pathUserID == caller.userID else {
            return FakeXResponse(
                status: 403,
                body: .problem(
                    type: ProblemType.blank, title: "Forbidden", detail: "You are not permitted to unlike on behalf of another user.", status: 403))
        }
        guard UInt64(tweetID) != nil, tweetID.count <= 19 else {
            return invalid("tweet_id", tweetID, "The `tweet_id` query parameter value [\(tweetID)] does not match ^[0-9]{1,19}$")
        }
        likes[caller.userID]?.removeAll { $0 == tweetID }
        bill(app: caller.app, write: .interactionDelete)
        return FakeXResponse(status: 200, body: .object([("data", .object([("liked", .bool(false))]))]))
    }

    /// Whether X would post `text` with a link: a scheme, `www.`, or a bare domain it links (the fake's own rule,
    /// written apart from the bot's so that each checks the other).
    static func containsURL(_ text: String) -> Bool {
        let pattern =
            #"(?i)(https?://|(^|[^A-Za-z0-9@._/-])(www\.[A-Za-z0-9-]|([A-Za-z0-9-]+\.)+(com|net|org|jp|io|co|me|ly|gl|info|dev|app|tv|fm|be|to|us|uk|de|fr|biz|xyz|site|online|blog|news|link)([^A-Za-z0-9-]|$)))"#
        return text.range(of: pattern, options: .regularExpression) != nil
    }

    /// Users that answer everything: each auto-replier mentioned in `tweet`, or whose post it answers, replies to it
    /// 30 seconds later (on the server's clock), mentioning its author. Two such accounts would talk forever.
    private func answerAsAutoRepliers(_ tweet: FakeXSeed.Tweet) {
        guard let author = users[tweet.authorID] else { return }
        let lowered = tweet.text.lowercased()
        for replierID in autoRepliers.sorted() where replierID != tweet.authorID {
            guard let replier = users[replierID],
                tweet.inReplyToUserID == replierID || lowered.contains("@" + replier.username.lowercased())
            else { continue }
            autoReplyCount += 1
            let phrases = ["なるほど、それで？", "わかる", "それな", "本当に？", "もっと聞かせて"]
            let text = "@\(author.username) \(phrases[autoReplyCount % phrases.count]) (\(autoReplyCount))"
            let reply = FakeXSeed.Tweet(
                id: String(nextID(at: now.addingTimeInterval(30))), authorID: replierID, text: text,
                createdAt: now.addingTimeInterval(30), inReplyToTweetID: tweet.id, inReplyToUserID: tweet.authorID)
            insert(reply)
        }
    }

    // MARK: - Helpers

    private func insert(_ tweet: FakeXSeed.Tweet) { Self.insert(tweet, into: &tweets) }

    /// Keeps `tweets` sorted by id; a post whose id is taken or not a number is ignored.
    private static func insert(_ tweet: FakeXSeed.Tweet, into tweets: inout [StoredPost]) {
        guard let numericID = UInt64(tweet.id) else { return }
        let index = tweets.partitioningIndex { $0.numericID >= numericID }
        if index < tweets.endIndex, tweets[index].numericID == numericID { return }
        tweets.insert(StoredPost(numericID: numericID, tweet: tweet), at: index)
    }

    /// Posts whose time has come, newest first.
    /// The post with this id, found by binary search (posts are kept sorted by id).
    private func stored(id: String) -> StoredPost? {
        guard let number = UInt64(id) else { return nil }
        let index = tweets.partitioningIndex { $0.numericID >= number }
        return index < tweets.endIndex && tweets[index].numericID == number ? tweets[index] : nil
    }

    /// Visible posts (created by now), newest first; only those with ids above `sinceID` when given.
    private func visibleTweets(newerThan sinceID: UInt64? = nil) -> [StoredPost] {
        let first = sinceID.map { id in tweets.partitioningIndex { $0.numericID > id } } ?? tweets.startIndex
        let current = now
        return tweets[first...].reversed().filter { $0.tweet.createdAt <= current }
    }

    /// A snowflake-like id from the clock, so new posts sort after older ones.
    private func nextID(at date: Date? = nil) -> UInt64 {
        let time = date ?? now
        var id = snowflakes.number(at: time)
        // After every post already visible at that time (seeds may use any ids), but not after hidden future posts:
        // those must stay newer than what is posted before their time, as on X.
        if let newest = tweets.last(where: { $0.tweet.createdAt <= time })?.numericID, id <= newest { id = newest + 1 }
        while stored(id: String(id)) != nil { id += 1 }
        return id
    }

    private func tweetJSON(_ tweet: FakeXSeed.Tweet, fields: Set<String>) -> JSONValue {
        var object: [(String, JSONValue)] = [
            ("id", .string(tweet.id)), ("text", .string(tweet.text)), ("edit_history_tweet_ids", .array([.string(tweet.id)])),
        ]
        if fields.contains("author_id") { object.append(("author_id", .string(tweet.authorID))) }
        if fields.contains("created_at") { object.append(("created_at", .time(tweet.createdAt))) }
        if fields.contains("conversation_id") { object.append(("conversation_id", .string(conversationID(of: tweet)))) }
        if fields.contains("in_reply_to_user_id"), let user = tweet.inReplyToUserID { object.append(("in_reply_to_user_id", .string(user))) }
        if fields.contains("referenced_tweets") {
            var references: [JSONValue] = []
            if let original = tweet.retweetOf { references.append(.object([("type", .string("retweeted")), ("id", .string(original))])) }
            if let parent = tweet.inReplyToTweetID { references.append(.object([("type", .string("replied_to")), ("id", .string(parent))])) }
            if !references.isEmpty { object.append(("referenced_tweets", .array(references))) }
        }
        if fields.contains("entities"), let links = tweet.urls, !links.isEmpty {
            let entities = links.compactMap { link -> JSONValue? in
                guard let range = tweet.text.range(of: link.url) else { return nil }
                // Entity indices count Unicode code points.
                let start = tweet.text.unicodeScalars.distance(from: tweet.text.startIndex, to: range.lowerBound)
                let end = start + link.url.unicodeScalars.count
                return .object([
                    ("start", .int(start)), ("end", .int(end)), ("url", .string(link.url)),
                    ("expanded_url", .string(link.expandedURL)),
                    ("display_url", .string(String(link.expandedURL.split(separator: "/", maxSplits: 2).last ?? ""))),
                ])
            }
            if !entities.isEmpty { object.append(("entities", .object([("urls", .array(entities))]))) }
        }
        return .object(object)
    }

    private func conversationID(of tweet: FakeXSeed.Tweet) -> String {
        var current = tweet
        var steps = 0
        while let parentID = current.inReplyToTweetID, let parent = tweets.first(where: { $0.tweet.id == parentID })?.tweet, steps < 100 {
            current = parent
            steps += 1
        }
        return current.inReplyToTweetID ?? current.id
    }

    private func userJSON(_ user: FakeXSeed.User) -> JSONValue {
        .object([("id", .string(user.id)), ("name", .string(user.name)), ("username", .string(user.username))])
    }

    private func invalid(_ parameter: String, _ value: String, _ message: String) -> FakeXResponse {
        FakeXResponse(
            status: 400,
            body: .problem(
                type: ProblemType.invalidRequest, title: "Invalid Request", detail: "One or more parameters to your request was invalid.",
                status: 400,
                extra: [
                    (
                        "errors",
                        .array([
                            .object([
                                ("parameters", .object([(parameter, .array([.string(value)]))])), ("message", .string(message)),
                            ])
                        ])
                    )
                ]))
    }

    private func invalidBody(_ field: String, _ message: String) -> FakeXResponse {
        FakeXResponse(
            status: 400,
            body: .problem(
                type: ProblemType.invalidRequest, title: "Invalid Request", detail: "One or more parameters to your request was invalid.",
                status: 400, extra: [("errors", .array([.object([("message", .string("\(field): \(message)"))])]))]))
    }

    private func notFound(_ resource: String, _ id: String) -> FakeXResponse {
        FakeXResponse(
            status: 200,
            body: .object([
                (
                    "errors",
                    .array([
                        .problem(
                            type: ProblemType.notFound, title: "Not Found Error", detail: "Could not find \(resource) with id: [\(id)].", status: 404,
                            extra: [
                                ("value", .string(id)), ("parameter", .string("id")), ("resource_id", .string(id)),
                                ("resource_type", .string(resource)),
                            ])
                    ])
                )
            ]))
    }

    /// X escapes these three in post text.
    static func escapeHTML(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}

extension Array {
    /// The first index whose element satisfies `belongsInSecondPart`, for an array partitioned by it (binary search).
    func partitioningIndex(where belongsInSecondPart: (Element) -> Bool) -> Int {
        var low = startIndex
        var high = endIndex
        while low < high {
            let middle = low + (high - low) / 2
            if belongsInSecondPart(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

/// A response that ends request handling early (401, 429, ...).
struct FakeXResponseError: Error {
    var response: FakeXResponse
    init(_ response: FakeXResponse) { self.response = response }
}

/// Opaque page tokens: the id of the page's first post in base 36, behind a marker so other strings are refused.
enum PaginationToken {
    static let marker = "7140dibdnow9c"
    static func encode(_ id: UInt64) -> String { marker + String(id, radix: 36) }
    static func decode(_ token: String) -> UInt64? {
        guard token.hasPrefix(marker) else { return nil }
        return UInt64(token.dropFirst(marker.count), radix: 36)
    }
}

/// Who sent a signed request: the user it acts as and the app (consumer key) it was signed with.
struct Caller: Sendable {
    var userID: String
    var app: String
}
