import BotClock
import BotCore
import Consent
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import SocialNetwork
import Stores

/// The resources of the status API (`/api/v1/`), read from the bot's store: plural nouns, JSON with sorted keys,
/// `ETag` and `If-None-Match` for what changes often, `Cache-Control: max-age` for what rarely does.
struct StatusAPI: Sendable {
    let database: any StoreSet
    let dailyBudget: Double?
    let timeZone: TimeZone
    let postLinks: PostAddresses
    var likeModel: @Sendable () async -> String? = { nil }
    var endpointCalls: @Sendable () -> [EndpointCalls] = { [] }
    var networkName = ""
    let now: @Sendable () -> Date

    /// `GET /`: the page, read from the store now (no cache: it shows the live state).
    func page(health: [HealthOutcome], waitingFor: String?) async throws -> Response {
        let now = now()
        let day = StatusPageView.localDay(of: now, in: timeZone)
        let archive = database.archive(timeZone: timeZone, rowLimit: database.settings.archiveRowLimit)
        let minutes = try await archive.minuteHistogram(includingReplies: false)
        let byHour = stride(from: 0, to: minutes.count, by: 60).map { minutes[$0..<min(minutes.count, $0 + 60)].reduce(0, +) }
        var spend: [String: Double] = [:]
        for entry in try await database.usageDays.entries(since: StatusPageView.utcDay(of: now.addingTimeInterval(-29 * 86_400))) {
            spend[entry.day, default: 0] += entry.cost
        }
        let data = StatusPageData(
            now: now, day: day, timeZone: timeZone, postsByHour: byHour,
            archiveDays: try await archive.postsPerDay(includingReplies: false).count,
            slots: try await database.plans.slots(of: day) ?? [], likeSlots: try await database.likes.likeSlots(of: day),
            actions: try await database.actions.page(limit: 20),
            spendByDay: spend.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, dailyBudget: dailyBudget,
            archiveSize: try await archive.count(), newestPostID: try await archive.newestPostID(),
            trainingExamples: try await database.examples.count(), likeModel: await likeModel(),
            health: health, waitingFor: waitingFor, endpointCalls: endpointCalls(), networkName: networkName, postLinks: postLinks,
            paused: try await OwnerControl(state: database.state).current(), optOuts: try await OptOutList(state: database.state).all().count)
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: StatusPageView.render(data))))
    }

    /// `GET /api/v1/actions?limit=20&cursor=...`: what the bot did and why, newest first, a page at a time. `links`
    /// in the body (and the `Link` header) lead to the next (older) and previous (newer) pages; following them, every
    /// action is seen once.
    func actions(request: Request, path: String) async throws -> Response {
        let parameters = request.uri.queryParameters
        var limit = 20
        if let text = parameters.get("limit") {
            guard let number = Int(text), (1...100).contains(number) else {
                throw APIError(status: .badRequest, code: .badParameter, message: "limit must be a whole number from 1 to 100; not \"\(text)\".")
            }
            limit = number
        }
        var cursor: ActionCursor?
        if let text = parameters.get("cursor") {
            guard let decoded = ActionCursor(text) else {
                throw APIError(status: .badRequest, code: .badParameter, message: "cursor is not one this API gave: follow the links of a page.")
            }
            cursor = decoded
        }
        let log = database.actions
        let items: [BotAction]
        let hasOlder: Bool
        let hasNewer: Bool
        if let cursor, cursor.newer {
            let found = try await log.page(after: cursor.position, limit: limit + 1)
            items = Array(found.suffix(limit))
            (hasOlder, hasNewer) = (true, found.count > limit)
        } else {
            let found = try await log.page(before: cursor?.position, limit: limit + 1)
            items = Array(found.prefix(limit))
            (hasOlder, hasNewer) = (found.count > limit, cursor != nil)
        }
        func link(_ cursor: ActionCursor) -> String { "\(path)?limit=\(limit)&cursor=\(cursor.text)" }
        let next = hasOlder ? items.last.map { link(ActionCursor(position: .init(at: $0.at, key: $0.key), newer: false)) } : nil
        let prev = hasNewer ? items.first.map { link(ActionCursor(position: .init(at: $0.at, key: $0.key), newer: true)) } : nil
        struct Body: Encodable {
            struct Action: Encodable {
                var kind: String
                var at: Date
                var key: String
                var postID: String?
                var postURL: String?
                var sourceID: String?
                var sourceURL: String?
                var reason: String?
                enum CodingKeys: String, CodingKey {
                    case kind, at, key, reason
                    case postID = "post_id"
                    case postURL = "post_url"
                    case sourceID = "source_id"
                    case sourceURL = "source_url"
                }
            }
            struct Links: Encodable {
                var next: String?
                var prev: String?
                func encode(to encoder: any Encoder) throws {
                    var container = encoder.container(keyedBy: CodingKeys.self)
                    try container.encode(next, forKey: .next)
                    try container.encode(prev, forKey: .prev)
                }
                enum CodingKeys: String, CodingKey { case next, prev }
            }
            var actions: [Action]
            var links: Links
        }
        let body = Body(
            actions: items.map { action in
                Body.Action(
                    kind: action.kind.rawValue, at: action.at, key: action.key, postID: action.postID,
                    postURL: action.postID.flatMap(postLinks.botSide),
                    sourceID: action.sourceID, sourceURL: action.sourceID.flatMap(action.copiedThePerson ? postLinks.personSide : postLinks.botSide),
                    reason: action.reason)
            }, links: .init(next: next, prev: prev))
        var response = Self.json(body, request: request, cacheControl: "private, no-cache", withETag: true)
        let header = [next.map { "<\($0)>; rel=\"next\"" }, prev.map { "<\($0)>; rel=\"prev\"" }].compactMap { $0 }
        if !header.isEmpty { response.headers[HTTPField.Name("Link")!] = header.joined(separator: ", ") }
        return response
    }

    /// `GET /api/v1/plans/:day`: the stored plan of a local day, its slots with their states and reasons.
    func plan(day: String, request: Request) async throws -> Response {
        guard Self.isDay(day) else {
            throw APIError(
                status: .badRequest, code: .badParameter, message: "The day must be a date as YYYY-MM-DD, such as 2026-11-22; not \"\(day)\".")
        }
        let plans = database.plans
        guard let slots = try await plans.slots(of: day) else {
            throw APIError(
                status: .notFound, code: .noSuchResource, message: "No plan is stored for \(day): the bot draws a day's plan when the day starts.")
        }
        struct Body: Encodable {
            struct Slot: Encodable {
                var minute: Int
                var time: String
                var state: String
                var reason: String?
                var sourcePostID: String?
                var botPostID: String?
                var postedAt: Date?
                var unchecked: Bool
                enum CodingKeys: String, CodingKey {
                    case minute, time, state, reason
                    case sourcePostID = "source_post_id"
                    case botPostID = "bot_post_id"
                    case postedAt = "posted_at"
                    case unchecked
                }
            }
            struct Like: Encodable {
                var minute: Int
                var time: String
                var state: String
                var postID: String?
                var score: Double?
                var reason: String?
                var doneAt: Date?
                enum CodingKeys: String, CodingKey {
                    case minute, time, state
                    case postID = "post_id"
                    case score, reason
                    case doneAt = "done_at"
                }
            }
            var day: String
            var drawnAt: Date?
            var slots: [Slot]
            /// The day's like slots; null when no like plan is stored for the day.
            var likes: [Like]?
            enum CodingKeys: String, CodingKey {
                case day
                case drawnAt = "drawn_at"
                case slots, likes
            }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(day, forKey: .day)
                try container.encodeIfPresent(drawnAt, forKey: .drawnAt)
                try container.encode(slots, forKey: .slots)
                try container.encode(likes, forKey: .likes)  // null, not absent, when there is no like plan
            }
        }
        let body = Body(
            day: day, drawnAt: try await plans.drawnAt(of: day),
            slots: slots.map { slot in
                Body.Slot(
                    minute: slot.minute, time: LocalTime.clockTime(slot.minute), state: slot.state.rawValue,
                    reason: slot.reason, sourcePostID: slot.sourcePostID.map(String.init), botPostID: slot.botPostID.map(String.init),
                    postedAt: slot.postedAt, unchecked: slot.postedUnchecked)
            },
            likes: try await database.likes.likeSlots(of: day)?.map { slot in
                Body.Like(
                    minute: slot.minute, time: LocalTime.clockTime(slot.minute), state: slot.state.rawValue,
                    postID: slot.postID.map(String.init), score: slot.logRatio, reason: slot.reason, doneAt: slot.doneAt)
            })
        // A plan changes through the day (slots posted, skipped): revalidated by its ETag.
        return Self.json(body, request: request, cacheControl: "private, no-cache", withETag: true)
    }

    /// `GET /api/v1/usage/days?since=YYYY-MM-DD`: what each UTC day cost on the network by the bot's count (every run
    /// of that day summed), from `since` (default: the last 30 days), with the daily budget.
    func usageDays(request: Request) async throws -> Response {
        let since: String
        if let given = request.uri.queryParameters.get("since") {
            guard Self.isDay(given) else {
                throw APIError(status: .badRequest, code: .badParameter, message: "since must be a UTC day as YYYY-MM-DD; not \"\(given)\".")
            }
            since = given
        } else {
            since = StatusPageView.utcDay(of: now().addingTimeInterval(-29 * 86_400))
        }
        struct Body: Encodable {
            struct Day: Encodable {
                var day: String
                var cost: Double
                var runs: Int
            }
            var dailyBudget: Double?
            var days: [Day]
            enum CodingKeys: String, CodingKey {
                case dailyBudget = "daily_budget"
                case days
            }
        }
        let entries = try await database.usageDays.entries(since: since)
        let days = Dictionary(grouping: entries, by: \.day).map { day, entries in
            Body.Day(day: day, cost: (entries.reduce(0) { $0 + $1.cost } * 1_000_000).rounded() / 1_000_000, runs: entries.count)
        }.sorted { $0.day < $1.day }
        // Written once a minute: a minute of caching is no loss.
        return Self.json(Body(dailyBudget: dailyBudget, days: days), request: request, cacheControl: "private, max-age=60", withETag: false)
    }

    // MARK: - Helpers

    /// Whether `text` is a calendar date as `YYYY-MM-DD`.
    static func isDay(_ text: String) -> Bool {
        // ASCII digits only: `\d` also matches full-width and Arabic-Indic digits, which `Int` does not read.
        guard text.wholeMatch(of: /[0-9]{4}-[0-9]{2}-[0-9]{2}/) != nil else { return false }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return false }
        let components = DateComponents(year: parts[0], month: parts[1], day: parts[2])
        guard let date = calendar.date(from: components) else { return false }
        return calendar.dateComponents([.year, .month, .day], from: date) == components
    }

    /// `value` as JSON; with `withETag`, a strong ETag of the body, and 304 with no body when the request's
    /// `If-None-Match` names it.
    static func json(_ value: some Encodable, request: Request, cacheControl: String, withETag: Bool) -> Response {
        let data = (try? StatusJSON.encoder.encode(value)) ?? Data()
        var headers = HTTPFields()
        headers[.cacheControl] = cacheControl
        if withETag {
            let tag = "\"" + SHA256.hash(data: data).prefix(16).map { String(format: "%02x", $0) }.joined() + "\""
            headers[.eTag] = tag
            if let wanted = request.headers[.ifNoneMatch],
                wanted.split(separator: ",").contains(where: {
                    let given = $0.trimmingCharacters(in: .whitespaces)
                    return given == tag || given == "*" || given == "W/" + tag
                })
            {
                return Response(status: .notModified, headers: headers)
            }
        }
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// A place in the action list as the API hands it out: opaque to clients (base64url of the direction, the action's
/// time and its key).
struct ActionCursor: Equatable {
    /// The action at the page's edge.
    var position: ActionPosition
    /// Whether the page asked for is newer than it (a `prev` link) rather than older (`next`).
    var newer: Bool

    init(position: ActionPosition, newer: Bool) {
        self.position = position
        self.newer = newer
    }

    /// The times a cursor may hold, in seconds since 1970: the years 1970 to 9999. A time past them could never be an
    /// action's, and one far past them is a date no database can bind (postgres-nio traps past the year 294,276).
    static let seconds: ClosedRange<Double> = 0...253_402_300_799
    /// The longest action key a cursor may hold, in bytes (keys are a kind and an id).
    static let longestKey = 200

    /// A cursor from its text; nil when it is not one this API made.
    init?(_ text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let decoded = String(data: data, encoding: .utf8) else { return nil }
        let parts = decoded.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "n" || parts[0] == "o", let seconds = Double(parts[1]), Self.seconds.contains(seconds),
            !parts[2].isEmpty, parts[2].utf8.count <= Self.longestKey
        else { return nil }
        self.init(position: .init(at: Date(timeIntervalSince1970: seconds), key: String(parts[2])), newer: parts[0] == "n")
    }

    /// Its text, safe in a URL.
    var text: String {
        // The time exactly as stored (a Double's shortest text reads back as the same Double), so the edge is exact.
        return Data("\(newer ? "n" : "o")|\(position.at.timeIntervalSince1970)|\(position.key)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
