import BotClock
public import FakeX
public import Foundation
public import Stores
public import XAPI

/// The demo's closing report: the human's posting hours beside the bot's posts of the day, the replies, the likes
/// with their reasons, what the bot refused, what it did not do and why, and the API calls with X's bill for them.
///
/// Every figure (posts, replies, likes, calls, posts read, the bill) is what the fake X server recorded; the bot's
/// database supplies only the reasons it logged.
public struct DemoReport: Sendable {
    /// What the fake X server recorded (`GET /admin/state`).
    public struct FakeRecord: Decodable, Sendable {
        /// A post a client made (the admin state's posts have the seed's fields).
        public typealias Post = FakeXSeed.Tweet

        /// A like a client made.
        public struct Like: Decodable, Sendable {
            /// Who liked.
            public var userID: String
            /// What.
            public var postID: String
            enum CodingKeys: String, CodingKey {
                case userID = "user_id"
                case postID = "tweet_id"
            }
        }

        /// Posts made through the API, in order.
        public var posted: [Post]
        /// Likes made through the API, in order.
        public var liked: [Like]
        /// Requests by endpoint.
        public var requests: [String: Int]
        /// Posts returned by endpoint.
        public var served: [String: Int]
        /// X's bill as the fake made it: per UTC day and app.
        public var billing: [BillingEntry] = []
        /// The fake's network: `x`, `mastodon`, `bluesky` or `misskey`.
        public var network: String = "x"
        /// Ids the bot knows things by on the network → their ids in the seed (Bluesky's: a post's TID number, an
        /// account's DID); empty where the network uses the seed's ids.
        public var aliases: [String: String] = [:]

        /// The network's name for the report's lines.
        public var networkName: String { ["mastodon": "Mastodon", "bluesky": "Bluesky", "misskey": "Misskey"][network] ?? "X" }
        /// Whether the network bills its API.
        public var isBilled: Bool { network == "x" }

        /// One UTC day's bill of one app.
        public struct BillingEntry: Decodable, Sendable, Equatable {
            /// The UTC day.
            public var day: String
            /// The app (consumer key).
            public var app: String
            /// What was billed.
            public var bill: XBill

            enum CodingKeys: String, CodingKey { case day, app }

            /// An entry from its parts.
            public init(day: String, app: String, bill: XBill) {
                self.day = day
                self.app = app
                self.bill = bill
            }

            /// Decodes the fake's flat object (day, app and the bill's counts side by side).
            public init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                day = try container.decode(String.self, forKey: .day)
                app = try container.decode(String.self, forKey: .app)
                bill = try XBill(from: decoder)
            }
        }

        enum CodingKeys: String, CodingKey { case posted, liked, requests, served, billing, network, aliases }

        /// A record from its parts.
        public init(
            posted: [Post], liked: [Like], requests: [String: Int], served: [String: Int], billing: [BillingEntry] = [], network: String = "x",
            aliases: [String: String] = [:]
        ) {
            self.posted = posted
            self.liked = liked
            self.requests = requests
            self.served = served
            self.billing = billing
            self.network = network
            self.aliases = aliases
        }

        /// Decodes `/admin/state` (a record without `billing` bills nothing).
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            posted = try container.decode([Post].self, forKey: .posted)
            liked = try container.decode([Like].self, forKey: .liked)
            requests = try container.decode([String: Int].self, forKey: .requests)
            served = try container.decode([String: Int].self, forKey: .served)
            billing = try container.decodeIfPresent([BillingEntry].self, forKey: .billing) ?? []
            network = try container.decodeIfPresent(String.self, forKey: .network) ?? "x"
            // Each id the network gave a seeded post or account (which the bot keeps) → the persona's id for it.
            aliases = try container.decodeIfPresent([String: String].self, forKey: .aliases) ?? [:]
        }

        /// Decodes `/admin/state`.
        public static func decode(_ data: Data) throws -> FakeRecord {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .custom { decoder in
                let text = try decoder.singleValueContainer().decode(String.self)
                let formatter = ISO8601DateFormatter()
                formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
                if let date = formatter.date(from: text) ?? ISO8601DateFormatter().date(from: text) { return date }
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not ISO 8601: \(text)"))
            }
            return try decoder.decode(FakeRecord.self, from: data)
        }

        /// What was recorded after `earlier` (the calls of a run, without the training before it).
        public func since(_ earlier: FakeRecord) -> FakeRecord {
            func minus(_ a: [String: Int], _ b: [String: Int]) -> [String: Int] {
                a.compactMapValues { $0 }.reduce(into: [:]) { result, entry in
                    let value = entry.value - (b[entry.key] ?? 0)
                    if value > 0 { result[entry.key] = value }
                }
            }
            // A bill is cumulative per day and app: what the run added is the difference.
            let billed: [BillingEntry] = billing.compactMap { entry in
                guard let old = earlier.billing.first(where: { $0.day == entry.day && $0.app == entry.app })?.bill else { return entry }
                let added = entry.bill - old
                return added.isEmpty ? nil : BillingEntry(day: entry.day, app: entry.app, bill: added)
            }
            return FakeRecord(
                posted: Array(posted.dropFirst(earlier.posted.count)), liked: Array(liked.dropFirst(earlier.liked.count)),
                requests: minus(requests, earlier.requests), served: minus(served, earlier.served), billing: billed, network: network,
                aliases: aliases)
        }
    }

    /// The persona served by the fake.
    public var seed: FakeXSeed
    /// The fake's record of the run.
    public var record: FakeRecord
    /// The human's user id.
    public var humanID: String
    /// The bot's user id.
    public var botID: String
    /// The human's zone.
    public var timeZone: TimeZone
    /// Mentions as the bot handled them (for reasons).
    public var mentions: [HandledMention]
    /// Likes as the bot recorded them (for reasons).
    public var likes: [RecordedLike]
    /// The bot's stored state (`likes.status`, `budget.shed.<day>`), for what it did not do and why.
    public var botState: [String: String]
    /// Whether the bot was allowed to post tweets with links (`POST_LINKS`).
    public var postLinks: Bool

    /// A report from its parts.
    public init(
        seed: FakeXSeed, record: FakeRecord, humanID: String, botID: String, timeZone: TimeZone,
        mentions: [HandledMention], likes: [RecordedLike], botState: [String: String] = [:], postLinks: Bool = false
    ) {
        self.seed = seed
        self.record = record
        self.humanID = humanID
        self.botID = botID
        self.timeZone = timeZone
        self.mentions = mentions
        self.likes = likes
        self.botState = botState
        self.postLinks = postLinks
    }

    /// The seed's tweets by id, and by every alias the network gave one.
    private var postsByID: [String: FakeXSeed.Tweet] {
        var tweets = Dictionary(seed.tweets.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for (alias, id) in record.aliases { if let tweet = tweets[id] { tweets[alias] = tweet } }
        return tweets
    }
    private func username(_ id: String?) -> String {
        let seedID = id.map { record.aliases[$0] ?? $0 }
        return "@" + (seed.users.first { $0.id == seedID }?.username ?? id ?? "?")
    }

    /// The bot's own posts (not replies) the fake recorded.
    public var posts: [FakeRecord.Post] { record.posted.filter { $0.authorID == botID && $0.inReplyToTweetID == nil } }
    /// The bot's replies the fake recorded.
    public var replies: [FakeRecord.Post] { record.posted.filter { $0.authorID == botID && $0.inReplyToTweetID != nil } }
    /// The bot's likes the fake recorded.
    public var botLikes: [FakeRecord.Like] { record.liked.filter { $0.userID == botID } }

    /// The human's original posts (no replies, no retweets) per hour of the day, averaged per day of history.
    public var humanPostsPerHour: [Double] {
        let start = record.posted.first?.createdAt ?? seed.now ?? Date()
        let history = seed.tweets.filter {
            $0.authorID == humanID && $0.inReplyToUserID == nil && $0.retweetOf == nil && !$0.text.hasPrefix("RT @") && $0.createdAt < start
        }
        guard let first = history.map(\.createdAt).min() else { return Array(repeating: 0, count: 24) }
        let days = max(1, start.timeIntervalSince(first) / 86_400)
        var hours = Array(repeating: 0.0, count: 24)
        for tweet in history { hours[hour(of: tweet.createdAt)] += 1 }
        return hours.map { $0 / days }
    }

    /// The bot's posts per hour of the day.
    public var botPostsPerHour: [Int] {
        var hours = Array(repeating: 0, count: 24)
        for post in posts { hours[hour(of: post.createdAt)] += 1 }
        return hours
    }

    private func hour(of date: Date) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar.component(.hour, from: date)
    }

    private func clockTime(_ date: Date) -> String { LocalTime(of: date, in: timeZone).clockTime }

    /// X's bill for the run as the fake made it (each resource once per UTC day and app), at X's prices.
    public var estimatedCost: Double {
        record.billing.reduce(0) { $0 + XPriceList.current.cost(of: $1.bill) }
    }

    /// The human's tweets and replies in the seed that share a link.
    public var humanPostsWithLinks: Int {
        seed.tweets.filter { $0.authorID == humanID && $0.retweetOf == nil && !($0.urls ?? []).isEmpty }.count
    }

    /// The bot's posts the fake billed as posts with a URL.
    public var postsWithLinks: Int { record.billing.reduce(0) { $0 + $1.bill.postsCreatedWithURL } }

    /// What the bot did not do, and why: liking, the home timeline, links, work the budget shed (on X).
    public var notDone: [String] {
        guard record.isBilled else {
            var lines: [String] = []
            if let status = botState["likes.status"] { lines.append(status) }
            if !postLinks {
                lines.append(
                    "links: \(humanPostsWithLinks) of \(username(humanID))'s posts and replies share a link; POST_LINKS=false kept them back")
            }
            let warned =
                [
                    "bluesky": "reposts, quotes and posts with a content label (!warn, porn, …): never copied",
                    "misskey": "renotes, quotes, and notes that were followers-only or specified, or carried a warning (cw): never copied",
                ][record.network] ?? "statuses that were followers-only or direct, or carried a content warning: never copied"
            lines.append(lines.isEmpty ? "nothing held back but \(warned)" : warned)
            return lines
        }
        let home = record.requests["GET /2/users/:id/timelines/reverse_chronological"] ?? 0
        let likeCalls = record.requests["POST /2/users/:id/likes"] ?? 0
        var lines: [String] = []
        if let status = botState["likes.status"] {
            lines.append("\(status) (\(likeCalls) like calls)")
        }
        if home == 0 { lines.append("the home timeline: not read (0 calls): only liking needs it") }
        let shared = humanPostsWithLinks
        if !postLinks {
            lines.append(
                "links: \(shared) of \(username(humanID))'s tweets and replies share a link; the bot posted \(postsWithLinks) posts with a URL "
                    + String(
                        format: "(POST_LINKS=false: X bills one $%.3f, a plain post $%.3f)", XPriceList.current.postCreateWithURL,
                        XPriceList.current.postCreate))
        }
        let sheds = botState.filter { $0.key.hasPrefix("budget.shed.") }.sorted { $0.key < $1.key }
        if sheds.isEmpty {
            lines.append("budget: nothing was shed (X_DAILY_BUDGET held without stopping any work)")
        } else {
            for (key, works) in sheds {
                lines.append("budget: on the UTC day \(key.dropFirst("budget.shed.".count)) it stopped \(works) to stay within X_DAILY_BUDGET")
            }
        }
        return lines
    }

    /// The report as terminal text.
    public func text() -> String {
        var lines: [String] = []
        let human = username(humanID)
        let bot = username(botID)
        let perHour = humanPostsPerHour
        let botHours = botPostsPerHour
        let scale = max(perHour.max() ?? 1, Double(botHours.max() ?? 1), 1)
        lines.append("Posting hours (\(timeZone.identifier)): \(human) on an average day  |  \(bot) today, as fake \(record.networkName) recorded it")
        for hour in 0..<24 {
            let left = String(repeating: "█", count: Int((perHour[hour] / scale * 24).rounded()))
            let right = String(repeating: "█", count: Int((Double(botHours[hour]) / scale * 24).rounded()))
            lines.append(
                String(
                    format: "%02d %@ %4.1f | %@ %d", hour, left.padding(toLength: 24, withPad: " ", startingAt: 0),
                    perHour[hour], right.padding(toLength: 24, withPad: " ", startingAt: 0), botHours[hour]))
        }
        lines.append("\(posts.count) posts today; \(human) posts \(String(format: "%.1f", perHour.reduce(0, +))) a day on average. The first ones:")
        for post in posts.prefix(5) { lines.append("  \(clockTime(post.createdAt)) \"\(post.text)\"") }

        let tweets = postsByID
        let bySource = Dictionary(
            mentions.compactMap { mention in mention.replyPostID.map { ($0.text, mention) } },
            uniquingKeysWith: { first, _ in first })
        lines.append("")
        lines.append("Replies (\(replies.count)):")
        for reply in replies {
            let to = username(reply.inReplyToUserID)
            let mention = reply.inReplyToTweetID.flatMap { tweets[$0]?.text } ?? "(a reply to the bot)"
            let source = bySource[reply.id]?.sourcePostID.map { "the human's past reply \($0)" } ?? "a past reply"
            lines.append("  \(clockTime(reply.createdAt)) to \(to) \"\(mention)\" -> \"\(reply.text)\" (\(source))")
        }
        let refused = mentions.filter { $0.state == .skipped }
        lines.append("Refused (\(refused.count)):")
        for mention in refused {
            let text = tweets[mention.mentionPostID.text]?.text.prefix(40).description ?? "(its reply to the bot)"
            lines.append("  \(clockTime(mention.handledAt)) \(username(mention.authorID.text)) \"\(text)\": \(mention.reason ?? "?")")
        }

        // The bot keeps a like by its own id of the post; the fake names it by the seed's, where the network's ids differ.
        let reasons = Dictionary(
            likes.map { (record.aliases[$0.postID.text] ?? $0.postID.text, $0) }, uniquingKeysWith: { first, _ in first })
        lines.append("")
        lines.append("Likes (\(botLikes.count)):")
        for like in botLikes.prefix(12) {
            let tweet = tweets[like.postID]
            lines.append("  \(username(tweet?.authorID)) \"\(tweet?.text ?? like.postID)\": \(reasons[like.postID]?.reason ?? "?")")
        }
        if botLikes.count > 12 { lines.append("  … and \(botLikes.count - 12) more") }
        var words: [String: Int] = [:]
        for like in likes {
            guard let open = like.reason.lastIndex(of: "("), like.reason.hasSuffix(")") else { continue }
            for word in like.reason[like.reason.index(after: open)..<like.reason.index(before: like.reason.endIndex)].split(separator: ", ") {
                words[String(word), default: 0] += 1
            }
        }
        let top = words.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(6).map { "\($0.key) ×\($0.value)" }
        if !top.isEmpty { lines.append("  top reasons: \(top.joined(separator: ", "))") }

        lines.append("")
        lines.append("Not done, and why:")
        for line in notDone { lines.append("  " + line) }

        lines.append("")
        lines.append("API calls during the run, as fake \(record.networkName) counted them:")
        for (endpoint, calls) in record.requests.sorted(by: { $0.key < $1.key }) {
            let read = record.served[endpoint].map { ", \($0) posts read" } ?? ""
            lines.append("  \(endpoint): \(calls) calls\(read)")
        }
        guard record.isBilled else {
            lines.append("Cost: none (\(record.networkName)'s API is free; nothing was billed)")
            return lines.joined(separator: "\n") + "\n"
        }
        lines.append("X's bill for the run, as fake X made it (each post and user once per UTC day and app):")
        for entry in record.billing {
            lines.append(
                String(format: "  %@ (UTC) %@: %@: $%.3f", entry.day, entry.app, entry.bill.description, XPriceList.current.cost(of: entry.bill)))
        }
        lines.append(String(format: "  estimated cost: $%.2f (%@)", estimatedCost, XPriceList.current.source))
        return lines.joined(separator: "\n") + "\n"
    }

    /// The posting-hour chart as an SVG image: the human's average day as bars, the bot's day as dots.
    public func svg() -> String {
        let perHour = humanPostsPerHour
        let botHours = botPostsPerHour
        let scale = max(perHour.max() ?? 1, Double(botHours.max() ?? 1), 1)
        let width = 760.0
        let height = 320.0
        let left = 50.0
        let bottom = 270.0
        let top = 40.0
        let step = (width - left - 20) / 24
        var parts: [String] = [
            #"<svg xmlns="http://www.w3.org/2000/svg" width="760" height="320" viewBox="0 0 760 320" font-family="sans-serif" font-size="12">"#,
            #"<rect width="100%" height="100%" fill="white"/>"#,
            "<text x=\"\(left)\" y=\"24\" font-size=\"15\">Posts per hour (\(Self.escape(timeZone.identifier))): \(Self.escape(username(humanID))) on an average day (bars), \(Self.escape(username(botID))) today (dots)</text>",
        ]
        for hour in 0..<24 {
            let x = left + Double(hour) * step
            let barHeight = perHour[hour] / scale * (bottom - top)
            parts.append(
                String(
                    format: ##"<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#9ab8d8"/>"##, x + 2, bottom - barHeight, step - 4, barHeight)
            )
            for index in 0..<botHours[hour] {
                let y = bottom - (Double(index) + 0.5) / scale * (bottom - top)
                parts.append(String(format: ##"<circle cx="%.1f" cy="%.1f" r="5" fill="#d0533a"/>"##, x + step / 2, y))
            }
            if hour % 3 == 0 {
                parts.append(String(format: #"<text x="%.1f" y="%.1f" text-anchor="middle">%02d:00</text>"#, x + step / 2, bottom + 18, hour))
            }
        }
        parts.append(String(format: #"<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>"#, left, bottom, width - 20, bottom))
        let cost = record.isBilled ? "estimated API cost $\(String(format: "%.2f", estimatedCost))" : "on \(record.networkName), free"
        parts.append(
            "<text x=\"\(left)\" y=\"\(Int(height - 12))\">\(posts.count) posts today, \(replies.count) replies, \(botLikes.count) likes; \(cost)</text>"
        )
        parts.append("</svg>")
        return parts.joined(separator: "\n") + "\n"
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
