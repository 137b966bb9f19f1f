import BotCore
import Foundation
import Stores

/// The likes made, in memory: each post once.
struct InMemoryLikeLog: LikeLog {
    let set: InMemoryStoreSet

    func likedAmong(_ postIDs: [PostID]) async throws -> Set<PostID> {
        try set.withTables("reading likes") { tables in Set(postIDs.filter { tables.likes[$0] != nil }) }
    }

    func recordLike(postID: PostID, authorID: AccountID?, logRatio: Double, reason: String, at date: Date) async throws -> Bool {
        try set.withTables("recording the like of \(postID)") { tables in
            guard tables.likes[postID] == nil else { return false }
            tables.likes[postID] = RecordedLike(
                postID: postID, authorID: authorID, logRatio: RecordedLike.storable(logRatio), reason: reason, likedAt: date)
            return true
        }
    }

    func count() async throws -> Int { try set.withTables("counting likes") { $0.likes.count } }

    func likes() async throws -> [RecordedLike] {
        try set.withTables("reading the likes") { $0.likes.values.sorted { ($0.likedAt, $0.postID) < ($1.likedAt, $1.postID) } }
    }

    func recordPersonLikes(_ likes: [PersonLike]) async throws -> Int {
        try set.withTables("recording \(likes.count) of the person's likes") { tables in
            var inserted = 0
            for like in likes {
                if let stored = tables.personLikes[like.postID] {
                    // An exact time replaces an estimated one; nothing else changes a stored like.
                    if like.isExact && !stored.isExact { tables.personLikes[like.postID] = like }
                } else {
                    tables.personLikes[like.postID] = like
                    inserted += 1
                }
            }
            return inserted
        }
    }

    func personLikes() async throws -> [PersonLike] {
        try set.withTables("reading the person's likes") { $0.personLikes.values.sorted { ($0.likedAt, $0.postID) < ($1.likedAt, $1.postID) } }
    }

    func likeSlots(of day: String) async throws -> [LikeSlot]? {
        try set.withTables("reading the like plan of \(day)") { $0.likePlans[day]?.values.sorted { $0.minute < $1.minute } }
    }

    func storeLikePlan(day: String, minutes: [Int], drawnAt: Date) async throws -> [LikeSlot] {
        try set.withTables("storing the like plan of \(day)") { tables in
            if tables.likePlans[day] == nil {
                tables.likePlans[day] = Dictionary(
                    minutes.map { ($0, LikeSlot(minute: $0, state: .planned)) }, uniquingKeysWith: { first, _ in first })
            }
            return tables.likePlans[day]!.values.sorted { $0.minute < $1.minute }
        }
    }

    func markLiked(day: String, minute: Int, like: RecordedLike) async throws -> Bool {
        try set.withTables("recording like slot \(minute) of \(day) as liked") { tables in
            guard tables.likePlans[day]?[minute]?.state == .planned, tables.likes[like.postID] == nil else { return false }
            tables.likePlans[day]?[minute] = LikeSlot(
                minute: minute, state: .liked, postID: like.postID, logRatio: RecordedLike.storable(like.logRatio),
                reason: like.reason, doneAt: like.likedAt)
            tables.likes[like.postID] = RecordedLike(
                postID: like.postID, authorID: like.authorID, logRatio: RecordedLike.storable(like.logRatio),
                reason: like.reason, likedAt: like.likedAt)
            tables.likeCandidates[like.postID] = nil
            return true
        }
    }

    func markLikeSkipped(day: String, minute: Int, at date: Date, reason: String) async throws {
        try set.withTables("recording like slot \(minute) of \(day) as skipped") { tables in
            guard tables.likePlans[day]?[minute]?.state == .planned else { return }
            tables.likePlans[day]?[minute] = LikeSlot(minute: minute, state: .skipped, reason: reason, doneAt: date)
        }
    }

    func keepCandidates(_ candidates: [LikeCandidate]) async throws {
        try set.withTables("keeping \(candidates.count) posts to like") { tables in
            for candidate in candidates where tables.likes[candidate.postID] == nil && tables.likeCandidates[candidate.postID] == nil {
                var kept = candidate
                kept.logRatio = RecordedLike.storable(candidate.logRatio)
                tables.likeCandidates[candidate.postID] = kept
            }
        }
    }

    func candidates(postedSince since: Date) async throws -> [LikeCandidate] {
        try set.withTables("reading the posts kept to like") { tables in
            tables.likeCandidates.values.filter { $0.postedAt >= since && tables.likes[$0.postID] == nil }.sorted(by: LikeCandidate.isBetter)
        }
    }

    func forgetCandidates(postedBefore date: Date?, postID: PostID?) async throws {
        try set.withTables("forgetting posts kept to like") { tables in
            tables.likeCandidates = tables.likeCandidates.filter { $0.value.postedAt >= (date ?? .distantPast) && $0.key != postID }
        }
    }
}

/// The bot's small named values, in memory.
struct InMemoryBotState: BotState {
    let set: InMemoryStoreSet

    func value(of name: String) async throws -> String? { try set.withTables("reading \(name)") { $0.state[name] } }
    func values() async throws -> [String: String] { try set.withTables("reading the bot's state") { $0.state } }
    func setValue(_ value: String, of name: String) async throws { try set.withTables("storing \(name)") { $0.state[name] = value } }
    func removeValue(of name: String) async throws { try set.withTables("forgetting \(name)") { $0.state[name] = nil } }
    func replaceValue(of name: String, expecting expected: String?, with new: String?) async throws -> Bool {
        try set.withTables("replacing \(name)") { tables in
            guard tables.state[name] == expected else { return false }
            tables.state[name] = new
            return true
        }
    }
}

/// The training examples, in memory, in learning order.
struct InMemoryTrainingExamples: TrainingExamples {
    let set: InMemoryStoreSet

    func record(_ examples: [TrainingExample]) async throws -> Int {
        try set.withTables("recording \(examples.count) training examples") { tables in
            var known = Set(tables.examples.map { [$0.postID, $0.label, $0.source] })
            var inserted = 0
            for var example in examples where known.insert([example.postID, example.label, example.source]).inserted {
                example.sequence = tables.nextExampleSequence
                tables.nextExampleSequence += 1
                tables.examples.append(example)
                inserted += 1
            }
            return inserted
        }
    }

    func examples(newest limit: Int?) async throws -> [TrainingExample] {
        try set.withTables("reading the training examples") { tables in
            limit.map { Array(tables.examples.suffix(max(0, $0))) } ?? tables.examples
        }
    }

    func count() async throws -> Int { try set.withTables("counting training examples") { $0.examples.count } }

    func timelineLikes() async throws -> (seen: Int, liked: Int) {
        try set.withTables("counting timeline likes") { tables in
            let seen = Set(tables.examples.filter { $0.source == "timeline" }.map(\.postID))
            let liked = Set(tables.examples.filter { $0.label == "favorite" }.map(\.postID))
            return (seen.count, seen.intersection(liked).count)
        }
    }

    func remove(postID: String) async throws -> [TrainingExample] {
        try set.withTables("removing the training examples of post \(postID)") { tables in
            let removed = tables.examples.filter { $0.postID == postID }
            tables.examples.removeAll { $0.postID == postID }
            return removed
        }
    }

    func removeAll() async throws { try set.withTables("clearing the training examples") { $0.examples.removeAll() } }
}

/// A paid network's bill per day and run, in memory.
struct InMemoryUsageDays: UsageDays {
    let set: InMemoryStoreSet

    func record(_ entry: UsageEntry) async throws {
        try set.withTables("recording the API usage of \(entry.day)") { tables in
            tables.usageOrder += 1
            tables.usage[entry.day + " " + entry.runID] = Tables.Usage(entry: entry, order: tables.usageOrder)
        }
    }

    func spent(on day: String, excludingRun runID: String) async throws -> Double {
        try set.withTables("reading the API usage of \(day)") { tables in
            tables.usage.values.filter { $0.entry.day == day && $0.entry.runID != runID }.map(\.entry.cost).reduce(0, +)
        }
    }

    func entries(since day: String) async throws -> [UsageEntry] {
        try set.withTables("reading the API usage since \(day)") { tables in
            tables.usage.values.filter { $0.entry.day >= day }.sorted { ($0.entry.day, $0.order) < ($1.entry.day, $1.order) }.map(\.entry)
        }
    }

    func removeDays(before day: String) async throws {
        try set.withTables("pruning the API usage") { tables in tables.usage = tables.usage.filter { $0.value.entry.day >= day } }
    }
}

/// The bot's actions read from the in-memory tables, as the databases' union reads them.
struct InMemoryActionLog: ActionLog {
    let set: InMemoryStoreSet

    func actions(before: ActionPosition?, after: ActionPosition?, limit: Int) async throws -> [BotAction] {
        let all = try set.withTables("reading the bot's actions") { tables -> [BotAction] in
            var actions: [BotAction] = []
            for (day, plan) in tables.plans {
                for (minute, slot) in plan.slots where slot.state == .posted || slot.state == .skipped {
                    actions.append(
                        BotAction(
                            kind: slot.state == .posted ? .posted : .skipped, at: slot.postedAt ?? slot.updatedAt,
                            key: BotAction.slotKey(day: day, minute: minute), postID: slot.botPostID.map(\.text),
                            sourceID: slot.sourcePostID.map(\.text), reason: slot.reason))
                }
            }
            for (id, mention) in tables.mentions where mention.state == .replied || mention.state == .skipped {
                actions.append(
                    BotAction(
                        kind: mention.state == .replied ? .replied : .notReplied, at: mention.handledAt, key: "mention:\(id)",
                        postID: mention.replyPostID.map(\.text), sourceID: id.text, reason: mention.reason))
            }
            for like in tables.likes.values {
                actions.append(
                    BotAction(
                        kind: .liked, at: like.likedAt, key: "like:\(like.postID)", postID: like.postID.text, sourceID: nil,
                        reason: like.reason))
            }
            return actions
        }
        let newestFirst = all.sorted { $0.position.isAfter($1.position) }
        if let after {
            return Array(newestFirst.filter { $0.position.isAfter(after) }.suffix(max(0, limit)))
        }
        return Array(newestFirst.filter { before.map($0.position.isBefore) ?? true }.prefix(max(0, limit)))
    }
}

extension ActionPosition {
    /// Whether `self` comes before `other` in time order.
    func isBefore(_ other: ActionPosition) -> Bool { other.isAfter(self) }
}

/// The pruning of old records in memory, by the same policy.
struct InMemoryStoreRetention: StoreRetention {
    let set: InMemoryStoreSet

    func prune(at now: Date, policy: RetentionPolicy) async throws -> RemovedRecords {
        let (logsBefore, postsBefore, planDay) = (policy.logsBefore(now), policy.postsBefore(now), policy.plansBefore(now))
        return try set.withTables("pruning old records") { tables in
            var removed = RemovedRecords()
            let oldMentions = tables.mentions.filter { $0.value.handledAt < logsBefore && $0.value.state != .replying }.map(\.key)
            oldMentions.forEach { tables.mentions[$0] = nil }
            removed.mentions = oldMentions.count
            let oldLikes = tables.likes.filter { $0.value.likedAt < logsBefore }.map(\.key)
            oldLikes.forEach { tables.likes[$0] = nil }
            removed.likes = oldLikes.count
            let oldPlans = tables.plans.keys.filter { $0 < planDay }
            oldPlans.forEach { tables.plans[$0] = nil }
            removed.plans = oldPlans.count
            // The like plans go with the day plans (counted with them); posts kept to like, long past liking, with the logs.
            let oldLikePlans = tables.likePlans.keys.filter { $0 < planDay }
            oldLikePlans.forEach { tables.likePlans[$0] = nil }
            removed.plans += oldLikePlans.count
            tables.likeCandidates = tables.likeCandidates.filter { $0.value.postedAt >= logsBefore }
            let posts = tables.botPosts.count
            tables.botPosts.removeAll { $0.postedAt < postsBefore }
            removed.posts = posts - tables.botPosts.count
            let excess = max(0, tables.examples.count - policy.trainingExamples)
            tables.examples.removeFirst(excess)
            removed.trainingExamples = excess
            return removed
        }
    }

    func personRecords() async throws -> [String: Int] {
        try set.withTables("counting what was learned from the person") { tables in Self.counts(of: tables) }
    }

    func forgetPerson() async throws -> [String: Int] {
        try set.withTables("forgetting the person") { tables in
            let counts = Self.counts(of: tables)
            tables.posts = [:]
            tables.personLikes = [:]
            tables.examples = []
            tables.plans = [:]
            tables.likePlans = [:]
            tables.likeCandidates = [:]
            tables.botPosts = []
            tables.likes = [:]
            tables.mentions = [:]
            tables.state = tables.state.filter { PersonRecords.keeps($0.key) }
            return counts
        }
    }

    /// The rows of each of `PersonRecords`' tables, as the databases count them (a plan's slots apart from the plan).
    private static func counts(of tables: Tables) -> [String: Int] {
        [
            "tweets": tables.posts.count, "person_likes": tables.personLikes.count, "training_examples": tables.examples.count,
            "plan_slots": tables.plans.values.map(\.slots.count).reduce(0, +), "day_plans": tables.plans.count,
            "like_slots": tables.likePlans.values.map(\.count).reduce(0, +), "like_plans": tables.likePlans.count,
            "like_candidates": tables.likeCandidates.count, "bot_posts": tables.botPosts.count, "bot_likes": tables.likes.count,
            "mention_replies": tables.mentions.count,
            PersonRecords.stateTable: tables.state.keys.filter { !PersonRecords.keeps($0) }.count,
        ]
    }
}
