import BotClock
import BotCore
import Foundation
import PostText
import Stores

/// The person's posts in memory, under the archive's rules: minutes and days in the archive's zone, the oldest rows
/// beyond the limit dropped, picks drawn over the candidates in `tweet_id` order as every database draws them.
struct InMemoryPostArchive: PostArchive {
    let set: InMemoryStoreSet
    let timeZone: TimeZone
    let rowLimit: Int

    /// Minutes and days in this archive's zone (what `prepare` recomputes when the zone changed).
    private func localized(_ row: Tables.Post) -> Tables.Post {
        guard row.zone != timeZone.identifier else { return row }
        var row = row
        let local = LocalTime(of: row.post.createdAt, in: timeZone)
        (row.zone, row.minute, row.day) = (timeZone.identifier, local.minute, local.day)
        return row
    }

    func prepare() async throws {
        try set.withTables("recomputing minutes of the day") { tables in
            for (id, row) in tables.posts { tables.posts[id] = localized(row) }
        }
    }

    func insert(_ posts: [ArchivedPost]) async throws -> Int {
        guard !posts.isEmpty else { return 0 }
        let rows = ArchiveRules.distinct(posts).map { post in
            let local = LocalTime(of: post.createdAt, in: timeZone)
            return Tables.Post(
                post: post, hasLink: PostLinks.containsLink(post.text), zone: timeZone.identifier, minute: local.minute, day: local.day)
        }
        return try set.withTables("inserting \(posts.count) posts") { tables in
            var inserted = 0
            for row in rows where tables.posts[row.post.postID] == nil {
                tables.posts[row.post.postID] = row
                inserted += 1
            }
            if inserted > 0, tables.posts.count > rowLimit {
                let newestFirst = tables.posts.values.sorted { ($0.post.createdAt, $0.post.postID) > ($1.post.createdAt, $1.post.postID) }
                for row in newestFirst.dropFirst(max(0, rowLimit)) { tables.posts[row.post.postID] = nil }
            }
            return inserted
        }
    }

    func count() async throws -> Int { try set.withTables("counting posts") { $0.posts.count } }

    func containsText(_ text: String) async throws -> Bool {
        try set.withTables("looking a text up in the archive") { tables in tables.posts.values.contains { $0.post.text == text } }
    }

    func newestPostID() async throws -> PostID? { try set.withTables("reading the newest post id") { $0.posts.keys.max() } }

    func minuteHistogram(includingReplies: Bool) async throws -> [Int] {
        try set.withTables("reading the minute histogram") { tables in
            var histogram = [Int](repeating: 0, count: MinuteWindow.minutesPerDay)
            for row in tables.posts.values where includingReplies || row.post.replyUserID == nil { histogram[localized(row).minute] += 1 }
            return histogram
        }
    }

    func postsPerDay(includingReplies: Bool) async throws -> [DayCount] {
        try set.withTables("counting posts per day") { tables in
            var days: [String: Int] = [:]
            for row in tables.posts.values where includingReplies || row.post.replyUserID == nil { days[localized(row).day, default: 0] += 1 }
            return days.sorted { $0.key < $1.key }.map { DayCount(day: $0.key, count: $0.value) }
        }
    }

    func randomPost(_ sample: PostSample, using generator: inout some RandomNumberGenerator) async throws -> ArchivedPost? {
        try candidates(sample).randomElementByOffset(using: &generator)
    }

    func randomPosts(_ sample: PostSample, count: Int, using generator: inout some RandomNumberGenerator) async throws -> [ArchivedPost] {
        try candidates(sample).randomSample(count: count, using: &generator)
    }

    /// The posts `sample` allows, in `tweet_id` order.
    private func candidates(_ sample: PostSample) throws -> [ArchivedPost] {
        try set.withTables("sampling a post near minute \(sample.minute)") { tables -> [ArchivedPost] in
            let excluded = Set(sample.excluded)
            // What the bot posted since `postedSince`, and what is excluded (under way elsewhere, refused, deleted):
            // those posts, and any with the same text, are left out.
            var postedIDs = Set<PostID>()
            var postedTexts = Set(excluded.compactMap { tables.posts[$0]?.post.text })
            for post in tables.botPosts where post.postedAt >= sample.postedSince {
                postedIDs.insert(post.sourcePostID)
                if let text = tables.posts[post.sourcePostID]?.post.text { postedTexts.insert(text) }
            }
            return tables.posts.values.filter { row in
                row.post.replyUserID == nil && sample.window.contains(localized(row).minute) && !excluded.contains(row.post.postID)
                    && (sample.allowingMentions || !ArchiveRules.mentionsSomeone(row.post.text)) && (sample.allowingLinks || !row.hasLink)
                    && !postedIDs.contains(row.post.postID) && !postedTexts.contains(row.post.text)
            }.map(\.post).sorted { $0.postID < $1.postID }
        }
    }

    func randomReply(_ sample: ReplySample, using generator: inout some RandomNumberGenerator) async throws -> ArchivedPost? {
        let candidates = try set.withTables("sampling a reply to \(sample.whom)") { tables -> [ArchivedPost] in
            let excluded = Set(sample.excluded)
            return tables.posts.values.filter { row in
                guard let user = row.post.replyUserID else { return false }
                return (sample.userID == nil || sample.userIDs.contains(user)) && !excluded.contains(row.post.postID)
                    && (sample.allowingLinks || !row.hasLink)
            }.map(\.post).sorted { $0.postID < $1.postID }
        }
        return candidates.randomElementByOffset(using: &generator)
    }

    func recordBotPost(sourcePostID: PostID, botPostID: PostID?, postedAt: Date) async throws {
        try set.withTables("recording a post of post \(sourcePostID)") {
            $0.botPosts.append(.init(sourcePostID: sourcePostID, botPostID: botPostID, postedAt: postedAt))
        }
    }

    func newest(limit: Int) async throws -> [ArchivedPost] {
        try set.withTables("reading posts") { tables in
            Array(tables.posts.values.map(\.post).sorted { ($0.createdAt, $0.postID) > ($1.createdAt, $1.postID) }.prefix(max(0, limit)))
        }
    }

    func posts(withIDs ids: [PostID]) async throws -> [ArchivedPost] {
        try set.withTables("reading posts by id") { tables in ids.prefix(100).compactMap { tables.posts[$0]?.post } }
    }

    func removeAll() async throws { try set.withTables("clearing the archive") { $0.posts.removeAll() } }

    func remove(postID: PostID) async throws -> Bool {
        try set.withTables("removing post \(postID)") { $0.posts.removeValue(forKey: postID) != nil }
    }

    func botCopies(of sourcePostID: PostID) async throws -> [PostID] {
        try set.withTables("reading the bot's copies of post \(sourcePostID)") { tables in
            var copies = Set<PostID>()
            for plan in tables.plans.values {
                for slot in plan.slots.values where slot.sourcePostID == sourcePostID { if let bot = slot.botPostID { copies.insert(bot) } }
            }
            for post in tables.botPosts where post.sourcePostID == sourcePostID { if let bot = post.botPostID { copies.insert(bot) } }
            for mention in tables.mentions.values where mention.sourcePostID == sourcePostID {
                if let reply = mention.replyPostID { copies.insert(reply) }
            }
            return copies.sorted()
        }
    }

    func copiedOriginals(since date: Date) async throws -> [PostID] {
        try set.withTables("reading the posts the bot copied") { tables in
            var originals = Set<PostID>()
            for post in tables.botPosts where post.botPostID != nil && post.postedAt >= date { originals.insert(post.sourcePostID) }
            for mention in tables.mentions.values where mention.replyPostID != nil && mention.handledAt >= date {
                if let source = mention.sourcePostID { originals.insert(source) }
            }
            return originals.filter { tables.posts[$0] != nil }.sorted()
        }
    }
}
