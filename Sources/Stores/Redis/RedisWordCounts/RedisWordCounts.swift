public import Foundation
public import RedisClient
public import WordCounts

/// The favorite filter's counts in Redis, in the original bot's key layout so its data keeps working:
///
/// - hash `features:<feature>` with fields `categories:favorite` and `categories:normal`: how many learned posts
///   of each category had the feature;
/// - counters `categories:favorite` and `categories:normal`: how many posts each category learned;
/// - flags `trained:<name>`: a one-time training ran;
/// - sets `learned:favorite` (liked posts learned, kept) and `learned:normal:<week>` (timeline posts learned, one
///   set a week, each expiring after `LearnedMarkers.normalWeeks` weeks: the store stays within a small plan).
///
/// Every key is behind `keyPrefix` (`REDIS_KEY_PREFIX`; on a Redis Cluster with a hash tag, so that one bot's keys
/// share one slot). Each operation, including the batch ones, is one round trip (on a cluster, to the node of that slot).
public struct RedisWordCounts: WordCountBackend {
    /// The Redis connection: one server, or a Redis Cluster (every key then under one hash tag, in `keyPrefix`).
    public let connection: any RedisPipelining
    /// Put before every key.
    public let keyPrefix: String
    /// The time markers are filed under (the week of `now()`).
    private let now: @Sendable () -> Date

    /// A store on `connection` whose keys start with `keyPrefix`; `now` tells the week (tests and benchmarks inject it).
    public init(connection: any RedisPipelining, keyPrefix: String = "", now: @escaping @Sendable () -> Date = { Date() }) {
        self.connection = connection
        self.keyPrefix = keyPrefix
        self.now = now
    }

    // MARK: Reading

    /// The counts for several posts at once, in one round trip (one entry per post, in order).
    public func counts(forEach posts: [[String]]) async throws -> [FeatureCounts] {
        let unique = posts.map(Self.distinct)
        var commands: [[String]] = [["MGET", categoryKey(.favorite), categoryKey(.normal)]]
        for features in unique {
            for feature in features {
                commands.append(["HMGET", featureKey(feature), Self.field(.favorite), Self.field(.normal)])
            }
        }
        let replies = try await pipeline(commands)
        for reply in replies { try reply.checked() }
        guard let totals = replies[0].arrayValue, totals.count == 2 else {
            throw WordCountsUnavailable(store: store, reason: "MGET of the category counters did not return two values")
        }
        let categories: [Category: Int] = [
            .favorite: Int(totals[0].integerValue ?? 0), .normal: Int(totals[1].integerValue ?? 0),
        ]
        var index = 1
        return try unique.map { features in
            var counts: [String: [Category: Int]] = [:]
            for feature in features {
                guard let values = replies[index].arrayValue, values.count == 2 else {
                    throw WordCountsUnavailable(store: store, reason: "HMGET of \(featureKey(feature)) did not return two values")
                }
                counts[feature] = [.favorite: Int(values[0].integerValue ?? 0), .normal: Int(values[1].integerValue ?? 0)]
                index += 1
            }
            return FeatureCounts(features: counts, categories: categories)
        }
    }

    // MARK: Learning

    /// Learns several posts in one round trip.
    public func learn(batch: [(features: [String], category: Category)]) async throws {
        guard !batch.isEmpty else { return }
        var commands: [[String]] = []
        var perCategory: [Category: Int] = [:]
        for (features, category) in batch {
            for feature in Self.distinct(features) {
                commands.append(["HINCRBY", featureKey(feature), Self.field(category), "1"])
            }
            perCategory[category, default: 0] += 1
        }
        for category in Category.allCases {
            if let count = perCategory[category] { commands.append(["INCRBY", categoryKey(category), String(count)]) }
        }
        for reply in try await pipeline(commands) { try reply.checked() }
    }

    /// Takes one post back out of `category`, never below zero, in one script (atomic).
    public func unlearn(_ features: [String], from category: Category) async throws {
        let keys = [categoryKey(category)] + Self.distinct(features).map(featureKey)
        try await pipeline([["EVAL", Self.unlearnScript, String(keys.count)] + keys + [Self.field(category)]]).forEach { try $0.checked() }
    }

    /// The Lua of taking one post out of a category: KEYS[1] is its counter, the feature hashes follow; ARGV[1] is
    /// the category's field. Nothing goes below zero.
    private static let unlearnScript = """
        if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then redis.call('DECR', KEYS[1]) end
        for index = 2, #KEYS do
          if tonumber(redis.call('HGET', KEYS[index], ARGV[1]) or '0') > 0 then
            redis.call('HINCRBY', KEYS[index], ARGV[1], -1)
          end
        end
        return #KEYS - 1
        """

    /// Moves several posts from `normal` to `favorite` in one round trip.
    public func moveToFavorite(batch: [[String]]) async throws {
        guard !batch.isEmpty else { return }
        let commands: [[String]] = batch.map { features in
            let keys = [categoryKey(.favorite), categoryKey(.normal)] + Self.distinct(features).map(featureKey)
            return ["EVAL", Self.moveToFavoriteScript, String(keys.count)] + keys
                + [Self.field(.favorite), Self.field(.normal)]
        }
        for reply in try await pipeline(commands) { try reply.checked() }
    }

    /// Learns liked posts as favorites (moving them out of `normal`, as `moveToFavorite`), each at most once ever:
    /// the ids are remembered in the set `learned:favorite`, so importing or polling the same likes again changes
    /// nothing. All in one round trip and one MULTI/EXEC transaction. Returns how many were new.
    @discardableResult
    public func learnFavoritesOnce(_ posts: [(id: String, features: [String])]) async throws -> Int {
        guard !posts.isEmpty else { return 0 }
        var commands: [[String]] = [["MULTI"]]
        for (id, features) in posts {
            let keys = [categoryKey(.favorite), categoryKey(.normal), learnedKey(.favorite)] + Self.distinct(features).map(featureKey)
            commands.append(
                ["EVAL", Self.learnFavoriteOnceScript, String(keys.count)] + keys
                    + [Self.field(.favorite), Self.field(.normal), id])
        }
        commands.append(["EXEC"])
        let replies = try await pipeline(commands)
        for reply in replies { try reply.checked() }
        guard let results = replies.last?.arrayValue else {
            throw WordCountsUnavailable(store: store, reason: "EXEC did not return the scripts' results")
        }
        return try results.reduce(0) { total, result in total + Int(try result.checked().integerValue ?? 0) }
    }

    /// Learns posts seen but not liked as `normal`, each at most once within `LearnedMarkers.normalWeeks` (ids in
    /// this week's set `learned:normal:<week>`, checked against the weeks before and the old unbucketed set), in one
    /// round trip and one MULTI/EXEC transaction. Returns how many were new.
    @discardableResult
    public func learnNormalsOnce(_ posts: [(id: String, features: [String])]) async throws -> Int {
        guard !posts.isEmpty else { return 0 }
        let week = LearnedMarkers.week(of: now())
        let markers = (0..<LearnedMarkers.normalWeeks).map { normalMarkersKey(week: week - $0) } + [learnedKey(.normal)]
        let expiry = String((LearnedMarkers.normalWeeks + 1) * 7 * 86_400)
        var commands: [[String]] = [["MULTI"]]
        for (id, features) in posts {
            let keys = [categoryKey(.normal)] + markers + Self.distinct(features).map(featureKey)
            commands.append(
                ["EVAL", Self.learnNormalOnceScript, String(keys.count)] + keys
                    + [Self.field(.normal), id, String(markers.count - 1), expiry])
        }
        commands.append(["EXEC"])
        let replies = try await pipeline(commands)
        for reply in replies { try reply.checked() }
        guard let results = replies.last?.arrayValue else {
            throw WordCountsUnavailable(store: store, reason: "EXEC did not return the scripts' results")
        }
        return try results.reduce(0) { total, result in total + Int(try result.checked().integerValue ?? 0) }
    }

    // KEYS[1] the normal counter, KEYS[2] this week's markers, then ARGV[3] older marker sets, then the features;
    // ARGV[4] the seconds this week's set lives.
    private static let learnNormalOnceScript = """
        local older = tonumber(ARGV[3])
        for index = 3, 2 + older do
          if redis.call('SISMEMBER', KEYS[index], ARGV[2]) == 1 then return 0 end
        end
        if redis.call('SADD', KEYS[2], ARGV[2]) == 0 then return 0 end
        redis.call('EXPIRE', KEYS[2], ARGV[4])
        redis.call('INCR', KEYS[1])
        for index = 3 + older, #KEYS do redis.call('HINCRBY', KEYS[index], ARGV[1], 1) end
        return 1
        """

    /// Lets go of the weekly sets older than `LearnedMarkers.normalWeeks` by `now()` (they also expire by themselves
    /// on Redis's own clock) and of the old unbucketed set `learned:normal` (it grew without end before the weekly
    /// sets). Returns how many markers they held.
    @discardableResult
    public func forgetOldNormalMarkers() async throws -> Int {
        let oldest = LearnedMarkers.week(of: now()) - LearnedMarkers.normalWeeks + 1
        var old = [learnedKey(.normal)]
        var cursor = "0"
        repeat {
            let reply = try await send("SCAN", cursor, "MATCH", Self.globEscaped(keyPrefix) + "learned:normal:*", "COUNT", "1000")
            guard let parts = reply.arrayValue, parts.count == 2, let next = parts[0].stringValue,
                let keys = parts[1].arrayValue?.compactMap(\.stringValue)
            else {
                throw WordCountsUnavailable(store: store, reason: "SCAN did not return a cursor and keys")
            }
            old += keys.filter { key in key.split(separator: ":").last.flatMap { Int($0) }.map { $0 < oldest } ?? false }
            cursor = next
        } while cursor != "0"
        let replies = try await pipeline(old.map { ["SCARD", $0] } + [["UNLINK"] + old])
        return try replies.dropLast().reduce(0) { $0 + Int(try $1.checked().integerValue ?? 0) }
    }

    /// Whether a liked post was already learned by `learnFavoritesOnce`.
    public func wasLearnedAsFavorite(_ id: String) async throws -> Bool {
        try await send("SISMEMBER", learnedKey(.favorite), id).integerValue == 1
    }

    private static let learnFavoriteOnceScript =
        "if redis.call('SADD', KEYS[3], ARGV[3]) == 0 then return 0 end\n" + moveToFavoriteLua(firstFeatureKey: 4) + "return 1\n"

    // The original decremented each feature's `normal` count; the category counter `normal` is decremented too
    // (also never below zero), since the post it counted is no longer a normal one.
    private static let moveToFavoriteScript = moveToFavoriteLua(firstFeatureKey: 3) + "return #KEYS - 2\n"

    /// The Lua of moving one post to favorite: KEYS[1] and KEYS[2] are the favorite and normal counters, the
    /// feature hashes start at `firstFeatureKey`; ARGV[1] and ARGV[2] are the favorite and normal fields.
    private static func moveToFavoriteLua(firstFeatureKey: Int) -> String {
        """
        redis.call('INCR', KEYS[1])
        if tonumber(redis.call('GET', KEYS[2]) or '0') > 0 then redis.call('DECR', KEYS[2]) end
        for index = \(firstFeatureKey), #KEYS do
          redis.call('HINCRBY', KEYS[index], ARGV[1], 1)
          if tonumber(redis.call('HGET', KEYS[index], ARGV[2]) or '0') > 0 then
            redis.call('HINCRBY', KEYS[index], ARGV[2], -1)
          end
        end

        """
    }

    // MARK: Training flags

    /// Whether the one-time training `name` (such as `scheduler`, `classifier`) has run.
    public func isTrained(_ name: String) async throws -> Bool {
        try await send("EXISTS", trainedKey(name)).integerValue == 1
    }

    /// Records that the one-time training `name` has run.
    public func markTrained(_ name: String) async throws {
        try await send("SET", trainedKey(name), "1")
    }

    // MARK: Clearing

    /// Deletes this store's keys (`features:*`, `categories:*`, `trained:*`, `learned:*` under the prefix) and nothing else,
    /// never `FLUSHALL`: other data in the same Redis survives. Returns how many keys were deleted.
    @discardableResult
    public func removeAll() async throws -> Int {
        var deleted = 0
        try await forEachBatchOfKeys { keys in
            deleted += Int(try await pipeline([["UNLINK"] + keys])[0].checked().integerValue ?? 0)
        }
        return deleted
    }

    /// Moves this store's keys (as `removeAll` finds them) under `target`'s prefix, keeping what each holds: a bot that
    /// `start` ran joins a fleet with its counts (`mirror_bot bots adopt`). Each key is copied by its type (a hash, a
    /// string, a set: what the counts are made of) to `target` and then deleted here, a batch at a time, so that it
    /// works on a Redis Cluster too, where the two prefixes' hash tags are in different slots. A key already under
    /// `target`'s name is replaced. Returns how many keys moved.
    @discardableResult
    public func move(to target: RedisWordCounts) async throws -> Int {
        guard target.keyPrefix != keyPrefix else { return 0 }
        var moved = 0
        try await forEachBatchOfKeys { keys in
            let types = try await pipeline(keys.map { ["TYPE", $0] }).map { try $0.checked().stringValue ?? "none" }
            if let (key, type) = zip(keys, types).first(where: { !["hash", "set", "string", "none"].contains($0.1) }) {
                throw WordCountsUnavailable(store: store, reason: "\(key) is a \(type), not a key of the word counts: nothing more was moved")
            }
            let reads: [[String]] = zip(keys, types).map { key, type in
                switch type {
                case "hash": ["HGETALL", key]
                case "set": ["SMEMBERS", key]
                case "string": ["GET", key]
                default: ["EXISTS", key]
                }
            }
            let values = try await pipeline(reads).map { try $0.checked() }
            var writes: [[String]] = []
            for ((key, type), value) in zip(zip(keys, types), values) {
                let newKey = target.keyPrefix + key.dropFirst(keyPrefix.count)
                let items = value.arrayValue?.compactMap(\.stringValue) ?? []
                switch type {
                case "hash" where !items.isEmpty: writes += [["DEL", newKey], ["HSET", newKey] + items]
                case "set" where !items.isEmpty: writes += [["DEL", newKey], ["SADD", newKey] + items]
                case "string": if let text = value.stringValue { writes.append(["SET", newKey, text]) }
                default: break  // gone since the scan, or empty
                }
            }
            for reply in try await target.pipeline(writes) { _ = try reply.checked() }
            moved += Int(try await pipeline([["UNLINK"] + keys])[0].checked().integerValue ?? 0)
        }
        return moved
    }

    /// Runs `body` on each batch of this store's keys (`features:*`, `categories:*`, `trained:*`, `learned:*` under the
    /// prefix, found by `SCAN`), never an empty one.
    private func forEachBatchOfKeys(_ body: ([String]) async throws -> Void) async throws {
        for pattern in ["features:*", "categories:*", "trained:*", "learned:*"] {
            var cursor = "0"
            repeat {
                let reply = try await send("SCAN", cursor, "MATCH", Self.globEscaped(keyPrefix) + pattern, "COUNT", "1000")
                guard let parts = reply.arrayValue, parts.count == 2, let next = parts[0].stringValue,
                    let keys = parts[1].arrayValue?.compactMap(\.stringValue)
                else {
                    throw WordCountsUnavailable(store: store, reason: "SCAN did not return a cursor and keys")
                }
                if !keys.isEmpty { try await body(keys) }
                cursor = next
            } while cursor != "0"
        }
    }

    // MARK: Keys

    /// The hash of one feature's counts.
    public func featureKey(_ feature: String) -> String { keyPrefix + "features:" + feature }
    /// The counter of posts learned in `category`.
    public func categoryKey(_ category: Category) -> String { keyPrefix + "categories:" + category.rawValue }
    /// The set of post ids learned once in `category` (for `normal`, the old unbucketed set; see `normalMarkersKey`).
    public func learnedKey(_ category: Category) -> String { keyPrefix + "learned:" + category.rawValue }
    /// The set of the ids learned as `normal` in `week` (`LearnedMarkers.week(of:)`).
    public func normalMarkersKey(week: Int) -> String { keyPrefix + "learned:normal:" + String(week) }
    /// The flag of a one-time training.
    public func trainedKey(_ name: String) -> String { keyPrefix + "trained:" + name }

    private static func field(_ category: Category) -> String { "categories:" + category.rawValue }

    private static func distinct(_ features: [String]) -> [String] {
        var seen = Set<String>()
        return features.filter { seen.insert($0).inserted }
    }

    /// The prefix with glob characters escaped, for `SCAN MATCH`.
    static func globEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if "*?[]\\".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    // MARK: The connection, in the word counts' own terms

    /// Which store this is, without secrets.
    private var store: String { connection.location }

    /// Sends `commands` in one round trip; a Redis that cannot be reached is a `WordCountsUnavailable`.
    private func pipeline(_ commands: [[String]]) async throws -> [RedisReply] {
        do { return try await connection.pipeline(commands, routingKey: keyPrefix) } catch let error as RedisError {
            throw WordCountsUnavailable(store: store, reason: error.description)
        }
    }

    /// Sends one command; a Redis that cannot be reached is a `WordCountsUnavailable`.
    @discardableResult
    private func send(_ arguments: String...) async throws -> RedisReply {
        do { return try await connection.pipeline([arguments], routingKey: keyPrefix)[0].checked() } catch let error as RedisError {
            throw WordCountsUnavailable(store: store, reason: error.description)
        }
    }
}
