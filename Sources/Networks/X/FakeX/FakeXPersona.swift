public import Foundation
import SeededRandom

/// A generated person to mirror, for the demo, end-to-end tests and benchmarks: months of Japanese tweets with a
/// daily rhythm (mornings, lunch, late evenings), some of them sharing a link, replies to a handful of friends
/// (a few with a link), a home timeline whose likes are
/// concentrated on a few topics, and a day of new posts and mentions after `dayStart`, among them a stranger, a
/// retweet of the bot, the bot mentioning itself, and a bot that answers everything (`echo_bot`).
///
/// The same options always give the same persona.
public struct FakeXPersona: Sendable {
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

        /// Options; the defaults make the demo persona (about 3,000 tweets over 90 days, 20 followed accounts).
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

    /// The server's starting data.
    public var seed: FakeXSeed
    /// The person mirrored.
    public var human: FakeXSeed.User
    /// The bot account.
    public var bot: FakeXSeed.User
    /// Friends the human has replied to (`echo_bot` among them).
    public var friends: [FakeXSeed.User]
    /// A user the human never talked to; mentions the bot during the day.
    public var stranger: FakeXSeed.User
    /// A bot that answers everything mentioning it; the human has replied to it.
    public var echoBot: FakeXSeed.User
    /// Accounts the human and the bot follow.
    public var authors: [FakeXSeed.User]
    /// The topics the human likes most.
    public var likedTopics: [String]

    /// The human's credentials in the seed.
    public var humanAccount: FakeXSeed.Account { seed.accounts[0] }
    /// The bot's credentials in the seed.
    public var botAccount: FakeXSeed.Account { seed.accounts[1] }

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
        let taro = FakeXSeed.User(id: "1003", username: "taro", name: "Taro")
        let jiro = FakeXSeed.User(id: "1004", username: "jiro", name: "Jiro")
        let yuki = FakeXSeed.User(id: "1005", username: "yuki", name: "Yuki")
        echoBot = .init(id: "1006", username: "echo_bot", name: "Echo (answers everything)")
        stranger = .init(id: "1007", username: "nanashi", name: "A stranger")
        friends = [taro, jiro, yuki, echoBot]
        authors = (0..<options.followedAccounts).map { .init(id: String(1_100 + $0), username: String(format: "writer_%03d", $0 + 1)) }
        likedTopics = Self.likedTopicWords

        var ids = SnowflakeIDs()
        var tweets: [FakeXSeed.Tweet] = []
        func line(_ template: String, topic: String, using random: inout SplitMix64) -> String {
            template.replacingOccurrences(of: "{t}", with: topic)
                .replacingOccurrences(of: "{p}", with: Self.places.randomElement(using: &random)!)
        }
        func topic(likedShare: Double, using random: inout SplitMix64) -> String {
            Double.random(in: 0..<1, using: &random) < likedShare
                ? Self.likedTopicWords.randomElement(using: &random)! : Self.otherTopicWords.randomElement(using: &random)!
        }
        let start = options.dayStart

        // The human's history: a rhythm of mornings, lunch and late evenings; some replies to friends; a few retweets.
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
                    let parent = FakeXSeed.Tweet(
                        id: ids.next(at: parentAt), authorID: friend.id,
                        text: "@\(human.username) \(line(Self.authorLines.randomElement(using: &random)!, topic: subject, using: &random))",
                        createdAt: parentAt)
                    var text = "@\(friend.username) \(line(Self.replyLines.randomElement(using: &random)!, topic: subject, using: &random))"
                    // Now and then a link for the friend: X bills a post with a URL at a higher rate.
                    let link = Double.random(in: 0..<1, using: &random) < 0.1 ? Self.link(about: subject, using: &random) : nil
                    if let link { text += " " + link.url }
                    let reply = FakeXSeed.Tweet(
                        id: ids.next(at: createdAt), authorID: human.id, text: text,
                        createdAt: createdAt, inReplyToTweetID: parent.id, inReplyToUserID: friend.id,
                        urls: link.map { [$0] })
                    tweets += [parent, reply]
                } else if roll < 0.15, let author = authors.randomElement(using: &random) {
                    let text = line(Self.authorLines.randomElement(using: &random)!, topic: subject, using: &random)
                    tweets.append(
                        .init(
                            id: ids.next(at: createdAt), authorID: human.id, text: "RT @\(author.username): \(text)",
                            createdAt: createdAt, retweetOf: "1"))
                } else {
                    var text = line(Self.humanLines.randomElement(using: &random)!, topic: subject, using: &random)
                    if minute < 10 * 60, Bool.random(using: &random) { text = "おはよう。" + text }
                    if minute >= 23 * 60, Bool.random(using: &random) { text += "。おやすみ" }
                    // About one tweet in twelve shares an article.
                    let link = Double.random(in: 0..<1, using: &random) < 0.08 ? Self.link(about: subject, using: &random) : nil
                    if let link { text = "\(subject)の記事、よかった \(link.url)" }
                    tweets.append(.init(id: ids.next(at: createdAt), authorID: human.id, text: text, createdAt: createdAt, urls: link.map { [$0] }))
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
                    let tweet = FakeXSeed.Tweet(
                        id: ids.next(at: createdAt), authorID: author.id,
                        text: line(Self.authorLines.randomElement(using: &random)!, topic: subject, using: &random),
                        createdAt: createdAt)
                    tweets.append(tweet)
                    // The human's liking rule: mostly the liked topics, rarely anything else.
                    let likes = Double.random(in: 0..<1, using: &random) < (Self.likedTopicWords.contains(subject) ? 0.75 : 0.04)
                    if likes, day < 0 || options.humanLikesDuringDay { humanLikes.append((createdAt, tweet.id)) }
                }
            }
        }

        // The simulated day's mentions of the bot.
        func at(_ hour: Int, _ minute: Int, dayOffset: Int = 0) -> Date {
            start.addingTimeInterval(Double(dayOffset * 86_400 + hour * 3_600 + minute * 60))
        }
        let mentions: [(Date, FakeXSeed.User, String, String?)] = [
            (at(20, 0, dayOffset: -1), taro, "@\(bot.username) 昨日の話の続き", nil),  // before the first start: never answered
            (at(9, 0), bot, "@\(bot.username) メモ: 今日は早起き", nil),  // the bot itself
            (at(10, 5), taro, "@\(bot.username) 今日ラーメン行かない？", nil),
            (at(13, 20), stranger, "@\(bot.username) はじめまして！", nil),
            (at(14, 40), stranger, "RT @\(bot.username): 今日は写真の日", nil),  // an old-style retweet of the bot
            (at(16, 0), echoBot, "@\(bot.username) やあ、元気？", nil),
            (at(19, 30), yuki, "@\(bot.username) 猫の写真見た？", nil),
            (at(21, 10), jiro, "@\(bot.username) 明日の会議どうする？", nil),
        ]
        for (createdAt, author, text, retweetOf) in mentions {
            tweets.append(.init(id: ids.next(at: createdAt), authorID: author.id, text: text, createdAt: createdAt, retweetOf: retweetOf))
        }

        let everyone = [human, bot] + friends + [stranger] + authors
        seed = FakeXSeed(
            now: start, users: everyone,
            accounts: [
                .init(
                    userID: human.id, consumerKey: "demo-human-app", consumerSecret: "demo-human-app-secret",
                    accessToken: "\(human.id)-demo-human", accessTokenSecret: "demo-human-token-secret"),
                .init(
                    userID: bot.id, consumerKey: "demo-bot-app", consumerSecret: "demo-bot-app-secret",
                    accessToken: "\(bot.id)-demo-bot", accessTokenSecret: "demo-bot-token-secret"),
            ],
            tweets: tweets.sorted { (UInt64($0.id) ?? 0) < (UInt64($1.id) ?? 0) },
            likes: [human.id: humanLikes.sorted { $0.0 > $1.0 }.map(\.1)],
            follows: [human.id: friends.map(\.id) + authors.map(\.id), bot.id: authors.map(\.id)],
            autoRepliers: [echoBot.id])
    }

    /// A t.co link to an article about `topic`, as X shows links in post text.
    static func link(about topic: String, using random: inout SplitMix64) -> FakeXSeed.Tweet.Link {
        let code = String((0..<10).map { _ in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".randomElement(using: &random)! })
        return .init(url: "https://t.co/" + code, expandedURL: "https://news.example.jp/articles/\(Int.random(in: 10_000...99_999, using: &random))")
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

/// Ids built like X's: milliseconds since X's epoch, shifted, plus a sequence; so ids order posts by time.
struct SnowflakeIDs {
    static let epochMilliseconds: UInt64 = 1_288_834_974_657
    private var sequence: UInt64 = 0

    /// A new id for a post made at `date`.
    mutating func number(at date: Date) -> UInt64 {
        sequence += 1
        let milliseconds = UInt64(max(0, date.timeIntervalSince1970 * 1000)) &- Self.epochMilliseconds
        return (milliseconds << 22) | (sequence & 0x3FFFFF)
    }

    /// A new id for a post made at `date`, as text.
    mutating func next(at date: Date) -> String { String(number(at: date)) }
}

extension FakeXSeed.Tweet {
    /// The text as its author wrote it, for a network that shows plain text: X's escapes (`&amp;`, `&lt;`, `&gt;`)
    /// undone, each t.co link the address it stands for.
    public var writtenText: String {
        let unescaped = text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
        return (urls ?? []).reduce(unescaped) { $0.replacingOccurrences(of: $1.url, with: $1.expandedURL) }
    }
}
