public import FakeKit
public import Foundation
import Logging
import XAPI

/// Fake X as `fake-x` serves it (its default network) and the demo's report reads it, X's bill included.
public struct FakeXNetwork: FakeNetwork {
    /// The entry.
    public init() {}

    /// `x`.
    public var key: String { "x" }
    /// `X`.
    public var name: String { "X" }
    /// What it serves.
    public var summary: String {
        "X API v2: GET /2/users/me, /2/users/:id/tweets, /2/users/:id/liked_tweets, /2/users/:id/timelines/reverse_chronological, "
            + "/2/users/:id/mentions; POST /2/tweets, /2/users/:id/likes; DELETE /2/users/:id/likes/:tweet_id. Bills as X does (per "
            + "resource, once per UTC day and app) and, by default, refuses likes as X refuses self-serve apps today. Admin: GET "
            + "/admin/state (with the billing record); POST /admin/clock, /admin/tweets, /admin/users, /admin/likes, /admin/faults, "
            + "/admin/rate-limits, /admin/access, /admin/credits, /admin/revoke. Serves --persona or --seed FILE (JSON: users, accounts, "
            + "tweets, likes, follows, now, speed, rate_limits, auto_repliers)"
    }
    /// `--access` and `--credits`.
    public var optionsHelp: String {
        "--access pay-per-use|enterprise: the apps' access level (pay-per-use, the default, is today's self-serve access: likes "
            + "answered 403 client-forbidden; enterprise: likes work). --credits DOLLARS: each app's prepaid credits; spent credits "
            + "answer 402 (unlimited when not given)"
    }

    /// Serves the persona or a seed file, at the access level and with the credits the options give.
    public func serve(_ request: FakeServeRequest) async throws {
        var seed: FakeXSeed
        switch (request.persona, request.seedPath) {
        case (let persona?, nil): seed = FakeXSeed(persona: persona)
        case (nil, let path?): seed = try FakeXSeed.load(path: path)
        default: throw FakeServeError("Give either --seed FILE or --persona.")
        }
        guard request.extraBots == 0 else { throw FakeServeError("--network x serves no extra bots.") }
        if let speed = request.speed { seed.speed = speed }
        var options = request.options[...]
        while let option = options.popFirst() {
            let parts = option.split(separator: "=", maxSplits: 1).map(String.init)
            let (name, inline) = (parts.first ?? option, parts.count > 1 ? parts[1] : nil)
            guard let value = inline ?? options.popFirst() else { throw FakeServeError("\(name) needs a value.") }
            switch name {
            case "--access":
                guard let access = FakeXSeed.Access(rawValue: value) else {
                    throw FakeServeError("--access must be pay-per-use or enterprise, not \(value)")
                }
                seed.access = access
            case "--credits":
                guard let credits = Double(value), credits >= 0 else { throw FakeServeError("--credits must be a number of dollars, not \(value)") }
                seed.credits = credits
            default: throw FakeServeError("fake X takes --access and --credits, not \(name).")
            }
        }
        let server = FakeXServer(seed: seed, logger: .quiet("fake-x"))
        try await server.run(host: request.host, port: request.port, onStarted: request.onListening)
    }

    /// The run with X's bill for it (what was billed after `before`) and what X's bill and access kept the bot from doing.
    public func run(after: Data, before: Data?, context: FakeReportContext) throws -> FakeRun {
        var state = try FakeRecord.decoder().decode(AdminState.self, from: after)
        if let before { state = state.since(try FakeRecord.decoder().decode(AdminState.self, from: before)) }
        let prices = XPriceList.current
        let cost = state.billing.reduce(0) { $0 + prices.cost(of: $1.bill) }
        let bill = FakeRun.Bill(
            heading: "X's bill for the run, as fake X made it (each post and user once per UTC day and app):",
            lines: state.billing.map {
                String(format: "%@ (UTC) %@: %@: $%.3f", $0.day, $0.app, $0.bill.description, prices.cost(of: $0.bill))
            },
            estimatedCost: cost, source: prices.source)
        return FakeRun(record: state.record, notDone: notDone(state, context), bill: bill)
    }

    /// The demo at the defaults of a self-serve app (pay-per-use: no likes, every read billed), or with enterprise
    /// access and `LIKES=on`; the person's OAuth 1.0a credentials and the bot's; at most 900 posts learned ($0.91).
    public func demo(likes: Bool) -> FakeDemo {
        FakeDemo(
            serveOptions: ["--access", likes ? "enterprise" : "pay-per-use"],
            environment: [
                ("X_API_BASE_URL", FakeDemo.serverURL), ("HUMAN_CONSUMER_KEY", "demo-human-app"), ("HUMAN_CONSUMER_SECRET", "demo-human-app-secret"),
                ("HUMAN_ACCESS_TOKEN", "1001-demo-human"), ("HUMAN_ACCESS_TOKEN_SECRET", "demo-human-token-secret"),
                ("BOT_CONSUMER_KEY", "demo-bot-app"), ("BOT_CONSUMER_SECRET", "demo-bot-app-secret"), ("BOT_ACCESS_TOKEN", "1002-demo-bot"),
                ("BOT_ACCESS_TOKEN_SECRET", "demo-bot-token-secret"),
            ],
            trainSchedulerArguments: ["--max-posts", "900"],
            trainSchedulerNote: "the human's posts into the archive (what Heroku's postdeploy runs: at most $0.91)", likes: likes)
    }

    /// What the bot did not do, and why: liking, the home timeline, links, work the budget shed.
    func notDone(_ state: AdminState, _ context: FakeReportContext) -> [String] {
        let home = state.record.requests["GET /2/users/:id/timelines/reverse_chronological"] ?? 0
        let likeCalls = state.record.requests["POST /2/users/:id/likes"] ?? 0
        var lines: [String] = []
        if let status = context.botState["likes.status"] { lines.append("\(status) (\(likeCalls) like calls)") }
        if home == 0 { lines.append("the home timeline: not read (0 calls): only liking needs it") }
        if !context.postLinks {
            let withURL = state.billing.reduce(0) { $0 + $1.bill.postsCreatedWithURL }
            lines.append(
                "links: \(context.humanPostsWithLinks) of \(context.human)'s tweets and replies share a link; the bot posted \(withURL) posts "
                    + String(
                        format: "with a URL (POST_LINKS=false: X bills one $%.3f, a plain post $%.3f)", XPriceList.current.postCreateWithURL,
                        XPriceList.current.postCreate))
        }
        let sheds = context.botState.filter { $0.key.hasPrefix("budget.shed.") }.sorted { $0.key < $1.key }
        if sheds.isEmpty {
            lines.append("budget: nothing was shed (X_DAILY_BUDGET held without stopping any work)")
        } else {
            for (key, works) in sheds {
                lines.append("budget: on the UTC day \(key.dropFirst("budget.shed.".count)) it stopped \(works) to stay within X_DAILY_BUDGET")
            }
        }
        return lines
    }

    /// Fake X's `/admin/state`: the record in X's words and the bill per UTC day and app.
    struct AdminState: Decodable {
        var record: FakeRecord
        var billing: [BillingEntry]

        /// A like as fake X records it.
        struct Like: Decodable {
            var userID: String
            var tweetID: String
            enum CodingKeys: String, CodingKey {
                case userID = "user_id"
                case tweetID = "tweet_id"
            }
        }

        /// One UTC day's bill of one app: the day, the app and the bill's counts side by side.
        struct BillingEntry: Decodable {
            var day: String
            var app: String
            var bill: XBill
            enum CodingKeys: String, CodingKey { case day, app }
            init(day: String, app: String, bill: XBill) {
                self.day = day
                self.app = app
                self.bill = bill
            }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                day = try container.decode(String.self, forKey: .day)
                app = try container.decode(String.self, forKey: .app)
                bill = try XBill(from: decoder)
            }
        }

        enum CodingKeys: String, CodingKey { case posted, liked, requests, served, billing }

        init(record: FakeRecord, billing: [BillingEntry]) {
            self.record = record
            self.billing = billing
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let posted = try container.decode([FakeXSeed.Tweet].self, forKey: .posted).map { tweet in
                FakePersona.Post(
                    id: tweet.id, authorID: tweet.authorID, text: tweet.text, createdAt: tweet.createdAt, inReplyToPostID: tweet.inReplyToTweetID,
                    inReplyToAccountID: tweet.inReplyToUserID)
            }
            let liked = try container.decode([Like].self, forKey: .liked).map { FakeRecord.Like(accountID: $0.userID, postID: $0.tweetID) }
            record = FakeRecord(
                posted: posted, liked: liked, requests: try container.decode([String: Int].self, forKey: .requests),
                served: try container.decodeIfPresent([String: Int].self, forKey: .served) ?? [:])
            billing = try container.decodeIfPresent([BillingEntry].self, forKey: .billing) ?? []
        }

        /// What was recorded and billed after `earlier`: a bill is cumulative per day and app, so the run's is the
        /// difference.
        func since(_ earlier: AdminState) -> AdminState {
            let billed: [BillingEntry] = billing.compactMap { entry in
                guard let old = earlier.billing.first(where: { $0.day == entry.day && $0.app == entry.app })?.bill else { return entry }
                let added = entry.bill - old
                return added.isEmpty ? nil : BillingEntry(day: entry.day, app: entry.app, bill: added)
            }
            return AdminState(record: record.since(earlier.record), billing: billed)
        }
    }
}
