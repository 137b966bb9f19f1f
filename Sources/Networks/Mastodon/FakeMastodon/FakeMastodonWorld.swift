import BotCore
import FakeKit
import Foundation

/// An answer of the fake instance: status, JSON body, extra headers (Link).
struct FakeMastodonResponse: Error, Sendable {
    var status: Int
    var body: JSONValue
    var headers: [(String, String)] = []
}

/// A fault the next `count` matching requests meet.
public struct FakeMastodonFault: Sendable, Equatable {
    /// What happens.
    public enum Kind: String, Sendable, Codable {
        /// 503 before doing anything.
        case serviceUnavailable
        /// 429 "Too many requests" before doing anything, its window reset five minutes on (an endpoint the instance
        /// limits more tightly than the account's window: a busy instance's `GET /api/v2/instance`).
        case rateLimited
        /// The request is carried out, then the connection is closed before the answer (a lost answer).
        case dropAfterHandling
    }
    /// What happens.
    public var kind: Kind
    /// The endpoint name it applies to (nil: the next request of any endpoint).
    public var endpoint: String?
    /// How many requests it hits.
    public var count: Int
    /// A fault from its parts.
    public init(kind: Kind, count: Int = 1, endpoint: String? = nil) {
        self.kind = kind
        self.count = count
        self.endpoint = endpoint
    }
}

/// The fake instance's state: accounts, statuses, favourites, follows, idempotency keys, rate-limit windows, on
/// its own clock.
actor FakeMastodonWorld: AdjustableFakeClock {
    /// Who a request acts as: the account, and the token it came with.
    struct Caller {
        var account: FakeMastodonSeed.Account
        var token: String
        var access: AccessToken
    }

    /// A bearer token the instance knows: whose it is, the scopes it was granted, the application it was made for (nil:
    /// the seed's, as made under Preferences → Development), and whether it was revoked.
    struct AccessToken {
        var accountID: String
        var scopes: Set<String>
        var clientID: String?
        var revoked = false
    }

    private(set) var domain: String
    private(set) var accounts: [String: FakeMastodonSeed.Account] = [:]
    /// Every token made, by its value: the seed's and those bought with a code at `POST /oauth/token`.
    var accessTokens: [String: AccessToken] = [:]
    /// The OAuth applications and codes.
    var oauth = FakeMastodonOAuth()
    /// Statuses by numeric id.
    private var statuses: [UInt64: FakeMastodonSeed.Status] = [:] {
        didSet {
            indexIsStale = true
            Task { [bell] in await bell.ring() }
        }
    }
    /// Wakes the open streams when the statuses change or the clock is set.
    let bell = StreamBell()
    /// The statuses' ids ascending, and each account's count: made again after the statuses change (a fleet's bots read
    /// far more often than they write, and a request no longer sorts every status).
    private var indexIsStale = true
    private var ascendingIDs: [UInt64] = []
    private var countsByAccount: [String: Int] = [:]
    /// The statuses no notification was made for yet, latest first (the next to come at the end).
    private var awaitingNotification: [(at: Date, id: UInt64)] = []
    private var favourites: [String: [(favouriteID: UInt64, statusID: String)]] = [:]
    private var follows: [String: Set<String>]
    /// The status each idempotency key made, and when (on the fake's clock, and in real time): Mastodon keeps a key for
    /// an hour (after it, the same key makes a new status), and so does the fake, by its clock.
    private var idempotency: [String: (statusID: String, at: Date, realAt: Date)] = [:]
    /// How long a key is kept: Mastodon's hour.
    static let idempotencyKeyLifetime: TimeInterval = 3_600
    /// While the clock runs, a key is also kept this long in real time. Requests travel in real time however fast the
    /// clock runs: at 1,440x Mastodon's hour is 2.5 real seconds, and a create a loaded machine answered late, sent
    /// again with its key a few real seconds on, met a forgotten key and made a second status, where Mastodon, whose
    /// hour is real, answers with the first (the fleet's process test, twice in one loaded run).
    static let keyKeptInRealTime: TimeInterval = 60
    private var windows: [String: (start: Date, used: Int)] = [:]
    private var faults: [FakeMastodonFault] = []
    private(set) var requestCounts: [String: Int] = [:]
    private(set) var posted: [FakeMastodonSeed.Status] = []
    /// The ids of statuses deleted through the API, in order.
    private(set) var deletedByAPI: [String] = []
    private(set) var favourited: [(accountID: String, statusID: String)] = []
    private var nextFavouriteID: UInt64 = 1
    /// Mention notifications made so far, by recipient, oldest first, and the statuses they were made for.
    private var notificationsByRecipient: [String: [(id: UInt64, statusID: UInt64)]] = [:]
    private var notified: Set<UInt64> = []
    private var nextNotificationID: UInt64 = 1
    /// Calls per account and 5-minute window.
    var rateLimit = 300

    private var clockBase: Date
    private var realBase = Date()
    private(set) var speed = 0.0

    private let autoRepliers: [String]
    private var autoReplyCount = 0
    private var armedClock: (Date, Double)?

    init(seed: FakeMastodonSeed) {
        autoRepliers = seed.autoRepliers
        domain = seed.domain
        clockBase = seed.now
        for account in seed.accounts {
            accounts[account.id] = account
            if let token = account.token { accessTokens[token] = AccessToken(accountID: account.id, scopes: account.scopes) }
        }
        for status in seed.statuses { if let id = UInt64(status.id) { statuses[id] = status } }
        for (accountID, ids) in seed.favourites {
            for statusID in ids.reversed() {
                favourites[accountID, default: []].insert((nextFavouriteID, statusID), at: 0)
                nextFavouriteID += 1
            }
        }
        follows = seed.follows.mapValues(Set.init)
    }

    // MARK: - Clock, administration

    var now: Date { clockBase.addingTimeInterval(Date().timeIntervalSince(realBase) * speed) }
    func setClock(_ date: Date, speed newSpeed: Double? = nil) {
        clockBase = date
        realBase = Date()
        if let newSpeed { speed = newSpeed }
        Task { [bell] in await bell.ring() }
    }
    func advanceClock(by seconds: TimeInterval) { setClock(now.addingTimeInterval(seconds)) }
    func add(statuses new: [FakeMastodonSeed.Status]) { for status in new { if let id = UInt64(status.id) { statuses[id] = status } } }
    func add(fault: FakeMastodonFault) { faults.append(fault) }
    func delete(statusID: String) -> Bool { UInt64(statusID).flatMap { statuses.removeValue(forKey: $0) } != nil }
    /// Sets the clock when the next API request arrives, so that a bot started just now and the instance agree.
    func armClock(_ date: Date, speed newSpeed: Double) { armedClock = (date, newSpeed) }

    func countRequest(_ endpoint: String) {
        if let (date, newSpeed) = armedClock {
            armedClock = nil
            setClock(date, speed: newSpeed)
        }
        requestCounts[endpoint, default: 0] += 1
    }
    func setRateLimit(_ limit: Int) {
        rateLimit = limit
        windows = [:]
    }

    func takeFault(for endpoint: String) -> FakeMastodonFault.Kind? {
        guard let index = faults.firstIndex(where: { $0.endpoint == nil || $0.endpoint == endpoint }) else { return nil }
        let kind = faults[index].kind
        faults[index].count -= 1
        if faults[index].count <= 0 { faults.remove(at: index) }
        return kind
    }

    /// The answer of a fault met before any work (503, 429), nil for one met after it.
    func answerBeforeHandling(_ fault: FakeMastodonFault.Kind?) -> FakeMastodonResponse? {
        switch fault {
        case .serviceUnavailable?: return Self.error(503, "Service Unavailable")
        case .rateLimited?:
            var refusal = Self.error(429, "Too many requests")
            refusal.headers = [
                ("X-RateLimit-Limit", String(rateLimit)), ("X-RateLimit-Remaining", "0"),
                ("X-RateLimit-Reset", now.addingTimeInterval(300).formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))),
            ]
            return refusal
        case .dropAfterHandling?, nil: return nil
        }
    }

    // MARK: - Authentication and limits

    /// The account of a bearer token granted `scope` (or its parent `read`/`write`), or the error instances answer
    /// (Doorkeeper's words: an unknown token is invalid, a revoked one says so).
    func authenticate(_ authorization: String?, scope: String) -> Result<Caller, FakeMastodonResponse> {
        guard let authorization, authorization.hasPrefix("Bearer ") else { return .failure(Self.error(401, "The access token is invalid")) }
        let token = String(authorization.dropFirst("Bearer ".count))
        guard let access = accessTokens[token], let account = accounts[access.accountID] else {
            return .failure(Self.error(401, "The access token is invalid"))
        }
        guard !access.revoked else { return .failure(Self.error(401, "The access token was revoked")) }
        let parent = String(scope.split(separator: ":").first ?? "")
        guard access.scopes.contains(scope) || access.scopes.contains(parent) else {
            return .failure(Self.error(403, "This action is outside the authorized scopes"))
        }
        return .success(Caller(account: account, token: token, access: access))
    }

    /// Uses one call of the account's window: the three headers, or a 429 with them.
    func useRateLimit(accountID: String) -> Result<[(String, String)], FakeMastodonResponse> {
        let current = now
        var window = windows[accountID] ?? (current, 0)
        if current.timeIntervalSince(window.start) >= 300 { window = (current, 0) }
        let reset = window.start.addingTimeInterval(300)
        let headers = [
            ("X-RateLimit-Limit", String(rateLimit)), ("X-RateLimit-Remaining", String(max(0, rateLimit - window.used - 1))),
            ("X-RateLimit-Reset", reset.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))),
        ]
        guard window.used < rateLimit else {
            var refusal = Self.error(429, "Too many requests")
            refusal.headers = headers.map { $0.0 == "X-RateLimit-Remaining" ? ($0.0, "0") : $0 }
            return .failure(refusal)
        }
        window.used += 1
        windows[accountID] = window
        return .success(headers)
    }

    // MARK: - Endpoints

    func verifyCredentials(_ caller: Caller) -> FakeMastodonResponse {
        var fields = accountFields(caller.account)
        fields.append(
            (
                "source",
                .object([
                    ("privacy", .string("unlisted")), ("sensitive", .bool(false)), ("language", .string("ja")),
                    ("note", .string(WrittenPlain.text(ofHTML: caller.account.note))), ("fields", .array([])), ("indexable", .bool(false)),
                    ("follow_requests_count", .int(0)),
                ])
            ))
        fields.append(
            (
                "role",
                .object([
                    ("id", .string("-99")), ("name", .string("")), ("color", .string("")), ("permissions", .string("0")),
                    ("highlighted", .bool(false)),
                ])
            ))
        return FakeMastodonResponse(status: 200, body: .object(fields))
    }

    func accountStatuses(accountID: String, caller: Caller, query: [String: String], base: String) -> FakeMastodonResponse {
        guard accounts[accountID] != nil else { return Self.error(404, "Record not found") }
        let withoutReblogs = query["exclude_reblogs"] == "true"
        return page(to: caller, query: query, path: "/api/v1/accounts/\(accountID)/statuses", base: base, maxLimit: 40) {
            $0.accountID == accountID && !(withoutReblogs && $0.reblogOf != nil)
        }
    }

    func homeTimeline(caller: Caller, query: [String: String], base: String) -> FakeMastodonResponse {
        let followed = follows[caller.account.id] ?? []
        return page(to: caller, query: query, path: "/api/v1/timelines/home", base: base, maxLimit: 40) {
            followed.contains($0.accountID) || $0.accountID == caller.account.id
        }
    }

    func favouritesPage(caller: Caller, query: [String: String], base: String) -> FakeMastodonResponse {
        guard let limit = Self.limit(query, maximum: 40) else { return Self.error(422, "limit must be a number") }
        var entries = (favourites[caller.account.id] ?? []).filter { visibleStatus($0.statusID, to: caller) != nil }
        if let maxID = query["max_id"].flatMap(UInt64.init) { entries = entries.filter { $0.favouriteID < maxID } }
        let slice = Array(entries.prefix(limit))
        var response = FakeMastodonResponse(
            status: 200, body: .array(slice.compactMap { UInt64($0.statusID).flatMap { statuses[$0] } }.map(statusJSON)))
        if let last = slice.last, slice.count == limit {
            response.headers.append(("Link", "<\(base)/api/v1/favourites?limit=\(limit)&max_id=\(last.favouriteID)>; rel=\"next\""))
        }
        return response
    }

    func mentionNotifications(caller: Caller, query: [String: String], base: String) -> FakeMastodonResponse {
        let types = query["types[]"].map { [$0] } ?? []
        guard types.isEmpty || types == ["mention"] else { return FakeMastodonResponse(status: 200, body: .array([])) }
        guard let limit = Self.limit(query, maximum: 80) else { return Self.error(422, "limit must be a number") }
        var mentions = mentionNotifications(of: caller.account.id)
        if let sinceID = query["since_id"].flatMap(UInt64.init) { mentions = mentions.filter { $0.id > sinceID } }
        if let maxID = query["max_id"].flatMap(UInt64.init) { mentions = mentions.filter { $0.id < maxID } }
        let slice = Array(mentions.prefix(limit))
        var response = FakeMastodonResponse(status: 200, body: .array(slice.map { notificationJSON($0.id, $0.status) }))
        if let last = slice.last, slice.count == limit {
            response.headers.append(("Link", "<\(base)/api/v1/notifications?types[]=mention&limit=\(limit)&max_id=\(last.id)>; rel=\"next\""))
        }
        return response
    }

    /// The mention notifications of `accountID`, newest first. A notification is made when its status becomes visible
    /// on the instance's clock (as an instance makes it when the status arrives), numbered from 1 in that order:
    /// notification ids are the instance's own sequence, far below status ids, as on a real instance.
    func mentionNotifications(of accountID: String) -> [(id: UInt64, status: FakeMastodonSeed.Status)] {
        makeNotifications()
        return (notificationsByRecipient[accountID] ?? []).reversed().compactMap { notification in
            statuses[notification.statusID].map { (notification.id, $0) }
        }
    }

    /// Makes the notifications of the statuses the clock has revealed since the last call, and returns the time the
    /// next status waiting for its notification appears.
    @discardableResult
    private func makeNotifications() -> Date? {
        let current = now
        _ = orderedIDs()
        var ready: [UInt64] = []
        while let next = awaitingNotification.last, next.at <= current {
            ready.append(next.id)
            awaitingNotification.removeLast()
        }
        for statusID in ready.sorted() where !notified.contains(statusID) {
            guard let status = statuses[statusID] else { continue }
            notified.insert(statusID)
            for recipient in status.mentionIDs where recipient != status.accountID {
                notificationsByRecipient[recipient, default: []].append((nextNotificationID, statusID))
                nextNotificationID += 1
            }
        }
        return awaitingNotification.last?.at
    }

    /// A notification as the API and the stream write it.
    func notificationJSON(_ id: UInt64, _ status: FakeMastodonSeed.Status) -> JSONValue {
        .object([
            ("id", .string(String(id))), ("type", .string("mention")),
            ("group_key", .string("ungrouped-\(id)")), ("created_at", .time(status.createdAt)),
            ("account", .object(accounts[status.accountID].map(accountFields) ?? [])), ("status", statusJSON(status)),
        ])
    }

    func status(id: String, caller: Caller) -> FakeMastodonResponse {
        guard let status = visibleStatus(id, to: caller) else { return Self.error(404, "Record not found") }
        return FakeMastodonResponse(status: 200, body: statusJSON(status))
    }

    /// `DELETE /api/v1/statuses/:id`: the caller deletes a status of theirs (another's, or one gone, is not found).
    func deleteStatus(id: String, caller: Caller) -> FakeMastodonResponse {
        guard let number = UInt64(id), let status = statuses[number], status.accountID == caller.account.id else {
            return Self.error(404, "Record not found")
        }
        statuses[number] = nil
        posted.removeAll { $0.id == id }
        deletedByAPI.append(id)
        return FakeMastodonResponse(status: 200, body: statusJSON(status))
    }

    func postStatus(caller: Caller, body: Data, idempotencyKey: String?) -> FakeMastodonResponse {
        let keyed = idempotencyKey.map { caller.account.id + " " + $0 }
        if let keyed, let earlier = idempotency[keyed],
            now.timeIntervalSince(earlier.at) < Self.idempotencyKeyLifetime
                || (speed > 0 && Date().timeIntervalSince(earlier.realAt) < Self.keyKeptInRealTime),
            let id = UInt64(earlier.statusID), let status = statuses[id]
        {
            return FakeMastodonResponse(status: 200, body: statusJSON(status))
        }
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            return Self.error(422, "Validation failed: Text can't be blank")
        }
        let text = (object["status"] as? String) ?? ""
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return Self.error(422, "Validation failed: Text can't be blank") }
        guard text.count <= 500 else { return Self.error(422, "Validation failed: Text character limit of 500 exceeded") }
        let visibility = (object["visibility"] as? String) ?? "public"
        guard ["public", "unlisted", "private", "direct"].contains(visibility) else {
            return Self.error(422, "Visibility is not included in the list")
        }
        let inReplyToID = object["in_reply_to_id"] as? String
        if let inReplyToID, visibleStatus(inReplyToID, to: caller) == nil { return Self.error(404, "Record not found") }
        let mentioned = text.matches(of: /@([A-Za-z0-9_]+)/).compactMap { match in accounts.values.first { $0.username == String(match.1) }?.id }
        let id = nextID()
        let status = FakeMastodonSeed.Status(
            id: String(id), accountID: caller.account.id, content: Self.html(fromPlain: text), createdAt: now,
            visibility: visibility, spoilerText: (object["spoiler_text"] as? String) ?? "",
            inReplyToID: inReplyToID, mentionIDs: mentioned)
        statuses[id] = status
        posted.append(status)
        if let keyed { idempotency[keyed] = (status.id, now, Date()) }
        answerAsAutoRepliers(status)
        return FakeMastodonResponse(status: 200, body: statusJSON(status))
    }

    func favourite(statusID: String, caller: Caller) -> FakeMastodonResponse {
        guard let status = visibleStatus(statusID, to: caller) else { return Self.error(404, "Record not found") }
        if !(favourites[caller.account.id] ?? []).contains(where: { $0.statusID == statusID }) {
            favourites[caller.account.id, default: []].insert((nextFavouriteID, statusID), at: 0)
            nextFavouriteID += 1
            favourited.append((caller.account.id, statusID))
        }
        return FakeMastodonResponse(status: 200, body: statusJSON(status))
    }

    func statusContext(id: String, caller: Caller) -> FakeMastodonResponse {
        let visibleNow = visible(to: caller, query: [:], limit: .max) { _ in true }
        let byID = Dictionary(visibleNow.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        guard let status = byID[id] else { return Self.error(404, "Record not found") }
        var ancestors: [FakeMastodonSeed.Status] = []
        var parent = status.inReplyToID
        while let parentID = parent, let found = byID[parentID], !ancestors.contains(found) {
            ancestors.insert(found, at: 0)
            parent = found.inReplyToID
        }
        var descendants: [FakeMastodonSeed.Status] = []
        var frontier: Set<String> = [id]
        for candidate in visibleNow.reversed() where candidate.inReplyToID.map(frontier.contains) == true {
            descendants.append(candidate)
            frontier.insert(candidate.id)
        }
        return FakeMastodonResponse(
            status: 200,
            body: .object([
                ("ancestors", .array(ancestors.map(statusJSON))),
                ("descendants", .array(descendants.map(statusJSON))),
            ]))
    }

    func lookup(query: [String: String]) -> FakeMastodonResponse {
        guard let acct = query["acct"]?.lowercased(), !acct.isEmpty else { return Self.error(422, "acct is missing") }
        let local = acct.hasSuffix("@" + domain.lowercased()) ? String(acct.dropLast(domain.count + 1)) : acct
        guard let account = accounts.values.first(where: { $0.acct.lowercased() == local }) else { return Self.error(404, "Record not found") }
        return FakeMastodonResponse(status: 200, body: .object(accountFields(account)))
    }

    func application(of caller: Caller) -> FakeMastodonResponse {
        if let application = caller.access.clientID.flatMap({ oauth.applications[$0] }) {
            return FakeMastodonResponse(status: 200, body: .object(Self.applicationFields(application)))
        }
        return FakeMastodonResponse(
            status: 200,
            body: .object([
                ("id", .string("1")), ("name", .string("mirror_bot")), ("website", .null),
                ("scopes", .array(caller.access.scopes.sorted().map(JSONValue.string))),
                ("redirect_uri", .string("urn:ietf:wg:oauth:2.0:oob")), ("redirect_uris", .array([.string("urn:ietf:wg:oauth:2.0:oob")])),
                ("vapid_key", .string("BCk-QqERU0q-CfYZjcuB6lnyyOYfJ2AifKqfeGIm7Z-HiTU5T9eTG5GxVA0_OH5mMlI4UkkDTpaZwozy0TzdZ2M=")),
            ]))
    }

    // MARK: - Streaming

    /// Whether the streaming endpoint answers (an instance without streaming answers 404; a broken one 503).
    private(set) var streamingAvailable = true
    /// Bumped to cut every open stream.
    private(set) var streamGeneration = 0
    /// Streams opened so far.
    private(set) var streamsOpened = 0

    /// False once the server shuts down: every stream ends.
    private(set) var streamsOpen = true

    func setStreamingAvailable(_ available: Bool) { streamingAvailable = available }
    func endStreams() {
        streamsOpen = false
        Task { [bell] in await bell.ring() }
    }
    func cutStreams() {
        streamGeneration += 1
        Task { [bell] in await bell.ring() }
    }
    func countStreamOpened() { streamsOpened += 1 }

    /// The newest notification id of `accountID` now (a stream sends only what comes after it).
    func newestNotificationID(of accountID: String) -> UInt64 { mentionNotifications(of: accountID).first?.id ?? 0 }

    /// The notifications of `accountID` newer than `id`, oldest first, as the events a stream sends, and the real
    /// seconds until the clock reveals the next status waiting for its notification.
    func notificationEvents(of accountID: String, after id: UInt64) -> (events: [(id: UInt64, event: String)], realSecondsToNext: Double) {
        let current = now
        let nextReveal = makeNotifications()
        let newer = (notificationsByRecipient[accountID] ?? []).reversed().prefix { $0.id > id }.reversed()
        let events = newer.compactMap { notification -> (id: UInt64, event: String)? in
            guard let status = statuses[notification.statusID] else { return nil }
            return (
                notification.id,
                "event: notification\ndata: " + String(decoding: notificationJSON(notification.id, status).data(), as: UTF8.self) + "\n\n"
            )
        }
        return (events, StreamBell.realSeconds(until: nextReveal, from: current, speed: speed))
    }

    func instance() -> FakeMastodonResponse {
        FakeMastodonResponse(
            status: 200,
            body: .object([
                ("domain", .string(domain)), ("title", .string("Fake Mastodon")), ("version", .string("4.5.0")),
                ("source_url", .string("https://github.com/mastodon/mastodon")), ("description", .string("mirror_bot's fake instance")),
                ("usage", .object([("users", .object([("active_month", .int(accounts.count))]))])),
                ("thumbnail", .object([("url", .string("https://\(domain)/thumbnail.png"))])), ("icon", .array([])),
                ("languages", .array([.string("ja")])),
                (
                    "configuration",
                    .object([
                        ("urls", .object([("streaming", .string("wss://\(domain)"))])),
                        ("accounts", .object([("max_featured_tags", .int(10)), ("max_pinned_statuses", .int(5))])),
                        (
                            "media_attachments",
                            .object([
                                ("image_matrix_limit", .int(33_177_600)), ("image_size_limit", .int(16_777_216)),
                                ("supported_mime_types", .array([.string("image/jpeg"), .string("image/png")])),
                                ("video_frame_rate_limit", .int(120)), ("video_matrix_limit", .int(8_294_400)),
                                ("video_size_limit", .int(103_809_024)),
                            ])
                        ),
                        (
                            "polls",
                            .object([
                                ("max_options", .int(4)), ("max_characters_per_option", .int(50)), ("min_expiration", .int(300)),
                                ("max_expiration", .int(2_629_746)),
                            ])
                        ),
                        ("translation", .object([("enabled", .bool(false))])),
                        (
                            "statuses",
                            .object([
                                ("max_characters", .int(500)), ("max_media_attachments", .int(4)),
                                ("characters_reserved_per_url", .int(23)),
                            ])
                        ),
                    ])
                ),
                ("registrations", .object([("enabled", .bool(false)), ("approval_required", .bool(false)), ("message", .null)])),
                ("api_versions", .object([("mastodon", .int(6))])),
                ("contact", .object([("email", .string("admin@\(domain)")), ("account", .null)])),
                ("rules", .array([])),
            ]))
    }

    /// Each auto-replier mentioned or answered by `status` answers it 30 seconds later, mentioning its author.
    private func answerAsAutoRepliers(_ status: FakeMastodonSeed.Status) {
        guard let author = accounts[status.accountID] else { return }
        let parentAuthor = status.inReplyToID.flatMap(UInt64.init).flatMap { statuses[$0] }?.accountID
        for replierID in autoRepliers where replierID != status.accountID && (status.mentionIDs.contains(replierID) || parentAuthor == replierID) {
            autoReplyCount += 1
            let phrases = ["なるほど、それで？", "わかる", "それな", "本当に？", "もっと聞かせて"]
            let at = now.addingTimeInterval(30)
            let id = nextID(at: at)
            statuses[id] = FakeMastodonSeed.Status(
                id: String(id), accountID: replierID,
                content: Self.html(fromPlain: "@\(author.username) \(phrases[autoReplyCount % phrases.count]) (\(autoReplyCount))"),
                createdAt: at, visibility: status.visibility == "direct" ? "direct" : "public", inReplyToID: status.id,
                mentionIDs: [status.accountID])
        }
    }

    /// A status's HTML as the plain text it was made from (the inverse of `html(fromPlain:)`, tags of links and
    /// mentions dropped): what the admin state reports.
    static func plain(fromHTML html: String) -> String {
        html.replacingOccurrences(of: "</p><p>", with: "\n\n").replacing(/<br\s*\/?>/, with: "\n").replacing(/<[^>]*>/, with: "")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }

    /// The posted statuses as the persona's posts.
    func postedAsPosts() -> [FakePersona.Post] {
        posted.map { status in
            FakePersona.Post(
                id: status.id, authorID: status.accountID, text: Self.plain(fromHTML: status.content), createdAt: status.createdAt,
                inReplyToPostID: status.inReplyToID, inReplyToAccountID: parentAuthor(of: status))
        }
    }

    /// The author of the status `id` answers, if known.
    func parentAuthor(of status: FakeMastodonSeed.Status) -> String? {
        status.inReplyToID.flatMap(UInt64.init).flatMap { statuses[$0] }?.accountID
    }

    // MARK: - Helpers

    /// The statuses' ids, ascending (the index made again if the statuses changed).
    private func orderedIDs() -> [UInt64] {
        if indexIsStale {
            ascendingIDs = statuses.keys.sorted()
            countsByAccount = [:]
            for status in statuses.values { countsByAccount[status.accountID, default: 0] += 1 }
            awaitingNotification = statuses.filter { !notified.contains($0.key) }.map { ($0.value.createdAt, $0.key) }
                .sorted { ($0.at, $0.id) > ($1.at, $1.id) }
            indexIsStale = false
        }
        return ascendingIDs
    }

    /// The statuses visible to the caller now that `matches` keeps, newest first, within a page's bounds (`max_id`,
    /// `since_id`, `min_id`) and `limit`: public and unlisted ones, private ones of accounts it follows and its own,
    /// direct ones it wrote or is mentioned in. `min_id` pages upward: the oldest `limit` newer than it.
    private func visible(to caller: Caller, query: [String: String], limit: Int, matching matches: (FakeMastodonSeed.Status) -> Bool)
        -> [FakeMastodonSeed.Status]
    {
        let current = now
        let followed = follows[caller.account.id] ?? []
        let maxID = query["max_id"].flatMap(UInt64.init)
        let minID = query["min_id"].flatMap(UInt64.init)
        let lowest = max(query["since_id"].flatMap(UInt64.init) ?? 0, minID ?? 0)
        var items: [FakeMastodonSeed.Status] = []
        for id in orderedIDs().reversed() {
            if let maxID, id >= maxID { continue }
            if id <= lowest { break }
            guard let status = statuses[id], matches(status), isVisible(status, to: caller, now: current, followed: followed) else { continue }
            items.append(status)
            if minID == nil && items.count == limit { break }
        }
        return minID != nil ? Array(items.suffix(limit)) : items
    }

    /// The one status `id` if `caller` may see it now (a lookup, without sorting every status).
    private func visibleStatus(_ id: String, to caller: Caller) -> FakeMastodonSeed.Status? {
        guard let number = UInt64(id), let status = statuses[number] else { return nil }
        return isVisible(status, to: caller, now: now, followed: follows[caller.account.id] ?? []) ? status : nil
    }

    /// Whether `caller` may see `status` at `now`: posted by then, and its visibility lets them.
    private func isVisible(_ status: FakeMastodonSeed.Status, to caller: Caller, now current: Date, followed: Set<String>) -> Bool {
        let me = caller.account.id
        guard status.createdAt <= current else { return false }
        switch status.visibility {
        case "private": return status.accountID == me || followed.contains(status.accountID) || status.mentionIDs.contains(me)
        case "direct": return status.accountID == me || status.mentionIDs.contains(me)
        default: return true
        }
    }

    /// A page of the statuses visible to `caller` that `matches` keeps, by `since_id`, `min_id`, `max_id` and `limit`
    /// (newest first, also when paging upward by `min_id`), with its `Link` header.
    private func page(
        to caller: Caller, query: [String: String], path: String, base: String, maxLimit: Int,
        matching matches: (FakeMastodonSeed.Status) -> Bool
    ) -> FakeMastodonResponse {
        guard let limit = Self.limit(query, maximum: maxLimit) else { return Self.error(422, "limit must be a number") }
        let items = visible(to: caller, query: query, limit: limit, matching: matches)
        var response = FakeMastodonResponse(status: 200, body: .array(items.map(statusJSON)))
        if let first = items.first, let last = items.last {
            var kept = query.filter { ["exclude_reblogs", "limit"].contains($0.key) }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            if kept.isEmpty { kept = [] }
            let prefix = "\(base)\(path)?" + kept.map { $0 + "&" }.joined()
            response.headers.append(("Link", "<\(prefix)max_id=\(last.id)>; rel=\"next\", <\(prefix)min_id=\(first.id)>; rel=\"prev\""))
        }
        return response
    }

    /// An id for a status made at `date` (now when nil). Mastodon's ids grow with time: the new id follows the
    /// newest status made by then, and stays below the seeded ones of later times (which a bot reading "since" its
    /// own post must still see as newer).
    private func nextID(at date: Date? = nil) -> UInt64 {
        let time = date ?? now
        let newestByThen = orderedIDs().reversed().first { statuses[$0].map { $0.createdAt <= time } ?? false }
        var id = (newestByThen ?? UInt64(max(0, time.timeIntervalSince1970 * 1000)) << 16) + 1
        while statuses[id] != nil { id += 1 }
        return id
    }

    static func limit(_ query: [String: String], maximum: Int) -> Int? {
        guard let text = query["limit"] else { return min(20, maximum) }
        guard let number = Int(text) else { return nil }
        return min(max(number, 1), maximum)
    }

    static func error(_ status: Int, _ message: String) -> FakeMastodonResponse {
        FakeMastodonResponse(status: status, body: .object([("error", .string(message))]))
    }

    /// Plain text as an instance stores it: escaped, line breaks as `<br />`, blank lines as paragraphs, mentions as
    /// links.
    static func html(fromPlain text: String) -> String {
        let escaped = text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "'", with: "&#39;")
        return escaped.components(separatedBy: "\n\n").map { "<p>" + $0.replacingOccurrences(of: "\n", with: "<br />") + "</p>" }.joined()
    }

    private func accountFields(_ account: FakeMastodonSeed.Account) -> [(String, JSONValue)] {
        let created = Date(timeIntervalSince1970: 1_600_000_000)
        let url = "https://\(domain)/@\(account.username)"
        _ = orderedIDs()
        let count = countsByAccount[account.id] ?? 0
        return [
            ("id", .string(account.id)), ("username", .string(account.username)), ("acct", .string(account.acct)),
            ("display_name", .string(account.username)), ("locked", .bool(false)), ("bot", .bool(account.bot)),
            ("discoverable", .bool(true)), ("indexable", .bool(false)), ("group", .bool(false)), ("created_at", .time(created)),
            ("note", .string(account.note)), ("url", .string(url)), ("uri", .string("https://\(domain)/users/\(account.username)")),
            ("avatar", .string("https://\(domain)/avatars/original/missing.png")),
            ("avatar_static", .string("https://\(domain)/avatars/original/missing.png")),
            ("header", .string("https://\(domain)/headers/original/missing.png")),
            ("header_static", .string("https://\(domain)/headers/original/missing.png")),
            ("followers_count", .int(0)), ("following_count", .int(follows[account.id]?.count ?? 0)), ("statuses_count", .int(count)),
            ("emojis", .array([])),
            (
                "fields",
                .array(
                    account.fields.map { field in
                        let verified = verifiedLink(of: account, to: field.value)
                        let value =
                            field.value.hasPrefix("https://") || field.value.hasPrefix("http://")
                            ? #"<a href="\#(field.value)" target="_blank" rel="nofollow noopener me">\#(field.value)</a>"# : field.value
                        return .object([
                            ("name", .string(field.name)), ("value", .string(value)),
                            ("verified_at", verified ? .time(Date(timeIntervalSince1970: 1_700_000_000)) : .null),
                        ])
                    })
            ),
        ]
    }

    /// Whether `account`'s field linking to `address` is verified: as Mastodon fetches the page a field links to and
    /// looks for a `rel="me"` link back to the account, and a profile page here renders its fields' links with
    /// `rel="me"`, a link to another account's profile here is verified when that profile's fields link back.
    private func verifiedLink(of account: FakeMastodonSeed.Account, to address: String) -> Bool {
        let own = "https://\(domain)/@\(account.username)"
        guard let linked = accounts.values.first(where: { "https://\(domain)/@\($0.username)" == address && $0.domain == nil }) else { return false }
        return linked.fields.contains { $0.value == own }
    }

    private func statusJSON(_ status: FakeMastodonSeed.Status) -> JSONValue {
        let author = accounts[status.accountID] ?? FakeMastodonSeed.Account(id: status.accountID, username: "unknown\(status.accountID)")
        let parent = status.inReplyToID.flatMap(UInt64.init).flatMap { statuses[$0] }
        let boosted = status.reblogOf.flatMap(UInt64.init).flatMap { statuses[$0] }
        let mentions = status.mentionIDs.compactMap { accounts[$0] }.map { account in
            JSONValue.object([
                ("id", .string(account.id)), ("username", .string(account.username)), ("url", .string("https://\(domain)/@\(account.username)")),
                ("acct", .string(account.acct)),
            ])
        }
        return .object([
            ("id", .string(status.id)), ("created_at", .time(status.createdAt)),
            ("in_reply_to_id", status.inReplyToID.map(JSONValue.string) ?? .null),
            ("in_reply_to_account_id", parent.map { .string($0.accountID) } ?? .null),
            ("sensitive", .bool(!status.spoilerText.isEmpty)), ("spoiler_text", .string(status.spoilerText)),
            ("visibility", .string(status.visibility)), ("language", .string("ja")),
            ("uri", .string("https://\(domain)/users/\(author.username)/statuses/\(status.id)")),
            ("url", .string("https://\(domain)/@\(author.username)/\(status.id)")),
            ("replies_count", .int(0)), ("reblogs_count", .int(0)),
            ("favourites_count", .int(favourites.values.filter { $0.contains { $0.statusID == status.id } }.count)),
            ("content", .string(boosted == nil ? status.content : "")),
            ("reblog", boosted.map(statusJSON) ?? .null),
            ("account", .object(accountFields(author))),
            ("media_attachments", .array([])), ("mentions", .array(mentions)), ("tags", .array([])), ("emojis", .array([])),
            ("card", .null), ("poll", .null),
        ])
    }
}

/// The plain text of a profile note, for `source.note` (the fake's own simple rule: tags dropped).
enum WrittenPlain {
    static func text(ofHTML html: String) -> String { html.replacing(/<[^>]*>/, with: "") }
}
