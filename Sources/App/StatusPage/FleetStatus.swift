import BotCore
public import Foundation
import HTTPTypes
import Hummingbird
public import SocialNetwork
public import Stores
import Synchronization

/// What a fleet process's status server shows: every bot of the fleet (from its registry), and the pages of the bots
/// this process runs (each bot's page as `start`'s, at `/bots/<name>/`).
public final class FleetStatusContent: Sendable {
    /// A bot of the fleet as the list shows it.
    public struct Listed: Sendable, Equatable {
        /// Its name.
        public var name: String
        /// Its network (`x`, `mastodon`, …).
        public var network: String
        /// Why it is paused, when it is.
        public var pauseReason: String?
        /// The process holding its lease, when one does.
        public var holder: String?
        /// A listed bot from its parts.
        public init(name: String, network: String, pauseReason: String?, holder: String?) {
            self.name = name
            self.network = network
            self.pauseReason = pauseReason
            self.holder = holder
        }
    }

    /// What a bot running here is shown from: its stores, its zone, its network's links and name, its clock.
    public struct BotPage: Sendable {
        /// The bot's stores.
        public var database: any StoreSet
        /// The person's time zone.
        public var timeZone: TimeZone
        /// Where the bot's network shows a post.
        public var postLinks: PostAddresses
        /// The network's name ("Mastodon").
        public var networkName: String
        /// The most the bot spends in a UTC day, where it is billed.
        public var dailyBudget: Double?
        /// The bot's clock.
        public var now: @Sendable () -> Date
        /// A page from its parts.
        public init(
            database: any StoreSet, timeZone: TimeZone, postLinks: PostAddresses, networkName: String, dailyBudget: Double?,
            now: @escaping @Sendable () -> Date
        ) {
            self.database = database
            self.timeZone = timeZone
            self.postLinks = postLinks
            self.networkName = networkName
            self.dailyBudget = dailyBudget
            self.now = now
        }
    }

    /// This process's name in the leases.
    public let process: String
    /// Reads the fleet's bots (the registry).
    let listing: @Sendable () async throws -> [Listed]
    private let pages = Mutex<[String: BotPage]>([:])

    /// Content for `process`, listing the fleet with `listing`.
    public init(process: String, listing: @escaping @Sendable () async throws -> [Listed]) {
        self.process = process
        self.listing = listing
    }

    /// Shows bot `name`'s page from now on (it runs here).
    public func show(_ name: String, page: BotPage) { pages.withLock { $0[name] = page } }
    /// Stops showing bot `name`'s page (it stopped here).
    public func hide(_ name: String) { _ = pages.withLock { $0.removeValue(forKey: name) } }
    /// Bot `name`'s page, when it runs here.
    func page(of name: String) -> BotPage? { pages.withLock { $0[name] } }
}

/// One row of the fleet's list: the bot, where it runs, and for a bot running here its day so far.
struct FleetRow: Sendable, Encodable, Equatable {
    var name: String
    var network: String
    /// `running here`, `running elsewhere`, `paused`, `waiting`.
    var state: String
    var holder: String?
    var pauseReason: String?
    /// For a bot running here: its next planned slot (local `HH:MM`), and today's actions by kind.
    var nextSlot: String?
    var today: [String: Int]?

    enum CodingKeys: String, CodingKey {
        case name, network, state, holder, today
        case pauseReason = "pause_reason"
        case nextSlot = "next_slot"
    }
}

/// The fleet's list, as HTML and as JSON (`/api/v1/bots`).
enum FleetStatusView {
    /// The rows, each bot running here read from its stores now (a bot whose stores do not answer shows no day), up to
    /// `concurrently` bots at a time (a thousand bots' stores read one after another, behind their own statements on the
    /// pool, took minutes).
    static func rows(of content: FleetStatusContent, concurrently: Int = 16) async throws -> [FleetRow] {
        let listed = try await content.listing()
        var rows: [FleetRow?] = Array(repeating: nil, count: listed.count)
        try await withThrowingTaskGroup(of: (Int, FleetRow).self) { group in
            var next = 0
            func addNext() {
                guard next < listed.count else { return }
                let (index, bot) = (next, listed[next])
                next += 1
                group.addTask { (index, await row(of: bot, in: content)) }
            }
            for _ in 0..<concurrently { addNext() }
            while let (index, row) = try await group.next() {
                rows[index] = row
                addNext()
            }
        }
        return rows.compactMap { $0 }
    }

    /// One bot's row.
    private static func row(of bot: FleetStatusContent.Listed, in content: FleetStatusContent) async -> FleetRow {
        var row = FleetRow(name: bot.name, network: bot.network, state: "waiting", holder: bot.holder, pauseReason: bot.pauseReason)
        if bot.pauseReason != nil {
            row.state = "paused"
        } else if bot.holder == content.process, let page = content.page(of: bot.name) {
            row.state = "running here"
            let now = page.now()
            let day = StatusPageView.localDay(of: now, in: page.timeZone)
            let minute = StatusPageView.minuteOfDay(now, in: page.timeZone)
            if let slots = try? await page.database.plans.slots(of: day) {
                row.nextSlot = slots.first { $0.state == .planned && $0.minute >= minute }.map { StatusPageView.clockTime($0.minute) }
            }
            if let actions = try? await page.database.actions.page(limit: 100) {
                let todays = actions.filter { StatusPageView.localDay(of: $0.at, in: page.timeZone) == day }
                row.today = Dictionary(todays.map { ($0.kind.rawValue, 1) }, uniquingKeysWith: +)
            }
        } else if bot.holder != nil {
            row.state = "running elsewhere"
        }
        return row
    }

    /// The page at `/`: a table of the bots.
    static func render(_ rows: [FleetRow], process: String) -> String {
        let escape = StatusPageView.escape
        var html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>mirror_bot fleet</title><link rel="icon" href="data:,">
            <style>body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:0.8rem;color:#222}
            table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:0.25rem 0.5rem;border-bottom:1px solid #ddd}
            .paused{color:#a33}</style></head><body>
            <h1>mirror_bot fleet</h1>
            <p>\(rows.count) bots; \(rows.count { $0.state == "running here" }) running in this process (\(escape(process))).</p>
            <table id="bots"><thead><tr><th>bot</th><th>network</th><th>state</th><th>next slot</th><th>today</th><th>lease</th></tr></thead><tbody>

            """
        for row in rows {
            let name = row.state == "running here" ? "<a href=\"/bots/\(escape(row.name))/\">\(escape(row.name))</a>" : escape(row.name)
            let state = row.state == "paused" ? "<span class=\"paused\">paused: \(escape(row.pauseReason ?? ""))</span>" : escape(row.state)
            let today =
                row.today.map { counts in
                    counts.isEmpty
                        ? "nothing yet"
                        : counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key.replacingOccurrences(of: "_", with: " "))" }.joined(
                            separator: ", ")
                } ?? ""
            html +=
                "<tr data-bot=\"\(escape(row.name))\"><td>\(name)</td><td>\(escape(row.network))</td><td>\(state)</td>"
                + "<td>\(escape(row.nextSlot ?? ""))</td><td>\(escape(today))</td><td>\(escape(row.holder ?? ""))</td></tr>\n"
        }
        html += "</tbody></table>\n</body></html>\n"
        return html
    }

    /// The list as a response: HTML at `/`, JSON at `/api/v1/bots`.
    static func response(html: Bool, content: FleetStatusContent, request: Request) async throws -> Response {
        let rows = try await rows(of: content)
        guard html else {
            return StatusAPI.json(FleetList(bots: rows, process: content.process), request: request, cacheControl: "no-store", withETag: false)
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: render(rows, process: content.process))))
    }

    /// `/api/v1/bots`'s body.
    struct FleetList: Encodable {
        var bots: [FleetRow]
        var process: String
    }
}
