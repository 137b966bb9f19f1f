public import Foundation
import GRDB
public import Stores
public import WordCounts

/// The favorite filter's word counts in an embedded SQLite file (GRDB, WAL mode), for a bot run without Redis.
///
/// The same counts as the Redis layout, in four tables: `word_counts` (feature, category, count), `category_counts`,
/// `learned_tweets` (ids learned once) and `trained` (one-time trainings). Every batch is read in one read
/// transaction or written in one write transaction, so a crash leaves all of a batch or none of it.
public struct SQLiteWordCounts: WordCountBackend {
    private let pool: DatabasePool
    private let path: String
    /// The time markers are filed under (the week of `now()`).
    private let now: @Sendable () -> Date

    /// Opens (creating if needed) the SQLite file at `path` and brings its tables up to date (the migrations of
    /// `Migrations/sqlite/`, shared with the archive when it lives in the same file).
    public init(path: String, busyTimeout: Int = StoreSettings.commandBusyTimeout, now: @escaping @Sendable () -> Date = { Date() }) throws {
        do {
            try self.init(pool: try SQLiteStoreSet.openPool(path: path, busyTimeout: busyTimeout), path: path, now: now)
        } catch {
            throw WordCountsUnavailable(store: "the SQLite file \(path) (MIRROR_BOT_DATA)", reason: "\(error)")
        }
    }

    /// The counts in a file another store of the bot has open, through its pool (one pool per file for the whole process).
    init(pool: DatabasePool, path: String, now: @escaping @Sendable () -> Date) throws {
        self.pool = pool
        self.path = path
        self.now = now
        try SQLiteMigrations.migrate(pool)
    }

    // MARK: Reading

    /// The counts for several posts at once, in one read transaction.
    public func counts(forEach posts: [[String]]) async throws -> [FeatureCounts] {
        let unique = posts.map(Self.distinct)
        let allFeatures = Self.distinct(unique.flatMap { $0 })
        let (totals, known) = try await read { db -> ([Category: Int], [String: [Category: Int]]) in
            var totals: [Category: Int] = [.favorite: 0, .normal: 0]
            // Cached statements: the daemon reads a page at a time, and the same shapes of query repeat.
            for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT category, count FROM category_counts")) {
                if let category = Category(rawValue: try row.decode(forColumn: "category")) { totals[category] = try row.decode(forColumn: "count") }
            }
            var known: [String: [Category: Int]] = [:]
            for chunk in stride(from: 0, to: allFeatures.count, by: 500).map({ Array(allFeatures[$0..<min($0 + 500, allFeatures.count)]) }) {
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                for row in try Row.fetchAll(
                    db.cachedStatement(sql: "SELECT feature, category, count FROM word_counts WHERE feature IN (\(marks))"),
                    arguments: StatementArguments(chunk))
                {
                    if let category = Category(rawValue: try row.decode(forColumn: "category")) {
                        known[try row.decode(forColumn: "feature"), default: [:]][category] = try row.decode(forColumn: "count")
                    }
                }
            }
            return (totals, known)
        }
        return unique.map { features in
            var counts: [String: [Category: Int]] = [:]
            for feature in features {
                counts[feature] = [.favorite: known[feature]?[.favorite] ?? 0, .normal: known[feature]?[.normal] ?? 0]
            }
            return FeatureCounts(features: counts, categories: totals)
        }
    }

    // MARK: Learning

    /// Learns several posts in one write transaction.
    public func learn(batch: [(features: [String], category: Category)]) async throws {
        guard !batch.isEmpty else { return }
        let batch = batch.map { (features: Self.distinct($0.features), category: $0.category) }
        var changes = Changes()
        for (features, category) in batch { changes.add(features, to: category) }
        try await write { [changes] db in try changes.apply(in: db) }
    }

    /// Takes one post back out of `category` in one write transaction, never below zero.
    public func unlearn(_ features: [String], from category: Category) async throws {
        let features = Self.distinct(features)
        try await write { db in
            let take = try db.cachedStatement(sql: "UPDATE word_counts SET count = max(0, count - 1) WHERE feature = ? AND category = ?")
            for feature in features { try take.execute(arguments: [feature, category.rawValue]) }
            try db.execute(sql: "UPDATE category_counts SET count = max(0, count - 1) WHERE category = ?", arguments: [category.rawValue])
        }
    }

    /// Moves several posts from `normal` to `favorite` in one write transaction, never below zero.
    public func moveToFavorite(batch: [[String]]) async throws {
        guard !batch.isEmpty else { return }
        var changes = Changes()
        for features in batch { changes.moveToFavorite(Self.distinct(features)) }
        try await write { [changes] db in try changes.apply(in: db) }
    }

    /// Learns liked posts as favorites, each id at most once ever, in one write transaction; how many were new.
    @discardableResult
    public func learnFavoritesOnce(_ posts: [(id: String, features: [String])]) async throws -> Int {
        guard !posts.isEmpty else { return 0 }
        let posts = posts.map { (id: $0.id, features: Self.distinct($0.features)) }
        let week = LearnedMarkers.week(of: now())
        return try await write { db in
            var changes = Changes()
            for (id, features) in posts where try Self.remember(id, as: .favorite, week: week, in: db) { changes.moveToFavorite(features) }
            try changes.apply(in: db)
            return changes.posts
        }
    }

    /// Learns posts seen but not liked as `normal`, each id at most once within `LearnedMarkers.normalWeeks`, in
    /// one write transaction.
    @discardableResult
    public func learnNormalsOnce(_ posts: [(id: String, features: [String])]) async throws -> Int {
        guard !posts.isEmpty else { return 0 }
        let posts = posts.map { (id: $0.id, features: Self.distinct($0.features)) }
        let week = LearnedMarkers.week(of: now())
        return try await write { db in
            var changes = Changes()
            for (id, features) in posts where try Self.remember(id, as: .normal, week: week, in: db) { changes.add(features, to: .normal) }
            try changes.apply(in: db)
            return changes.posts
        }
    }

    /// Whether a liked post was already learned by `learnFavoritesOnce`.
    public func wasLearnedAsFavorite(_ id: String) async throws -> Bool {
        try await read { db in
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM learned_tweets WHERE category = 'favorite' AND tweet_id = ?)",
                arguments: [id]) ?? false
        }
    }

    // MARK: Training flags and clearing

    /// Whether the one-time training `name` has run.
    public func isTrained(_ name: String) async throws -> Bool {
        try await read { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM trained WHERE name = ?)", arguments: [name]) ?? false }
    }

    /// Records that the one-time training `name` has run.
    public func markTrained(_ name: String) async throws {
        try await write { db in try db.execute(sql: "INSERT OR IGNORE INTO trained (name) VALUES (?)", arguments: [name]) }
    }

    /// Deletes every count, learned id and training flag; how many rows were deleted.
    @discardableResult
    public func removeAll() async throws -> Int {
        try await write { db in
            var deleted = 0
            for table in ["word_counts", "category_counts", "learned_tweets", "trained"] {
                try db.execute(sql: "DELETE FROM \(table)")
                deleted += db.changesCount
            }
            return deleted
        }
    }

    // MARK: Helpers (inside a write transaction)

    /// A batch's changes, summed per feature before they are written: one statement per feature and category
    /// instead of one per post. Within a batch, moves only add to favorite and take from normal, so taking k from
    /// normal at once, never below zero, equals taking one k times.
    struct Changes: Sendable {
        var added: [String: [Category: Int]] = [:]
        var addedPosts: [Category: Int] = [:]
        var takenFromNormal: [String: Int] = [:]
        var postsTakenFromNormal = 0
        var posts = 0

        mutating func add(_ features: [String], to category: Category) {
            for feature in features { added[feature, default: [:]][category, default: 0] += 1 }
            addedPosts[category, default: 0] += 1
            posts += 1
        }

        /// The original's rule: counted as favorite, and taken out of normal where it was counted, never below zero.
        mutating func moveToFavorite(_ features: [String]) {
            add(features, to: .favorite)
            for feature in features { takenFromNormal[feature, default: 0] += 1 }
            postsTakenFromNormal += 1
        }

        func apply(in db: Database) throws {
            let addFeature = try db.cachedStatement(
                sql: """
                    INSERT INTO word_counts (feature, category, count) VALUES (?, ?, ?)
                    ON CONFLICT (feature, category) DO UPDATE SET count = count + excluded.count
                    """)
            for (feature, categories) in added {
                for (category, count) in categories { try addFeature.execute(arguments: [feature, category.rawValue, count]) }
            }
            let addPosts = try db.cachedStatement(
                sql: """
                    INSERT INTO category_counts (category, count) VALUES (?, ?) ON CONFLICT (category) DO UPDATE SET count = count + excluded.count
                    """)
            for (category, count) in addedPosts { try addPosts.execute(arguments: [category.rawValue, count]) }
            let takeFeature = try db.cachedStatement(
                sql: "UPDATE word_counts SET count = max(0, count - ?) WHERE feature = ? AND category = 'normal'")
            for (feature, count) in takenFromNormal { try takeFeature.execute(arguments: [count, feature]) }
            if postsTakenFromNormal > 0 {
                try db.execute(
                    sql: "UPDATE category_counts SET count = max(0, count - ?) WHERE category = 'normal'", arguments: [postsTakenFromNormal])
            }
        }
    }

    /// Records `id` as learned in `category` in `week`; false when it was already.
    private static func remember(_ id: String, as category: Category, week: Int, in db: Database) throws -> Bool {
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO learned_tweets (category, tweet_id, week) VALUES (?, ?, ?)")
            .execute(arguments: [category.rawValue, id, week])
        return db.changesCount > 0
    }

    /// Lets go of the `normal` markers of weeks before the last `LearnedMarkers.normalWeeks`; how many.
    @discardableResult
    public func forgetOldNormalMarkers() async throws -> Int {
        let oldest = LearnedMarkers.week(of: now()) - LearnedMarkers.normalWeeks + 1
        return try await write { db in
            try db.execute(sql: "DELETE FROM learned_tweets WHERE category = 'normal' AND (week IS NULL OR week < ?)", arguments: [oldest])
            return db.changesCount
        }
    }

    private static func distinct(_ features: [String]) -> [String] {
        var seen = Set<String>()
        return features.filter { seen.insert($0).inserted }
    }

    // MARK: The file, in the word counts' own terms

    /// Reads in one transaction; a file that cannot be read (locked, damaged) is a `WordCountsUnavailable`.
    private func read<Result: Sendable>(_ body: @escaping @Sendable (Database) throws -> Result) async throws -> Result {
        do { return try await pool.read(body) } catch let error as DatabaseError {
            throw WordCountsUnavailable(store: "the SQLite file \(path)", reason: error.description)
        }
    }

    /// Writes in one transaction; a file that cannot be written (locked by another process, full) is a
    /// `WordCountsUnavailable`.
    private func write<Result: Sendable>(_ body: @escaping @Sendable (Database) throws -> Result) async throws -> Result {
        do { return try await pool.write(body) } catch let error as DatabaseError {
            throw WordCountsUnavailable(store: "the SQLite file \(path)", reason: error.description)
        }
    }
}
