public import Foundation
import SeededRandom

/// A generated person to mirror, for the demo, end-to-end tests and benchmarks, in no network's shape: months of
/// Japanese posts with a daily rhythm (mornings, lunch, late evenings), some of them sharing a link, replies to a
/// handful of friends (a few with a link), a home timeline whose likes are concentrated on a few topics, and a day of
/// new posts and mentions after `dayStart`, among them a stranger, a repost of the bot, the bot mentioning itself,
/// and a bot that answers everything (`echo_bot`). Each network's fake serves it in its own shape.
///
/// The same options always give the same persona; its ids are numbers that order posts by time.
public struct FakePersona: Codable, Sendable {
    /// What to generate.
    public struct Options: Sendable {
        /// The random seed.
        public var randomSeed: UInt64
        /// Where the simulated day starts: the server's clock at start, and the end of the history.
        public var dayStart: Date
        /// The human's time zone.
        public var timeZone: TimeZone
        /// Days of the human's history.
        public var historyDays: Int
        /// The human's posts per day on average.
        public var postsPerDay: Int
        /// Accounts both the human and the bot follow.
        public var followedAccounts: Int
        /// Posts per followed account per day.
        public var postsPerAccountPerDay: Int
        /// Whether the human goes on liking new posts during the simulated day (the bot learns them); without it the
        /// bot's word counts stay as trained, so each like can be checked against one fixed filter.
        public var humanLikesDuringDay: Bool

        /// Options; the defaults make the demo persona (about 3,000 posts over 90 days, 20 followed accounts).
        public init(
            randomSeed: UInt64 = 2026, dayStart: Date, timeZone: TimeZone = TimeZone(identifier: "Asia/Tokyo")!,
            historyDays: Int = 90, postsPerDay: Int = 34, followedAccounts: Int = 20, postsPerAccountPerDay: Int = 6,
            humanLikesDuringDay: Bool = true
        ) {
            self.randomSeed = randomSeed
            self.dayStart = dayStart
            self.timeZone = timeZone
            self.historyDays = historyDays
            self.postsPerDay = postsPerDay
            self.followedAccounts = followedAccounts
            self.postsPerAccountPerDay = postsPerAccountPerDay
            self.humanLikesDuringDay = humanLikesDuringDay
        }
    }

    /// An account.
    public struct Person: Codable, Sendable, Equatable {
        /// Id (a number, as text).
        public var id: String
        /// The handle without `@`.
        public var username: String
        /// Display name.
        public var name: String
        /// The bio.
        public var description: String?
        /// An account from its parts.
        public init(id: String, username: String, name: String? = nil, description: String? = nil) {
            self.id = id
            self.username = username
            self.name = name ?? username
            self.description = description
        }
    }

    /// A post.
    public struct Post: Codable, Sendable, Equatable {
        /// Id (a number, as text; ids order posts by time).
        public var id: String
        /// The author's id.
        public var authorID: String
        /// The text, each link in it in its shortened form.
        public var text: String
        /// When it was posted; a fake shows it only once its clock has reached this.
        public var createdAt: Date
        /// The post it replies to, if any.
        public var inReplyToPostID: String?
        /// The account it replies to, if any.
        public var inReplyToAccountID: String?
        /// The post it reposts, if it is a repost (its text `RT @author: …`).
        public var repostOf: String?
        /// The links of the text.
        public var links: [Link]?

        /// A link of the text.
        public struct Link: Codable, Sendable, Equatable {
            /// The shortened address the text shows.
            public var shown: String
            /// Where it goes.
            public var address: String
            /// A link from its parts.
            public init(shown: String, address: String) {
                self.shown = shown
                self.address = address
            }
        }

        enum CodingKeys: String, CodingKey {
            case id, text, links
            case authorID = "author_id"
            case createdAt = "created_at"
            case inReplyToPostID = "in_reply_to_post_id"
            case inReplyToAccountID = "in_reply_to_account_id"
            case repostOf = "repost_of"
        }

        /// A post from its parts.
        public init(
            id: String, authorID: String, text: String, createdAt: Date, inReplyToPostID: String? = nil,
            inReplyToAccountID: String? = nil, repostOf: String? = nil, links: [Link]? = nil
        ) {
            self.id = id
            self.authorID = authorID
            self.text = text
            self.createdAt = createdAt
            self.inReplyToPostID = inReplyToPostID
            self.inReplyToAccountID = inReplyToAccountID
            self.repostOf = repostOf
            self.links = links
        }

        /// The text as its author wrote it: each shortened link the address it stands for.
        public var writtenText: String { (links ?? []).reduce(text) { $0.replacingOccurrences(of: $1.shown, with: $1.address) } }
    }

    /// Where the simulated day starts: a fake's clock at start.
    public var now: Date
    /// Every account.
    public var people: [Person]
    /// Every post, oldest first.
    public var posts: [Post]
    /// Likes per account id, most recent like first.
    public var likes: [String: [String]]
    /// Whom each account follows.
    public var follows: [String: [String]]
    /// Accounts that answer every post mentioning them or replying to them (a bot loop).
    public var autoRepliers: [String]
    /// The access tokens the fakes accept for the human and the bot, by account id.
    public var tokens: [String: String]
    /// The person mirrored.
    public var human: Person
    /// The bot account.
    public var bot: Person
    /// Friends the human has replied to (`echo_bot` among them).
    public var friends: [Person]
    /// An account the human never talked to; mentions the bot during the day.
    public var stranger: Person
    /// A bot that answers everything mentioning it; the human has replied to it.
    public var echoBot: Person
    /// Accounts the human and the bot follow.
    public var authors: [Person]
    /// The topics the human likes most.
    public var likedTopics: [String]

    /// The human's access token.
    public var humanToken: String { tokens[human.id] ?? "" }
    /// The bot's access token.
    public var botToken: String { tokens[bot.id] ?? "" }

    enum CodingKeys: String, CodingKey {
        case now, people, posts, likes, follows, tokens, human, bot, friends, stranger, authors
        case autoRepliers = "auto_repliers"
        case echoBot = "echo_bot"
        case likedTopics = "liked_topics"
    }

    /// Reads a persona `fake-x --write-seed` wrote.
    public static func load(path: String) throws -> FakePersona {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(FakePersona.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Writes the persona as JSON.
    public func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path))
    }

    /// The topics the human likes most.
    static let likedTopicWords = ["ラーメン", "寿司", "猫", "写真"]
    static let otherTopicWords = ["会議", "電車", "天気", "野球", "株価", "選挙", "掃除", "残業", "映画", "読書", "洗濯", "渋滞"]
    static let places = ["新宿", "渋谷", "池袋", "秋葉原", "上野", "吉祥寺", "横浜", "品川", "中野", "浅草"]
    static let humanLines = [
        "今日は{t}の日", "{p}で{t}", "やっぱり{t}が好き", "{t}、最高だった", "{t}のせいで眠い", "明日は{t}かな",
        "{p}の{t}がすごい", "{t}について考えている", "{t}の話を聞いた", "久しぶりに{t}",
    ]
    static let authorLines = [
        "{p}の{t}が話題", "{t}のニュース", "今日の{t}", "{t}について一言", "{p}で{t}を見つけた", "{t}まとめ",
        "{t}が気になる", "{p}、{t}の季節",
    ]
    static let replyLines = [
        "了解、{t}ね", "いいね！{t}行こう", "それは{t}のせいだよ", "{t}なら任せて", "また{t}の話しよう", "ありがとう、{t}も楽しみ",
        "{p}で会おう", "笑った、{t}",
    ]

    /// Generates the persona described by `options`.
    public init(_ options: Options) {
        var random = SplitMix64(seed: options.randomSeed)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = options.timeZone
        human = .init(id: "1001", username: "hanako", name: "Hanako (the human)")
        bot = .init(
            id: "1002", username: "hanako_mirror", name: "Hanako's mirror (the bot)",
            description: "Automated account: a mirror of @hanako's posts, run by @hanako.")
        let taro = Person(id: "1003", username: "taro", name: "Taro")
        let jiro = Person(id: "1004", username: "jiro", name: "Jiro")
        let yuki = Person(id: "1005", username: "yuki", name: "Yuki")
        echoBot = .init(id: "1006", username: "echo_bot", name: "Echo (answers everything)")
        stranger = .init(id: "1007", username: "nanashi", name: "A stranger")
        friends = [taro, jiro, yuki, echoBot]
        authors = (0..<options.followedAccounts).map { .init(id: String(1_100 + $0), username: String(format: "writer_%03d", $0 + 1)) }
        likedTopics = Self.likedTopicWords

        var ids = SnowflakeIDs()
        var posts: [Post] = []
        func line(_ template: String, topic: String, using random: inout SplitMix64) -> String {
            template.replacingOccurrences(of: "{t}", with: topic)
                .replacingOccurrences(of: "{p}", with: Self.places.randomElement(using: &random)!)
        }
        func topic(likedShare: Double, using random: inout SplitMix64) -> String {
            Double.random(in: 0..<1, using: &random) < likedShare
                ? Self.likedTopicWords.randomElement(using: &random)! : Self.otherTopicWords.randomElement(using: &random)!
        }
        let start = options.dayStart

        // The human's history: a rhythm of mornings, lunch and late evenings; some replies to friends; a few reposts.
        for day in 1...max(1, options.historyDays) {
            let dayBegin = calendar.date(byAdding: .day, value: -day, to: start) ?? start.addingTimeInterval(Double(-day) * 86_400)
            let count = max(1, Int(Double(options.postsPerDay) * Double.random(in: 0.6...1.4, using: &random)))
            for _ in 0..<count {
                let minute = Self.humanMinute(using: &random)
                let createdAt = dayBegin.addingTimeInterval(Double(minute * 60 + Int.random(in: 0..<60, using: &random)))
                let roll = Double.random(in: 0..<1, using: &random)
                let subject = topic(likedShare: 0.35, using: &random)
                if roll < 0.12 {
                    let friend = [taro, taro, jiro, yuki, echoBot].randomElement(using: &random)!
                    let parentAt = createdAt.addingTimeInterval(-Double(Int.random(in: 120...900, using: &random)))
                    let parent = Post(
                        id: ids.next(at: parentAt), authorID: friend.id,
                        text: "@\(human.username) \(line(Self.authorLines.randomElement(using: &random)!, topic: subject, using: &random))",
                        createdAt: parentAt)
                    var text = "@\(friend.username) \(line(Self.replyLines.randomElement(using: &random)!, topic: subject, using: &random))"
                    // Now and then a link for the friend (a network may bill a post with a link at a higher rate).
                    let link = Double.random(in: 0..<1, using: &random) < 0.1 ? Self.link(about: subject, using: &random) : nil
                    if let link { text += " " + link.shown }
                    let reply = Post(
                        id: ids.next(at: createdAt), authorID: human.id, text: text,
                        createdAt: createdAt, inReplyToPostID: parent.id, inReplyToAccountID: friend.id,
                        links: link.map { [$0] })
                    posts += [parent, reply]
                } else if roll < 0.15, let author = authors.randomElement(using: &random) {
                    let text = line(Self.authorLines.randomElement(using: &random)!, topic: subject, using: &random)
                    posts.append(
                        .init(
                            id: ids.next(at: createdAt), authorID: human.id, text: "RT @\(author.username): \(text)",
                            createdAt: createdAt, repostOf: "1"))
                } else {
                    var text = line(Self.humanLines.randomElement(using: &random)!, topic: subject, using: &random)
                    if minute < 10 * 60, Bool.random(using: &random) { text = "おはよう。" + text }
                    if minute >= 23 * 60, Bool.random(using: &random) { text += "。おやすみ" }
                    // About one post in twelve shares an article.
                    let link = Double.random(in: 0..<1, using: &random) < 0.08 ? Self.link(about: subject, using: &random) : nil
                    if let link { text = "\(subject)の記事、よかった \(link.shown)" }
                    posts.append(.init(id: ids.next(at: createdAt), authorID: human.id, text: text, createdAt: createdAt, links: link.map { [$0] }))
                }
            }
        }

        // The followed accounts: each has two favourite topics; two weeks of history and the simulated day.
        var humanLikes: [(Date, String)] = []
        let followedDays = min(14, options.historyDays)
        for (index, author) in authors.enumerated() {
            let topics = [
                index % 2 == 0 ? Self.likedTopicWords[index % Self.likedTopicWords.count] : Self.otherTopicWords[index % Self.otherTopicWords.count],
                Self.otherTopicWords[(index * 7 + 3) % Self.otherTopicWords.count],
            ]
            for day in -followedDays...0 {
                let dayBegin = calendar.date(byAdding: .day, value: day, to: start) ?? start
                for _ in 0..<options.postsPerAccountPerDay {
                    let createdAt = dayBegin.addingTimeInterval(Double(Int.random(in: (7 * 3_600)..<(24 * 3_600), using: &random)))
                    let subject =
                        Double.random(in: 0..<1, using: &random) < 0.15
                        ? topic(likedShare: 0.3, using: &random)
                        : topics.randomElement(using: &random)!
                    let post = Post(
                        id: ids.next(at: createdAt), authorID: author.id,
                        text: line(Self.authorLines.randomElement(using: &random)!, topic: subject, using: &random),
                        createdAt: createdAt)
                    posts.append(post)
                    // The human's liking rule: mostly the liked topics, rarely anything else.
                    let likes = Double.random(in: 0..<1, using: &random) < (Self.likedTopicWords.contains(subject) ? 0.75 : 0.04)
                    if likes, day < 0 || options.humanLikesDuringDay { humanLikes.append((createdAt, post.id)) }
                }
            }
        }

        // The simulated day's mentions of the bot.
        func at(_ hour: Int, _ minute: Int, dayOffset: Int = 0) -> Date {
            start.addingTimeInterval(Double(dayOffset * 86_400 + hour * 3_600 + minute * 60))
        }
        let mentions: [(Date, Person, String, String?)] = [
            (at(20, 0, dayOffset: -1), taro, "@\(bot.username) 昨日の話の続き", nil),  // before the first start: never answered
            (at(9, 0), bot, "@\(bot.username) メモ: 今日は早起き", nil),  // the bot itself
            (at(10, 5), taro, "@\(bot.username) 今日ラーメン行かない？", nil),
            (at(13, 20), stranger, "@\(bot.username) はじめまして！", nil),
            (at(14, 40), stranger, "RT @\(bot.username): 今日は写真の日", nil),  // an old-style repost ("RT @") of the bot
            (at(16, 0), echoBot, "@\(bot.username) やあ、元気？", nil),
            (at(19, 30), yuki, "@\(bot.username) 猫の写真見た？", nil),
            (at(21, 10), jiro, "@\(bot.username) 明日の会議どうする？", nil),
        ]
        for (createdAt, author, text, repostOf) in mentions {
            posts.append(.init(id: ids.next(at: createdAt), authorID: author.id, text: text, createdAt: createdAt, repostOf: repostOf))
        }

        now = start
        people = [human, bot] + friends + [stranger] + authors
        tokens = [human.id: "\(human.id)-demo-human", bot.id: "\(bot.id)-demo-bot"]
        self.posts = posts.sorted { (UInt64($0.id) ?? 0) < (UInt64($1.id) ?? 0) }
        likes = [human.id: humanLikes.sorted { $0.0 > $1.0 }.map(\.1)]
        follows = [human.id: friends.map(\.id) + authors.map(\.id), bot.id: authors.map(\.id)]
        autoRepliers = [echoBot.id]
    }

    /// A link to an article about `topic`, shown shortened in the text (`https://t.co/…`, the shortener whose form
    /// the persona was first written in).
    static func link(about topic: String, using random: inout SplitMix64) -> Post.Link {
        let code = String((0..<10).map { _ in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".randomElement(using: &random)! })
        return .init(shown: "https://t.co/" + code, address: "https://news.example.jp/articles/\(Int.random(in: 10_000...99_999, using: &random))")
    }

    /// A minute of the day drawn from the human's rhythm: around 07:30, around 12:15, and late evenings.
    static func humanMinute(using random: inout SplitMix64) -> Int {
        let (center, spread): (Double, Double) =
            switch Double.random(in: 0..<1, using: &random) {
            case ..<0.3: (7.5 * 60, 35)
            case ..<0.5: (12.25 * 60, 25)
            default: (22 * 60, 65)
            }
        // The sum of three uniforms is close enough to a normal curve for a rhythm.
        let noise = (0..<3).map { _ in Double.random(in: -1...1, using: &random) }.reduce(0, +)
        let minute = Int(center + noise * spread)
        return ((minute % 1_440) + 1_440) % 1_440
    }
}

/// Ids that order posts by time: milliseconds since an epoch (2010-11-04), shifted, plus a sequence: a layout the
/// fakes share, so each can serve them as its own ids.
package struct SnowflakeIDs {
    /// The epoch, in milliseconds since 1970.
    package static let epochMilliseconds: UInt64 = 1_288_834_974_657
    private var sequence: UInt64 = 0

    /// A generator whose first id follows no other.
    package init() {}

    /// A new id for a post made at `date`.
    package mutating func number(at date: Date) -> UInt64 {
        sequence += 1
        let milliseconds = UInt64(max(0, date.timeIntervalSince1970 * 1000)) &- Self.epochMilliseconds
        return (milliseconds << 22) | (sequence & 0x3FFFFF)
    }

    /// A new id for a post made at `date`, as text.
    package mutating func next(at date: Date) -> String { String(number(at: date)) }
}
