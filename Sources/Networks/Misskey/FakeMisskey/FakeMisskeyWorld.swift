import FakeKit
import Foundation
import MisskeyAPI
import SeededRandom

/// An answer of the fake instance: status, JSON body (nil: 204), extra headers.
struct FakeMisskeyResponse: Error, Sendable {
    var status: Int
    var body: JSONValue?
    var headers: [(String, String)] = []
}

/// A request's JSON body, its values kept as the endpoints read them.
struct FakeMisskeyParameters: Sendable {
    enum Value: Sendable, Decodable {
        case string(String)
        case int(Int)
        case bool(Bool)
        case strings([String])
        case other
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let flag = try? container.decode(Bool.self) {
                self = .bool(flag)
            } else if let number = try? container.decode(Int.self) {
                self = .int(number)
            } else if let text = try? container.decode(String.self) {
                self = .string(text)
            } else if let list = try? container.decode([String].self) {
                self = .strings(list)
            } else {
                self = .other
            }
        }
    }
    let values: [String: Value]

    /// The body of `data`, nil when it is not a JSON object.
    init?(_ data: Data) {
        guard let values = try? JSONDecoder().decode([String: Value].self, from: data.isEmpty ? Data("{}".utf8) : data) else { return nil }
        self.values = values
    }
    func string(_ name: String) -> String? { if case .string(let value)? = values[name] { value } else { nil } }
    func int(_ name: String) -> Int? { if case .int(let value)? = values[name] { value } else { nil } }
    func bool(_ name: String) -> Bool? { if case .bool(let value)? = values[name] { value } else { nil } }
    func strings(_ name: String) -> [String]? { if case .strings(let value)? = values[name] { value } else { nil } }
}

/// A fault the next `count` matching requests meet.
public struct FakeMisskeyFault: Sendable, Equatable {
    /// What happens.
    public enum Kind: String, Sendable, Codable {
        /// 503 before doing anything.
        case serviceUnavailable
        /// 429 `RATE_LIMIT_EXCEEDED` before doing anything, with `Retry-After`.
        case rateLimited
        /// The request is carried out, then the connection is closed before the answer (a lost answer).
        case dropAfterHandling
        /// 200 with a body that is not JSON.
        case malformed
    }
    /// What happens.
    public var kind: Kind
    /// The endpoint it applies to (nil: the next request of any endpoint).
    public var endpoint: String?
    /// How many requests it hits.
    public var count: Int
    /// Seconds `Retry-After` says, for `rateLimited`.
    public var retryAfter: Int
    /// A fault from its parts.
    public init(kind: Kind, count: Int = 1, endpoint: String? = nil, retryAfter: Int = 30) {
        self.kind = kind
        self.count = count
        self.endpoint = endpoint
        self.retryAfter = retryAfter
    }
}

/// The fake instance's state: accounts, notes, reactions, follows, rate limits and faults, on its own clock.
actor FakeMisskeyWorld: AdjustableFakeClock {
    struct Caller { var account: FakeMisskeySeed.Account }

    let host: String
    let maxNoteTextLength: Int
    private var accounts: [String: FakeMisskeySeed.Account] = [:]
    private var accountsByToken: [String: String] = [:]
    /// Notes by id (ids of one length sort by time).
    private var notes: [String: FakeMisskeySeed.Note] = [:] {
        didSet {
            indexIsStale = true
            Task { [bell] in await bell.ring() }
        }
    }
    /// Wakes the open streams when the notes change or the clock is set.
    let bell = StreamBell()
    /// The notes newest first, each user's count and each note's mentions: made again after the notes change (a
    /// fleet's bots and their streams read far more often than they write; a request no longer sorts every note).
    private var indexIsStale = true
    private var newestFirstNotes: [FakeMisskeySeed.Note] = []
    /// For each place in `newestFirstNotes`, the earliest time of a note up to it (so the notes still to come on the
    /// clock, which lead the index, are passed over by a binary search).
    private var earliestUpTo: [Date] = []
    private var countsByUser: [String: Int] = [:]
    private var mentionsByNote: [String: [String]] = [:]
    private var reactions: [String: [(id: String, noteID: String, reaction: String, at: Date)]] = [:]
    private var follows: [String: Set<String>]
    private var faults: [FakeMisskeyFault] = []
    private(set) var requestCounts: [String: Int] = [:]
    private(set) var posted: [FakeMisskeySeed.Note] = []
    private(set) var deletedByAPI: [String] = []
    private(set) var reacted: [(userID: String, noteID: String, reaction: String)] = []
    /// `notes/create` calls per account in the hour (Misskey's limit: 300 an hour).
    private var createWindows: [String: (start: Date, used: Int)] = [:]
    var createLimitPerHour = 300
    /// MiAuth sessions: approved ones carry the token made, fetched ones are spent.
    private var miAuthSessions: [String: (token: String?, fetched: Bool, permissions: [String])] = [:]

    private var clockBase: Date
    private var realBase = Date()
    private(set) var speed = 0.0
    private var armedClock: (Date, Double)?
    private let autoRepliers: [String]
    private var autoReplyCount = 0
    /// Persona ids of the seeded notes and accounts (for the demo's report).
    let personaNoteIDs: [String: String], personaUserIDs: [String: String]
    private var counter = 0

    /// Seeded faults: the share of writes whose answer is lost after the work, and of reads answered 500.
    private var lostAnswerRate = 0.0, failedReadRate = 0.0
    private var faultRandom = SplitMix64(seed: 1)

    init(seed: FakeMisskeySeed) {
        host = seed.host
        maxNoteTextLength = seed.maxNoteTextLength
        clockBase = seed.now
        autoRepliers = seed.autoRepliers
        personaNoteIDs = seed.personaNoteIDs
        personaUserIDs = seed.personaUserIDs
        for account in seed.accounts {
            accounts[account.id] = account
            if let token = account.token { accountsByToken[token] = account.id }
        }
        for note in seed.notes { notes[note.id] = note }
        var number = 0
        for (userID, list) in seed.reactions {
            for (offset, entry) in list.reversed().enumerated() {
                number += 1
                let at = (notes[entry.noteID]?.createdAt ?? seed.now).addingTimeInterval(Double(60 + offset))
                reactions[userID, default: []].insert(
                    (FakeMisskeySeed.aidx(at: at, node: "reac", counter: number), entry.noteID, entry.reaction, at), at: 0)
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
    func armClock(_ date: Date, speed newSpeed: Double) { armedClock = (date, newSpeed) }
    func add(notes new: [FakeMisskeySeed.Note]) { for note in new { notes[note.id] = note } }
    func add(fault: FakeMisskeyFault) { faults.append(fault) }
    func delete(noteID: String) -> Bool { notes.removeValue(forKey: noteID) != nil }
    func setFaultRates(lostAnswers: Double, failedReads: Double, seed: UInt64) {
        lostAnswerRate = lostAnswers
        failedReadRate = failedReads
        faultRandom = SplitMix64(seed: seed)
    }
    func setCreateLimit(_ perHour: Int) {
        createLimitPerHour = perHour
        createWindows = [:]
    }
    func note(_ id: String) -> FakeMisskeySeed.Note? { notes[id] }
    func account(_ id: String) -> FakeMisskeySeed.Account? { accounts[id] }

    func countRequest(_ endpoint: String) {
        if let (date, newSpeed) = armedClock {
            armedClock = nil
            setClock(date, speed: newSpeed)
        }
        requestCounts[endpoint, default: 0] += 1
    }

    /// The fault this request meets: a queued one, else one of the seeded rates (a lost answer for a write, a 500 for
    /// a read).
    func takeFault(for endpoint: String, isWrite: Bool) -> FakeMisskeyFault? {
        if let index = faults.firstIndex(where: { $0.endpoint == nil || $0.endpoint == endpoint }) {
            let fault = faults[index]
            faults[index].count -= 1
            if faults[index].count <= 0 { faults.remove(at: index) }
            return fault
        }
        let rate = isWrite ? lostAnswerRate : failedReadRate
        guard rate > 0, Double(faultRandom.next() >> 11) / Double(1 << 53) < rate else { return nil }
        return FakeMisskeyFault(kind: isWrite ? .dropAfterHandling : .serviceUnavailable, endpoint: endpoint)
    }

    // MARK: - Authentication

    /// The account `accountID` revoked its tokens (Settings → Connected apps → revoke): each answers 401 from now on.
    func revokeTokens(of accountID: String) {
        accountsByToken = accountsByToken.filter { $0.value != accountID && !$0.value.hasPrefix(accountID + "#") }
    }

    /// The account of the token `i`, with `permission` when one is needed: Misskey's 401 for a token it does not know,
    /// 403 `PERMISSION_DENIED` for one without the permission.
    func authenticate(_ token: String?, permission: String?, required: Bool) -> Result<Caller?, FakeMisskeyResponse> {
        guard let token else {
            return required
                ? .failure(Self.error(401, "CREDENTIAL_REQUIRED", "Credential required.", id: "1384574d-a912-4b81-8601-c7b1c4085df1")) : .success(nil)
        }
        guard let accountID = accountsByToken[token], let account = accounts[accountID] else {
            return .failure(
                Self.error(
                    401, "AUTHENTICATION_FAILED", "Authentication failed. Please ensure your token is correct.",
                    id: "b0a7f5f8-dc2f-4171-b91f-de88ad238e14"))
        }
        if let permission, !account.permissions.contains(permission) {
            return .failure(
                Self.error(
                    403, "PERMISSION_DENIED", "Your app does not have the necessary permissions to use this endpoint.",
                    id: "1370e5b7-d4eb-4566-bb1d-7748ee6a1838", kind: "permission"))
        }
        return .success(Caller(account: account))
    }

    // MARK: - Endpoints

    func me(_ caller: Caller) -> FakeMisskeyResponse { FakeMisskeyResponse(status: 200, body: userJSON(caller.account, detailed: true, me: true)) }

    func showUser(_ body: FakeMisskeyParameters) -> FakeMisskeyResponse {
        guard let userID = body.string("userId"), let account = accounts[userID] else {
            return Self.error(400, "NO_SUCH_USER", "No such user.", id: "4362f8dc-731f-4ad8-a694-be5a88922a24")
        }
        return FakeMisskeyResponse(status: 200, body: userJSON(account, detailed: true))
    }

    func meta() -> FakeMisskeyResponse {
        FakeMisskeyResponse(
            status: 200,
            body: .object([
                ("name", .string("Fake Misskey")), ("uri", .string("https://\(host)")),
                ("version", .string("2025.4.0")), ("maxNoteTextLength", .int(maxNoteTextLength)),
            ]))
    }

    func userNotes(_ body: FakeMisskeyParameters, caller: Caller?) -> FakeMisskeyResponse {
        guard let userID = body.string("userId"), accounts[userID] != nil else {
            return Self.error(400, "NO_SUCH_USER", "No such user.", id: "27e494ba-2ac2-48e8-893b-10d4d8c2387b")
        }
        let withReplies = (body.bool("withReplies")) ?? false
        let withRenotes = (body.bool("withRenotes")) ?? true
        return page(body: body, caller: caller) { note in
            note.userID == userID && (withReplies || note.replyID == nil) && (withRenotes || !isPureRenote(note))
        }
    }

    func mentions(_ body: FakeMisskeyParameters, caller: Caller) -> FakeMisskeyResponse {
        // notes/mentions orders newest first whatever the bounds (its own ORDER BY).
        page(body: body, caller: caller, alwaysNewestFirst: true) {
            mentionedIDs(of: $0).contains(caller.account.id) && $0.userID != caller.account.id
        }
    }

    func timeline(_ body: FakeMisskeyParameters, caller: Caller) -> FakeMisskeyResponse {
        let followed = follows[caller.account.id] ?? []
        let withRenotes = (body.bool("withRenotes")) ?? true
        return page(body: body, caller: caller) { note in
            (followed.contains(note.userID) || note.userID == caller.account.id) && note.visibility != "specified"
                && (withRenotes || !isPureRenote(note))
        }
    }

    func showNote(_ body: FakeMisskeyParameters, caller: Caller?) -> FakeMisskeyResponse {
        guard let noteID = body.string("noteId"), let note = notes[noteID], isVisible(note, to: caller, now: now) else {
            return Self.error(400, "NO_SUCH_NOTE", "No such note.", id: "24fcbfc6-2e37-42b6-8388-c29b3861a08d")
        }
        return FakeMisskeyResponse(status: 200, body: noteJSON(note, for: caller))
    }

    func createNote(_ body: FakeMisskeyParameters, caller: Caller) -> FakeMisskeyResponse {
        let current = now
        var window = createWindows[caller.account.id] ?? (current, 0)
        if current.timeIntervalSince(window.start) >= 3600 { window = (current, 0) }
        guard window.used < createLimitPerHour else {
            var refusal = Self.error(
                429, "RATE_LIMIT_EXCEEDED", "Rate limit exceeded. Please try again later.", id: "d5826d14-3982-4d2e-8011-b9e9f02499ef")
            refusal.headers = [("Retry-After", String(Int(window.start.addingTimeInterval(3600).timeIntervalSince(current).rounded(.up))))]
            return refusal
        }
        let text = body.string("text")
        guard let text, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            return Self.error(400, "INVALID_PARAM", "Invalid param.", id: "3d81ceae-475f-4600-b2a8-2bc116157532")
        }
        guard text.count <= maxNoteTextLength else {
            return Self.error(
                400, "INVALID_PARAM", "Invalid param. (text: must NOT have more than \(maxNoteTextLength) characters)",
                id: "3d81ceae-475f-4600-b2a8-2bc116157532")
        }
        let visibility = (body.string("visibility")) ?? "public"
        guard ["public", "home", "followers", "specified"].contains(visibility) else {
            return Self.error(
                400, "INVALID_PARAM", "Invalid param. (visibility: must be equal to one of the allowed values)",
                id: "3d81ceae-475f-4600-b2a8-2bc116157532")
        }
        let cw = body.string("cw")
        if let cw, cw.isEmpty || cw.count > 100 {
            return Self.error(400, "INVALID_PARAM", "Invalid param. (cw: length 1 to 100)", id: "3d81ceae-475f-4600-b2a8-2bc116157532")
        }
        let replyID = body.string("replyId")
        if let replyID {
            guard let parent = notes[replyID], isVisible(parent, to: caller, now: current) else {
                return Self.error(400, "NO_SUCH_REPLY_TARGET", "No such reply target.", id: "749ee0f6-d3da-459a-bf02-282e2da4292c")
            }
            if isPureRenote(parent) {
                return Self.error(
                    400, "CANNOT_REPLY_TO_A_PURE_RENOTE", "You can not reply to a pure Renote.", id: "3ac74a84-8fd5-4bb0-870f-01804f82ce15")
            }
        }
        window.used += 1
        createWindows[caller.account.id] = window
        let note = FakeMisskeySeed.Note(
            id: nextID(at: current), userID: caller.account.id, text: text, cw: cw, visibility: visibility,
            localOnly: (body.bool("localOnly")) ?? false, replyID: replyID, createdAt: current,
            visibleUserIDs: (body.strings("visibleUserIds")) ?? [])
        insert(note)
        posted.append(note)
        answerAsAutoRepliers(note)
        return FakeMisskeyResponse(status: 200, body: .object([("createdNote", noteJSON(note, for: caller))]))
    }

    func deleteNote(_ body: FakeMisskeyParameters, caller: Caller) -> FakeMisskeyResponse {
        guard let noteID = body.string("noteId"), let note = notes[noteID] else {
            return Self.error(400, "NO_SUCH_NOTE", "No such note.", id: "490be23f-8c1f-4796-819f-94cb4f9d1630")
        }
        guard note.userID == caller.account.id else {
            return Self.error(403, "ACCESS_DENIED", "Access denied.", id: "fe8d7103-0ea8-4ec3-814d-f8b401dc69e9", kind: "permission")
        }
        notes[noteID] = nil
        posted.removeAll { $0.id == noteID }
        deletedByAPI.append(noteID)
        return FakeMisskeyResponse(status: 204, body: nil)
    }

    func react(_ body: FakeMisskeyParameters, caller: Caller) -> FakeMisskeyResponse {
        guard let noteID = body.string("noteId"), let note = notes[noteID], isVisible(note, to: caller, now: now) else {
            return Self.error(400, "NO_SUCH_NOTE", "No such note.", id: "033d0620-5bfe-4027-965d-980b0c85a3ea")
        }
        guard let reaction = body.string("reaction"), !reaction.isEmpty else {
            return Self.error(400, "INVALID_PARAM", "Invalid param.", id: "3d81ceae-475f-4600-b2a8-2bc116157532")
        }
        guard !isPureRenote(note) else {
            return Self.error(400, "CANNOT_REACT_TO_RENOTE", "You cannot react to Renote.", id: "12c35529-3c79-4327-b1cc-e2cf63a71925")
        }
        if (reactions[caller.account.id] ?? []).contains(where: { $0.noteID == noteID }) {
            return Self.error(400, "ALREADY_REACTED", "You are already reacting to that note.", id: "71efcf98-86d6-4e2b-b2ad-9d032369366b")
        }
        counter += 1
        reactions[caller.account.id, default: []].insert(
            (FakeMisskeySeed.aidx(at: now, node: "reac", counter: counter), noteID, reaction, now), at: 0)
        reacted.append((caller.account.id, noteID, reaction))
        return FakeMisskeyResponse(status: 204, body: nil)
    }

    func userReactions(_ body: FakeMisskeyParameters, caller: Caller?) -> FakeMisskeyResponse {
        guard let userID = body.string("userId"), let account = accounts[userID] else {
            return Self.error(400, "NO_SUCH_USER", "No such user.", id: "27e494ba-2ac2-48e8-893b-10d4d8c2387b")
        }
        guard account.publicReactions || caller?.account.id == userID else {
            return Self.error(400, "REACTIONS_NOT_PUBLIC", "Reactions of the user is not public.", id: "673a7dd2-6924-1093-e0c0-e68456ceae5c")
        }
        let current = now
        let items = (reactions[userID] ?? []).filter { $0.at <= current }.compactMap { entry -> (String, JSONValue)? in
            guard let note = notes[entry.noteID], isVisible(note, to: caller, now: current) else { return nil }
            return (
                entry.id,
                .object([
                    ("id", .string(entry.id)), ("createdAt", .time(entry.at)), ("user", userJSON(account, detailed: false)),
                    ("type", .string(entry.reaction)), ("note", noteJSON(note, for: caller)),
                ])
            )
        }
        return paged(items, body: body, alwaysNewestFirst: false) { $0 }
    }

    /// MiAuth: the person approves the session (the fake's consent page), as `accountID`, with `permissions`.
    func approveMiAuth(session: String, accountID: String, permissions: [String]) -> Bool {
        guard var account = accounts[accountID] else { return false }
        counter += 1
        let token = "miauth-\(session.prefix(8))-\(counter)"
        account.permissions = Set(permissions)
        account.token = token
        // The approved token acts as the account with the permissions asked for (a second token of the same account).
        accountsByToken[token] = "\(accountID)#\(token)"
        accounts["\(accountID)#\(token)"] = account
        miAuthSessions[session] = (token, false, permissions)
        return true
    }

    /// `POST /api/miauth/:session/check`: the token once, then `ok: false`.
    func checkMiAuth(session: String) -> FakeMisskeyResponse {
        guard let entry = miAuthSessions[session], let token = entry.token, !entry.fetched,
            let account = accountsByToken[token].flatMap({ accounts[$0] })
        else {
            return FakeMisskeyResponse(status: 200, body: .object([("ok", .bool(false))]))
        }
        miAuthSessions[session]?.fetched = true
        var user = account
        user.id = String(account.id.split(separator: "#").first ?? "")
        return FakeMisskeyResponse(
            status: 200, body: .object([("ok", .bool(true)), ("token", .string(token)), ("user", userJSON(user, detailed: true))]))
    }

    // MARK: - Streaming

    /// Cut streams end; bumped to cut every open one.
    private(set) var streamGeneration = 0
    private(set) var streamsOpened = 0
    private(set) var streamingAvailable = true
    private(set) var streamsOpen = true
    func setStreamingAvailable(_ available: Bool) { streamingAvailable = available }
    func cutStreams() {
        streamGeneration += 1
        Task { [bell] in await bell.ring() }
    }
    func endStreams() {
        streamsOpen = false
        Task { [bell] in await bell.ring() }
    }
    func countStreamOpened() { streamsOpened += 1 }

    /// The caller's `mention` and `reply` events for notes made after `after` (an id), oldest first, the newest note
    /// made by now that was looked at (a stream goes on after it: what is older has been seen), and the real seconds
    /// until the clock reveals the next note still to come.
    func mainEvents(of accountID: String, after: String?)
        -> (events: [(id: String, type: String, note: JSONValue)], newest: String?, realSecondsToNext: Double)
    {
        let current = now
        let (start, nextReveal) = visibleStart(at: current)
        let wait = StreamBell.realSeconds(until: nextReveal, from: current, speed: speed)
        guard let account = accounts[accountID] else { return ([], after, wait) }
        let caller = Caller(account: account)
        var events: [(id: String, type: String, note: JSONValue)] = []
        var newest: String?
        for note in newestFirstNotes[start...] {
            guard note.createdAt <= current else { continue }
            if let after, !Self.isNewer(note.id, than: after) { break }
            if newest == nil { newest = note.id }
            guard note.userID != accountID, isVisible(note, to: caller, now: current) else { continue }
            if mentionedIDs(of: note).contains(accountID) {
                events.append((note.id, "mention", noteJSON(note, for: caller)))
            } else if let parent = note.replyID.flatMap({ notes[$0] }), parent.userID == accountID {
                events.append((note.id, "reply", noteJSON(note, for: caller)))
            }
        }
        return (events.reversed(), newest ?? after, wait)
    }

    /// The newest note id now (a stream sends what comes after it).
    func newestNoteID() -> String? {
        let current = now
        let start = visibleStart(at: current).start
        return newestFirstNotes[start...].first { $0.createdAt <= current }?.id
    }

    /// Where in the index the notes made by `current` begin (every note before it is still to come), and the time of
    /// the next note to come.
    private func visibleStart(at current: Date) -> (start: Int, nextReveal: Date?) {
        _ = newestFirst()
        var low = 0
        var high = earliestUpTo.count
        while low < high {
            let middle = (low + high) / 2
            if earliestUpTo[middle] <= current { high = middle } else { low = middle + 1 }
        }
        return (low, low > 0 ? earliestUpTo[low - 1] : nil)
    }

    // MARK: - The record, as the demo reads it

    /// What clients did, in the shape of the fakes' `/admin/state` (FakeRecord), for the demo's report: the notes created through the API and
    /// still there (authors and notes answered by their persona ids where the seed gave them), the reactions made
    /// (`liked`), `requests` by endpoint, nothing served or billed, and `aliases`: each seeded note's and account's id
    /// on the instance (which the bot keeps) → its persona id.
    func adminState() -> JSONValue {
        func user(_ id: String) -> JSONValue { .string(personaUserIDs[id] ?? id) }
        func note(_ id: String) -> JSONValue {
            .string(personaNoteIDs[id] ?? id)
        }
        let posted = posted.map { created -> JSONValue in
            .object([
                ("id", .string(created.id)), ("author_id", user(created.userID)), ("text", .string(created.text ?? "")),
                ("created_at", .time(created.createdAt)), ("in_reply_to_post_id", created.replyID.map(note) ?? .null),
                ("in_reply_to_account_id", created.replyID.flatMap { notes[$0]?.userID }.map(user) ?? .null),
            ])
        }
        let liked = reacted.map {
            JSONValue.object([("account_id", user($0.userID)), ("post_id", note($0.noteID)), ("reaction", .string($0.reaction))])
        }
        var aliases: [(String, JSONValue)] = []
        for (id, personaID) in personaNoteIDs.sorted(by: { $0.key < $1.key }) { aliases.append((id, .string(personaID))) }
        for (id, personaID) in personaUserIDs.sorted(by: { $0.key < $1.key }) { aliases.append((id, .string(personaID))) }
        return .object([
            ("network", .string("misskey")), ("now", .time(now)), ("speed", .double(speed)), ("posted", .array(posted)), ("liked", .array(liked)),
            ("requests", .object(requestCounts.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })), ("served", .object([])),
            ("billing", .array([])), ("aliases", .object(aliases)),
        ])
    }

    /// The notes posted through the API as the persona's posts (MFM text as written, the user answered).
    func postedAsPosts() -> [FakePersona.Post] {
        posted.map { note in
            FakePersona.Post(
                id: note.id, authorID: note.userID, text: note.text ?? "", createdAt: note.createdAt,
                inReplyToPostID: note.replyID, inReplyToAccountID: note.replyID.flatMap { notes[$0]?.userID })
        }
    }

    // MARK: - Helpers

    private func isPureRenote(_ note: FakeMisskeySeed.Note) -> Bool { note.renoteID != nil && (note.text ?? "").isEmpty }

    /// The ids of the accounts a note's text mentions (`@user` of this instance, `@user@host` of another).
    func mentionedIDs(of note: FakeMisskeySeed.Note) -> [String] {
        if !indexIsStale, let known = mentionsByNote[note.id] { return known }
        let found = mentionedIDs(inText: note.text)
        if !indexIsStale { mentionsByNote[note.id] = found }
        return found
    }

    /// The local accounts `text` mentions (`@name`, `@name@host`).
    private func mentionedIDs(inText text: String?) -> [String] {
        guard let text else { return [] }
        return text.matches(of: /@([A-Za-z0-9_]+)(?:@([A-Za-z0-9.\-]+[A-Za-z0-9]))?/).compactMap { match in
            let username = String(match.1).lowercased()
            let mentionedHost = match.2.map { String($0).lowercased() }
            return accounts.values.first { account in
                account.username.lowercased() == username && (account.host?.lowercased() ?? host) == (mentionedHost ?? host)
                    && !account.id.contains("#")
            }?.id
        }
    }

    /// Adds a new note. An index that was up to date is kept so, the note put in its place (a fleet's bots write a note
    /// every few seconds between them, and sorting every note again after each would hold the instance up).
    private func insert(_ note: FakeMisskeySeed.Note) {
        let wasFresh = !indexIsStale
        let isNew = notes[note.id] == nil
        notes[note.id] = note
        guard wasFresh, isNew else { return }
        // The first place whose note is not newer than this one (the index is newest first).
        var low = 0
        var high = newestFirstNotes.count
        while low < high {
            let middle = (low + high) / 2
            if Self.isNewer(newestFirstNotes[middle].id, than: note.id) { low = middle + 1 } else { high = middle }
        }
        newestFirstNotes.insert(note, at: low)
        earliestUpTo.insert(min(low > 0 ? earliestUpTo[low - 1] : note.createdAt, note.createdAt), at: low)
        // The earliest time up to each later place now counts this note too (until one already earlier).
        for place in (low + 1)..<earliestUpTo.count {
            guard earliestUpTo[place] > note.createdAt else { break }
            earliestUpTo[place] = note.createdAt
        }
        countsByUser[note.userID, default: 0] += 1
        indexIsStale = false
    }

    /// Every note, newest first (the index made again if the notes changed).
    private func newestFirst() -> [FakeMisskeySeed.Note] {
        if indexIsStale {
            newestFirstNotes = notes.values.sorted { Self.isNewer($0.id, than: $1.id) }
            earliestUpTo = []
            earliestUpTo.reserveCapacity(newestFirstNotes.count)
            for note in newestFirstNotes { earliestUpTo.append(min(earliestUpTo.last ?? note.createdAt, note.createdAt)) }
            countsByUser = [:]
            for note in newestFirstNotes { countsByUser[note.userID, default: 0] += 1 }
            mentionsByNote = [:]
            indexIsStale = false
        }
        return newestFirstNotes
    }

    /// Whether `caller` (nil: no token) may see `note` at `now`: made by then, and its visibility lets them.
    private func isVisible(_ note: FakeMisskeySeed.Note, to caller: Caller?, now current: Date) -> Bool {
        guard note.createdAt <= current else { return false }
        let me = caller.map { String($0.account.id.split(separator: "#").first ?? "") }
        switch note.visibility {
        case "followers":
            return me == note.userID || me.map { (follows[$0] ?? []).contains(note.userID) || mentionedIDs(of: note).contains($0) } == true
        case "specified": return me == note.userID || me.map { note.visibleUserIDs.contains($0) } == true
        default: return true
        }
    }

    /// A page as Misskey answers one: `sinceId` and `untilId` both, or `untilId` alone, newest first; `sinceId` alone,
    /// the oldest newer than it first (unless the endpoint orders newest first whatever the bounds); `limit` 1 to 100.
    /// Only the notes within the bounds visible to `caller` that `matches` keeps are looked at, and only the page's are
    /// rendered (a fleet's benchmark pages through thousands).
    private func page(
        body: FakeMisskeyParameters, caller: Caller?, alwaysNewestFirst: Bool = false,
        matching matches: (FakeMisskeySeed.Note) -> Bool
    ) -> FakeMisskeyResponse {
        let limit = (body.int("limit")) ?? 10
        let sinceID = body.string("sinceId")
        let untilID = body.string("untilId")
        let current = now
        // Newest first; the oldest `limit` newer than `sinceId` when it pages upward, so all of those are gathered then.
        let upward = sinceID != nil && untilID == nil && !alwaysNewestFirst
        var candidates: [(id: String, value: FakeMisskeySeed.Note)] = []
        let start = visibleStart(at: current).start
        for note in newestFirstNotes[start...] {
            if let untilID, !Self.isNewer(untilID, than: note.id) { continue }
            if let sinceID, !Self.isNewer(note.id, than: sinceID) { break }
            guard isVisible(note, to: caller, now: current), matches(note) else { continue }
            candidates.append((note.id, note))
            if !upward && candidates.count == limit { break }
        }
        return paged(candidates, body: body, alwaysNewestFirst: alwaysNewestFirst) { noteJSON($0, for: caller) }
    }

    private func paged<Item>(
        _ items: [(id: String, value: Item)], body: FakeMisskeyParameters, alwaysNewestFirst: Bool,
        render: (Item) -> JSONValue
    ) -> FakeMisskeyResponse {
        let limit = (body.int("limit")) ?? 10
        guard (1...100).contains(limit) else {
            return Self.error(400, "INVALID_PARAM", "Invalid param. (limit: must be <= 100)", id: "3d81ceae-475f-4600-b2a8-2bc116157532")
        }
        let sinceID = body.string("sinceId")
        let untilID = body.string("untilId")
        var chosen = items.sorted { Self.isNewer($0.id, than: $1.id) }.filter { item in
            (sinceID.map { Self.isNewer(item.id, than: $0) } ?? true) && (untilID.map { Self.isNewer($0, than: item.id) } ?? true)
        }
        if sinceID != nil && untilID == nil && !alwaysNewestFirst {
            chosen = Array(chosen.reversed().prefix(limit))
        } else {
            chosen = Array(chosen.prefix(limit))
        }
        return FakeMisskeyResponse(status: 200, body: .array(chosen.map { render($0.value) }))
    }

    /// Whether `id` is newer than `other`: ids of one length sort by time.
    static func isNewer(_ id: String, than other: String) -> Bool { id.count != other.count ? id.count > other.count : id > other }

    /// An id for a note made at `date`.
    private func nextID(at date: Date) -> String {
        counter += 1
        var id = FakeMisskeySeed.aidx(at: date, counter: counter)
        while notes[id] != nil {
            counter += 1
            id = FakeMisskeySeed.aidx(at: date, counter: counter)
        }
        return id
    }

    /// Each auto-replier mentioned or answered by `note` answers it 30 seconds later, mentioning its author.
    private func answerAsAutoRepliers(_ note: FakeMisskeySeed.Note) {
        guard let author = accounts[note.userID] else { return }
        let parentAuthor = note.replyID.flatMap { notes[$0] }?.userID
        for replierID in autoRepliers where replierID != note.userID && (mentionedIDs(of: note).contains(replierID) || parentAuthor == replierID) {
            autoReplyCount += 1
            let phrases = ["なるほど、それで？", "わかる", "それな", "本当に？", "もっと聞かせて"]
            let at = now.addingTimeInterval(30)
            let answer = FakeMisskeySeed.Note(
                id: nextID(at: at), userID: replierID,
                text: "@\(author.username) \(phrases[autoReplyCount % phrases.count]) (\(autoReplyCount))",
                visibility: note.visibility == "specified" ? "specified" : "home", replyID: note.id, createdAt: at,
                visibleUserIDs: note.visibility == "specified" ? [note.userID] : [])
            insert(answer)
        }
    }

    /// Each reaction made to `noteID`, and how many times.
    private func reactionCounts(of noteID: String) -> [(String, JSONValue)] {
        var counts: [String: Int] = [:]
        for list in reactions.values { for entry in list where entry.noteID == noteID { counts[entry.reaction, default: 0] += 1 } }
        return counts.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) }
    }

    static func error(_ status: Int, _ code: String, _ message: String, id: String, kind: String = "client") -> FakeMisskeyResponse {
        FakeMisskeyResponse(
            status: status,
            body: .object([
                (
                    "error",
                    .object([
                        ("message", .string(message)), ("code", .string(code)),
                        ("id", .string(id)), ("kind", .string(kind)),
                    ])
                )
            ]))
    }

    func userJSON(_ account: FakeMisskeySeed.Account, detailed: Bool, me: Bool = false) -> JSONValue {
        let id = String(account.id.split(separator: "#").first ?? "")
        var fields: [(String, JSONValue)] = [
            ("id", .string(id)), ("name", .string(account.username)), ("username", .string(account.username)),
            ("host", account.host.map(JSONValue.string) ?? .null), ("avatarUrl", .string("https://\(host)/identicon/\(id)")),
            ("avatarBlurhash", .null), ("avatarDecorations", .array([])), ("isBot", .bool(account.isBot)), ("isCat", .bool(false)),
            ("emojis", .object([])), ("onlineStatus", .string("unknown")), ("badgeRoles", .array([])),
        ]
        if detailed {
            _ = newestFirst()
            let count = countsByUser[id] ?? 0
            fields += [
                ("url", .null), ("uri", .null), ("movedTo", .null), ("alsoKnownAs", .null),
                ("createdAt", .time(Date(timeIntervalSince1970: 1_600_000_000))),
                ("updatedAt", .null), ("lastFetchedAt", .null), ("bannerUrl", .null), ("bannerBlurhash", .null), ("isLocked", .bool(false)),
                ("isSilenced", .bool(false)), ("isSuspended", .bool(false)), ("description", .string(account.description)), ("location", .null),
                ("birthday", .null), ("lang", .string("ja-JP")), ("fields", .array([])), ("verifiedLinks", .array([])),
                ("followersCount", .int(follows.values.filter { $0.contains(id) }.count)), ("followingCount", .int(follows[id]?.count ?? 0)),
                ("notesCount", .int(count)), ("pinnedNoteIds", .array([])), ("pinnedNotes", .array([])), ("pinnedPageId", .null),
                ("pinnedPage", .null),
                ("publicReactions", .bool(account.publicReactions)), ("ffVisibility", .string("public")), ("twoFactorEnabled", .bool(false)),
                ("usePasswordLessLogin", .bool(false)), ("securityKeys", .bool(false)), ("roles", .array([])), ("memo", .null),
            ]
        }
        if me {
            let policies: [(String, JSONValue)] = [
                ("gtlAvailable", .bool(true)), ("ltlAvailable", .bool(true)), ("canPublicNote", .bool(true)), ("canInvite", .bool(false)),
                ("inviteLimit", .int(0)), ("inviteLimitCycle", .int(10_080)), ("inviteExpirationTime", .int(0)),
                ("canManageCustomEmojis", .bool(false)),
                ("canManageAvatarDecorations", .bool(false)), ("canSearchNotes", .bool(false)), ("canUseTranslator", .bool(true)),
                ("canHideAds", .bool(false)),
                ("driveCapacityMb", .int(100)), ("alwaysMarkNsfw", .bool(false)), ("pinLimit", .int(5)), ("antennaLimit", .int(5)),
                ("wordMuteLimit", .int(200)),
                ("webhookLimit", .int(3)), ("clipLimit", .int(10)), ("noteEachClipsLimit", .int(200)), ("userListLimit", .int(10)),
                ("userEachUserListsLimit", .int(50)), ("rateLimitFactor", .int(1)),
            ]
            fields += [
                ("avatarId", .null), ("bannerId", .null), ("isModerator", .bool(false)), ("isAdmin", .bool(false)),
                ("injectFeaturedNote", .bool(true)),
                ("receiveAnnouncementEmail", .bool(false)), ("alwaysMarkNsfw", .bool(false)), ("autoSensitive", .bool(false)),
                ("carefulBot", .bool(false)),
                ("autoAcceptFollowed", .bool(true)), ("noCrawle", .bool(false)), ("preventAiLearning", .bool(true)), ("isExplorable", .bool(true)),
                ("isDeleted", .bool(false)), ("twoFactorBackupCodesStock", .string("none")), ("hideOnlineStatus", .bool(false)),
                ("hasUnreadSpecifiedNotes", .bool(false)), ("hasUnreadMentions", .bool(false)), ("hasUnreadAnnouncement", .bool(false)),
                ("unreadAnnouncements", .array([])), ("hasUnreadAntenna", .bool(false)), ("hasUnreadChannel", .bool(false)),
                ("hasUnreadNotification", .bool(false)), ("hasPendingReceivedFollowRequest", .bool(false)), ("unreadNotificationsCount", .int(0)),
                ("mutedWords", .array([])), ("mutedInstances", .array([])), ("notificationRecieveConfig", .object([])),
                ("emailNotificationTypes", .array([])),
                ("achievements", .array([])), ("loggedInDays", .int(1)), ("policies", .object(policies)),
            ]
        }
        return .object(fields)
    }

    func noteJSON(_ note: FakeMisskeySeed.Note, for caller: Caller?, depth: Int = 0) -> JSONValue {
        let author = accounts[note.userID] ?? FakeMisskeySeed.Account(id: note.userID, username: "unknown")
        let myReaction = caller.flatMap { caller in (reactions[caller.account.id] ?? []).first { $0.noteID == note.id }?.reaction }
        var fields: [(String, JSONValue)] = [
            ("id", .string(note.id)), ("createdAt", .time(note.createdAt)), ("userId", .string(note.userID)),
            ("user", userJSON(author, detailed: false)),
            ("text", note.text.map(JSONValue.string) ?? .null), ("cw", note.cw.map(JSONValue.string) ?? .null),
            ("visibility", .string(note.visibility)),
            ("localOnly", .bool(note.localOnly)), ("reactionAcceptance", .null), ("renoteCount", .int(0)), ("repliesCount", .int(0)),
            ("reactions", .object(reactionCounts(of: note.id))), ("fileIds", .array([])), ("files", .array([])),
            ("replyId", note.replyID.map(JSONValue.string) ?? .null), ("renoteId", note.renoteID.map(JSONValue.string) ?? .null),
            ("mentions", .array(mentionedIDs(of: note).map(JSONValue.string))),
        ]
        if note.visibility == "specified" { fields.append(("visibleUserIds", .array(note.visibleUserIDs.map(JSONValue.string)))) }
        if depth == 0 {
            if let parent = note.replyID.flatMap({ notes[$0] }) { fields.append(("reply", noteJSON(parent, for: caller, depth: 1))) }
            if let renoted = note.renoteID.flatMap({ notes[$0] }) { fields.append(("renote", noteJSON(renoted, for: caller, depth: 1))) }
        }
        if let myReaction { fields.append(("myReaction", .string(myReaction))) }
        return .object(fields)
    }
}
