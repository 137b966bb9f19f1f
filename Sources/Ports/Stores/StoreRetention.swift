public import Foundation

/// How long the bot keeps what it records, so that its stores stay within small plans (Heroku's essential-0
/// Postgres holds 1 GB): the logs of mentions and likes, the day plans and the record of posts for `logDays` (posts
/// at least `REPOST_AFTER_DAYS`, which the "not again" rule reads), and the newest training examples. The archive of
/// the person's posts has its own cap (`ARCHIVE_ROW_LIMIT`), and a network's usage record its own.
public protocol StoreRetention: Sendable {
    /// Removes what `policy` no longer keeps at `now`, all in one transaction.
    func prune(at now: Date, policy: RetentionPolicy) async throws -> RemovedRecords
    /// The rows of each table that hold what was learned from the person or made from it (`PersonRecords.tables`),
    /// the bot's state but what `PersonRecords.keeps` keeps.
    func personRecords() async throws -> [String: Int]
    /// Deletes those rows, all in one transaction; returns how many went, by table.
    func forgetPerson() async throws -> [String: Int]
}

/// What forgetting the person removes: every table of what was learned from them (their posts, likes, the training
/// examples) or made from it (plans, the bot's posts and likes, the answers given), and the bot's state but
/// the few names that prove the end, keep others' wishes or are the bot's own (the consent record, the pause,
/// opt-outs, a network's refusals and budget notes, the mentions read, the bot's own session and its liking status line).
public enum PersonRecords {
    /// The tables emptied, children before their parents.
    public static let tables = [
        "tweets", "person_likes", "training_examples", "plan_slots", "day_plans", "like_slots", "like_plans",
        "like_candidates", "bot_posts", "bot_likes", "mention_replies",
    ]
    /// The bot's state's table, of which only some names go.
    public static let stateTable = "bot_state"
    /// Names of the bot's state kept.
    public static let keptNames: Set<String> = ["consent.person", "control.paused", "mentions.since_id", "likes.status"]
    /// Prefixes of names of the bot's state kept: the opt-outs, the budget's notes.
    public static let keptPrefixes = ["optout.", "budget.shed."]
    /// Endings of names of the bot's state kept, whatever network's key starts them: a network's refusals
    /// (`<network>.refusals`) and the bot's own session (`<network>.session.bot`).
    public static let keptSuffixes = [".refusals", ".session.bot"]

    /// Whether the state's `name` is kept.
    public static func keeps(_ name: String) -> Bool {
        keptNames.contains(name) || keptPrefixes.contains { name.hasPrefix($0) } || keptSuffixes.contains { name.hasSuffix($0) }
    }

    /// The SQL condition on `name` that keeps the same names (constants only: no input reaches it).
    public static var keptCondition: String {
        let names = keptNames.sorted().map { "'\($0)'" }.joined(separator: ", ")
        return "(name IN (\(names))" + keptPrefixes.map { " OR name LIKE '\($0)%'" }.joined() + keptSuffixes.map { " OR name LIKE '%\($0)'" }.joined()
            + ")"
    }
}

/// How much is kept.
public struct RetentionPolicy: Sendable, Equatable {
    /// Days of mention, like and plan records.
    public var logDays: Int
    /// Days of the record of posts (the no-repeat rule's memory).
    public var postedDays: Int
    /// Training examples kept, newest first.
    public var trainingExamples: Int

    /// A policy; the defaults fit the small plans. `repostAfterDays` (`REPOST_AFTER_DAYS`) is never shortened.
    public init(logDays: Int = 90, repostAfterDays: Int = 30, trainingExamples: Int = 100_000) {
        self.logDays = logDays
        self.postedDays = max(logDays, repostAfterDays + 1)
        self.trainingExamples = trainingExamples
    }

    /// Records of mentions and likes handled before this go.
    public func logsBefore(_ now: Date) -> Date { now.addingTimeInterval(-Double(logDays) * 86_400) }
    /// Records of posts made before this go.
    public func postsBefore(_ now: Date) -> Date { now.addingTimeInterval(-Double(postedDays) * 86_400) }
    /// Day plans of days before this (`YYYY-MM-DD`, UTC: plans are kept by whole days) go.
    public func plansBefore(_ now: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: logsBefore(now))
        return String(format: "%04d-%02d-%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
    }
}

/// What one pruning removed.
public struct RemovedRecords: Sendable, Equatable, CustomStringConvertible {
    /// Mention records.
    public var mentions = 0
    /// Like records.
    public var likes = 0
    /// Day plans (with their slots).
    public var plans = 0
    /// Records of posts.
    public var posts = 0
    /// Training examples.
    public var trainingExamples = 0

    /// Counts from their parts.
    public init(mentions: Int = 0, likes: Int = 0, plans: Int = 0, posts: Int = 0, trainingExamples: Int = 0) {
        self.mentions = mentions
        self.likes = likes
        self.plans = plans
        self.posts = posts
        self.trainingExamples = trainingExamples
    }

    /// Records removed in all.
    public var total: Int { mentions + likes + plans + posts + trainingExamples }

    /// "12 mention records, 3 day plans, …" (what was removed), or "nothing".
    public var description: String {
        let parts = [
            (mentions, "mention records"), (likes, "like records"), (plans, "day plans"), (posts, "records of posts"),
            (trainingExamples, "training examples"),
        ].filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
        return parts.isEmpty ? "nothing" : parts.joined(separator: ", ")
    }
}
