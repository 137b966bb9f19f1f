import BotClock
public import FakeKit
public import Foundation
public import Stores

/// The demo's closing report: the human's posting hours beside the bot's posts of the day, the replies, the likes
/// with their reasons, what the bot refused, what it did not do and why, and the API calls with the network's bill
/// for them where it bills.
///
/// Every figure (posts, replies, likes, calls, posts read, the bill) is what the network's fake recorded; the bot's
/// database supplies only the reasons it logged.
public struct DemoReport: Sendable {
    /// The persona served by the fake.
    public var persona: FakePersona
    /// The run as the fake recorded it.
    public var run: FakeRun
    /// The network's name.
    public var networkName: String
    /// The human's account id.
    public var humanID: String
    /// The bot's account id.
    public var botID: String
    /// The human's zone.
    public var timeZone: TimeZone
    /// Mentions as the bot handled them (for reasons).
    public var mentions: [HandledMention]
    /// Likes as the bot recorded them (for reasons).
    public var likes: [RecordedLike]

    /// A report from its parts.
    public init(
        persona: FakePersona, run: FakeRun, networkName: String, humanID: String, botID: String, timeZone: TimeZone,
        mentions: [HandledMention], likes: [RecordedLike]
    ) {
        self.persona = persona
        self.run = run
        self.networkName = networkName
        self.humanID = humanID
        self.botID = botID
        self.timeZone = timeZone
        self.mentions = mentions
        self.likes = likes
    }

    /// What the fake recorded during the run.
    public var record: FakeRecord { run.record }

    /// The persona's posts by id, and by every alias the network gave one.
    private var postsByID: [String: FakePersona.Post] {
        var posts = Dictionary(persona.posts.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for (alias, id) in record.aliases { if let post = posts[id] { posts[alias] = post } }
        return posts
    }
    private func username(_ id: String?) -> String {
        let personaID = id.map { record.aliases[$0] ?? $0 }
        return "@" + (persona.people.first { $0.id == personaID }?.username ?? id ?? "?")
    }

    /// The bot's own posts (not replies) the fake recorded.
    public var posts: [FakePersona.Post] { record.posted.filter { $0.authorID == botID && $0.inReplyToPostID == nil } }
    /// The bot's replies the fake recorded.
    public var replies: [FakePersona.Post] { record.posted.filter { $0.authorID == botID && $0.inReplyToPostID != nil } }
    /// The bot's likes the fake recorded.
    public var botLikes: [FakeRecord.Like] { record.liked.filter { $0.accountID == botID } }

    /// The human's posts and replies in `persona` that share a link.
    public static func humanPostsWithLinks(in persona: FakePersona, humanID: String) -> Int {
        persona.posts.filter { $0.authorID == humanID && $0.repostOf == nil && !($0.links ?? []).isEmpty }.count
    }

    /// The human's original posts (no replies, no reposts) per hour of the day, averaged per day of history.
    public var humanPostsPerHour: [Double] {
        let start = record.posted.first?.createdAt ?? persona.now
        let history = persona.posts.filter {
            $0.authorID == humanID && $0.inReplyToAccountID == nil && $0.repostOf == nil && !$0.text.hasPrefix("RT @") && $0.createdAt < start
        }
        guard let first = history.map(\.createdAt).min() else { return Array(repeating: 0, count: 24) }
        let days = max(1, start.timeIntervalSince(first) / 86_400)
        var hours = Array(repeating: 0.0, count: 24)
        for post in history { hours[hour(of: post.createdAt)] += 1 }
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

    /// The report as terminal text.
    public func text() -> String {
        var lines: [String] = []
        let human = username(humanID)
        let bot = username(botID)
        let perHour = humanPostsPerHour
        let botHours = botPostsPerHour
        let scale = max(perHour.max() ?? 1, Double(botHours.max() ?? 1), 1)
        lines.append("Posting hours (\(timeZone.identifier)): \(human) on an average day  |  \(bot) today, as fake \(networkName) recorded it")
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

        let known = postsByID
        let bySource = Dictionary(
            mentions.compactMap { mention in mention.replyPostID.map { ($0.text, mention) } },
            uniquingKeysWith: { first, _ in first })
        lines.append("")
        lines.append("Replies (\(replies.count)):")
        for reply in replies {
            let to = username(reply.inReplyToAccountID)
            let mention = reply.inReplyToPostID.flatMap { known[$0]?.text } ?? "(a reply to the bot)"
            let source = bySource[reply.id]?.sourcePostID.map { "the human's past reply \($0)" } ?? "a past reply"
            lines.append("  \(clockTime(reply.createdAt)) to \(to) \"\(mention)\" -> \"\(reply.text)\" (\(source))")
        }
        let refused = mentions.filter { $0.state == .skipped }
        lines.append("Refused (\(refused.count)):")
        for mention in refused {
            let text = known[mention.mentionPostID.text]?.text.prefix(40).description ?? "(its reply to the bot)"
            lines.append("  \(clockTime(mention.handledAt)) \(username(mention.authorID.text)) \"\(text)\": \(mention.reason ?? "?")")
        }

        // The bot keeps a like by its own id of the post; the fake names it by the persona's, where the network's ids differ.
        let reasons = Dictionary(
            likes.map { (record.aliases[$0.postID.text] ?? $0.postID.text, $0) }, uniquingKeysWith: { first, _ in first })
        lines.append("")
        lines.append("Likes (\(botLikes.count)):")
        for like in botLikes.prefix(12) {
            let post = known[like.postID]
            lines.append("  \(username(post?.authorID)) \"\(post?.text ?? like.postID)\": \(reasons[like.postID]?.reason ?? "?")")
        }
        if botLikes.count > 12 { lines.append("  … and \(botLikes.count - 12) more") }
        var words: [String: Int] = [:]
        for like in likes {
            // "log ratio 2.70 > 1.37 (ラーメン, 浅草)", maybe followed by more in brackets: the words are the first group.
            guard let match = like.reason.firstMatch(of: /> [0-9.]+ \(([^)]*)\)/) else { continue }
            for word in match.1.split(separator: ", ") { words[String(word), default: 0] += 1 }
        }
        let top = words.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(6).map { "\($0.key) ×\($0.value)" }
        if !top.isEmpty { lines.append("  top reasons: \(top.joined(separator: ", "))") }

        lines.append("")
        lines.append("Not done, and why:")
        for line in run.notDone { lines.append("  " + line) }

        lines.append("")
        lines.append("API calls during the run, as fake \(networkName) counted them:")
        for (endpoint, calls) in record.requests.sorted(by: { $0.key < $1.key }) {
            let read = record.served[endpoint].map { ", \($0) posts read" } ?? ""
            lines.append("  \(endpoint): \(calls) calls\(read)")
        }
        guard let bill = run.bill else {
            lines.append("Cost: none (\(networkName)'s API is free; nothing was billed)")
            return lines.joined(separator: "\n") + "\n"
        }
        lines.append(bill.heading)
        for line in bill.lines { lines.append("  " + line) }
        lines.append(String(format: "  estimated cost: $%.2f (%@)", bill.estimatedCost, bill.source))
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
        let cost = run.bill.map { "estimated API cost $\(String(format: "%.2f", $0.estimatedCost))" } ?? "on \(networkName), free"
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
