import BotClock
import Foundation
import PostText
import Stores

/// The person's posts in memory, under the archive's rules: minutes and days in the archive's zone, the oldest rows
/// beyond the limit dropped, picks drawn over the candidates in `tweet_id` order as every database draws them.
struct InMemoryTweetArchive: TweetArchive {
    let set: InMemoryStoreSet
    let timeZone: TimeZone
    let rowLimit: Int

    /// Minutes and days in this archive's zone (what `prepare` recomputes when the zone changed).
    private func localized(_ row: Tables.Tweet) -> Tables.Tweet {
        guard row.zone != timeZone.identifier else { return row }
        var row = row
        let local = LocalTime(of: row.tweet.createdAt, in: timeZone)
        (row.zone, row.minute, row.day) = (timeZone.identifier, local.minute, local.day)
        return row
    }

    func prepare() async throws {
        try set.withTables("recomputing minutes of the day") { tables in
            for (id, row) in tables.tweets { tables.tweets[id] = localized(row) }
        }
    }

    func insert(_ tweets: [ArchivedTweet]) async throws -> Int {
        guard !tweets.isEmpty else { return 0 }
        let rows = ArchiveRules.distinct(tweets).map { tweet in
            let local = LocalTime(of: tweet.createdAt, in: timeZone)
            return Tables.Tweet(
                tweet: tweet, hasLink: PostLinks.containsLink(tweet.text), zone: timeZone.identifier, minute: local.minute, day: local.day)
        }
        return try set.withTables("inserting \(tweets.count) tweets") { tables in
            var inserted = 0
            for row in rows where tables.tweets[row.tweet.tweetID] == nil {
                tables.tweets[row.tweet.tweetID] = row
                inserted += 1
            }
            if inserted > 0, tables.tweets.count > rowLimit {
                let newestFirst = tables.tweets.values.sorted { ($0.tweet.createdAt, $0.tweet.tweetID) > ($1.tweet.createdAt, $1.tweet.tweetID) }
                for row in newestFirst.dropFirst(max(0, rowLimit)) { tables.tweets[row.tweet.tweetID] = nil }
            }
            return inserted
        }
    }

    func count() async throws -> Int { try set.withTables("counting tweets") { $0.tweets.count } }

    func containsText(_ text: String) async throws -> Bool {
        try set.withTables("looking a text up in the archive") { tables in tables.tweets.values.contains { $0.tweet.text == text } }
    }

    func newestTweetID() async throws -> Int64? { try set.withTables("reading the newest tweet id") { $0.tweets.keys.max() } }

    func minuteHistogram(includingReplies: Bool) async throws -> [Int] {
        try set.withTables("reading the minute histogram") { tables in
            var histogram = [Int](repeating: 0, count: MinuteWindow.minutesPerDay)
            for row in tables.tweets.values where includingReplies || row.tweet.replyUserID == nil { histogram[localized(row).minute] += 1 }
            return histogram
        }
    }

    func postsPerDay(includingReplies: Bool) async throws -> [DayCount] {
        try set.withTables("counting posts per day") { tables in
            var days: [String: Int] = [:]
            for row in tables.tweets.values where includingReplies || row.tweet.replyUserID == nil { days[localized(row).day, default: 0] += 1 }
            return days.sorted { $0.key < $1.key }.map { DayCount(day: $0.key, count: $0.value) }
        }
    }

    func randomTweet(_ sample: TweetSample, using generator: inout some RandomNumberGenerator) async throws -> ArchivedTweet? {
        try candidates(sample).randomElementByOffset(using: &generator)
    }

    func randomTweets(_ sample: TweetSample, count: Int, using generator: inout some RandomNumberGenerator) async throws -> [ArchivedTweet] {
        try candidates(sample).randomSample(count: count, using: &generator)
    }

    /// The tweets `sample` allows, in `tweet_id` order.
    private func candidates(_ sample: TweetSample) throws -> [ArchivedTweet] {
        try set.withTables("sampling a tweet near minute \(sample.minute)") { tables -> [ArchivedTweet] in
            let excluded = Set(sample.excluded)
            // What the bot posted since `postedSince`, and what is excluded (under way elsewhere, refused, deleted):
            // those tweets, and any with the same text, are left out.
            var postedIDs = Set<Int64>()
            var postedTexts = Set(excluded.compactMap { tables.tweets[$0]?.tweet.text })
            for post in tables.botPosts where post.postedAt >= sample.postedSince {
                postedIDs.insert(post.sourceTweetID)
                if let text = tables.tweets[post.sourceTweetID]?.tweet.text { postedTexts.insert(text) }
            }
            return tables.tweets.values.filter { row in
                row.tweet.replyUserID == nil && sample.window.contains(localized(row).minute) && !excluded.contains(row.tweet.tweetID)
                    && (sample.allowingMentions || !ArchiveRules.mentionsSomeone(row.tweet.text)) && (sample.allowingLinks || !row.hasLink)
                    && !postedIDs.contains(row.tweet.tweetID) && !postedTexts.contains(row.tweet.text)
            }.map(\.tweet).sorted { $0.tweetID < $1.tweetID }
        }
    }

    func randomReply(_ sample: ReplySample, using generator: inout some RandomNumberGenerator) async throws -> ArchivedTweet? {
        let candidates = try set.withTables("sampling a reply to \(sample.whom)") { tables -> [ArchivedTweet] in
            let excluded = Set(sample.excluded)
            return tables.tweets.values.filter { row in
                guard let user = row.tweet.replyUserID else { return false }
                return (sample.userID == nil || user == sample.userID) && !excluded.contains(row.tweet.tweetID)
                    && (sample.allowingLinks || !row.hasLink)
            }.map(\.tweet).sorted { $0.tweetID < $1.tweetID }
        }
        return candidates.randomElementByOffset(using: &generator)
    }

    func recordBotPost(sourceTweetID: Int64, botTweetID: Int64?, postedAt: Date) async throws {
        try set.withTables("recording a post of tweet \(sourceTweetID)") {
            $0.botPosts.append(.init(sourceTweetID: sourceTweetID, botTweetID: botTweetID, postedAt: postedAt))
        }
    }

    func newest(limit: Int) async throws -> [ArchivedTweet] {
        try set.withTables("reading tweets") { tables in
            Array(tables.tweets.values.map(\.tweet).sorted { ($0.createdAt, $0.tweetID) > ($1.createdAt, $1.tweetID) }.prefix(max(0, limit)))
        }
    }

    func removeAll() async throws { try set.withTables("clearing the archive") { $0.tweets.removeAll() } }

    func remove(tweetID: Int64) async throws -> Bool {
        try set.withTables("removing tweet \(tweetID)") { $0.tweets.removeValue(forKey: tweetID) != nil }
    }

    func botCopies(of sourceTweetID: Int64) async throws -> [Int64] {
        try set.withTables("reading the bot's copies of tweet \(sourceTweetID)") { tables in
            var copies = Set<Int64>()
            for plan in tables.plans.values {
                for slot in plan.slots.values where slot.sourceTweetID == sourceTweetID { if let bot = slot.botTweetID { copies.insert(bot) } }
            }
            for post in tables.botPosts where post.sourceTweetID == sourceTweetID { if let bot = post.botTweetID { copies.insert(bot) } }
            for mention in tables.mentions.values where mention.sourceTweetID == sourceTweetID {
                if let reply = mention.replyTweetID { copies.insert(reply) }
            }
            return copies.sorted()
        }
    }

    func copiedOriginals(since date: Date) async throws -> [Int64] {
        try set.withTables("reading the tweets the bot copied") { tables in
            var originals = Set<Int64>()
            for post in tables.botPosts where post.botTweetID != nil && post.postedAt >= date { originals.insert(post.sourceTweetID) }
            for mention in tables.mentions.values where mention.replyTweetID != nil && mention.handledAt >= date {
                if let source = mention.sourceTweetID { originals.insert(source) }
            }
            return originals.filter { tables.tweets[$0] != nil }.sorted()
        }
    }
}
