public import Foundation
import InMemoryStores
import RedisClient
import RedisWordCounts
import SQLiteStores
public import Stores
public import Testing
public import WordCounts

/// Where a test keeps the stores and the word counts: every combination the bot supports (Postgres or the SQLite
/// file for the stores, Redis or the SQLite file for the counts), and memory for both (the stores the virtual-clock
/// days run on, held to the same behaviour). Suites that test stored behaviour take these as arguments, so one suite
/// runs against every backend.
public struct StoreBackends: Sendable, CustomTestStringConvertible {
    /// Where the stores live.
    public enum ArchiveKind: String, Sendable, CaseIterable { case postgres, sqlite, memory }
    /// Where the word counts live.
    public enum CountsKind: String, Sendable, CaseIterable { case redis, sqlite, memory }

    /// The stores' backend.
    public var archive: ArchiveKind
    /// The word counts' backend.
    public var counts: CountsKind

    /// A combination from its parts.
    public init(archive: ArchiveKind, counts: CountsKind) {
        self.archive = archive
        self.counts = counts
    }

    /// The four combinations of databases the bot runs on, and memory for both.
    public static let all: [StoreBackends] =
        [ArchiveKind.postgres, .sqlite].flatMap { archive in
            [CountsKind.redis, .sqlite].map { StoreBackends(archive: archive, counts: $0) }
        } + [StoreBackends(archive: .memory, counts: .memory)]

    /// The stores' backends (for tests that use no word counts).
    public static let archives: [ArchiveKind] = ArchiveKind.allCases

    /// The databases only (for tests of what only a database does: migrations, files, connections).
    public static let databases: [ArchiveKind] = [.postgres, .sqlite]

    /// "postgres+redis", "sqlite+sqlite", ...
    public var testDescription: String { "\(archive.rawValue)+\(counts.rawValue)" }
}

extension StoreBackends.ArchiveKind: CustomTestStringConvertible {
    /// "postgres", "sqlite" or "memory".
    public var testDescription: String { rawValue }
}

extension TestServers {
    /// Runs `body` with empty, migrated stores of `kind` (a schema of its own on the test Postgres, a new SQLite file in
    /// a temporary folder, or memory), removed afterwards.
    public static func withIsolatedDatabase<Result: Sendable>(
        _ kind: StoreBackends.ArchiveKind, migrated: Bool = true, settings: StoreSettings = StoreSettings(),
        isolation: isolated (any Actor)? = #isolation,
        _ body: (any StoreSet) async throws -> Result
    ) async throws -> Result {
        switch kind {
        case .postgres:
            return try await withIsolatedDatabase(migrated: migrated, settings: settings) { try await body($0) }
        case .sqlite:
            return try await withTemporaryFolder { folder in
                let database = try SQLiteStoreSet(path: folder.appending(path: "mirror_bot.sqlite").path, settings: settings, logger: logger)
                if migrated { try await database.migrations.migrate() }
                return try await body(database)
            }
        case .memory:
            return try await body(InMemoryStoreSet(settings: settings))
        }
    }

    /// Runs `body` with empty stores and empty word counts of `backends`, removed afterwards. When both are SQLite
    /// they share one file, as in a bot run without servers.
    public static func withStores<Result: Sendable>(
        _ backends: StoreBackends, settings: StoreSettings = StoreSettings(),
        isolation: isolated (any Actor)? = #isolation,
        _ body: (any StoreSet, any WordCountBackend) async throws -> Result
    ) async throws -> Result {
        try await withIsolatedDatabase(backends.archive, settings: settings) { database in
            switch backends.counts {
            case .redis:
                let store = RedisWordCounts(connection: try redisConnection(), keyPrefix: uniqueName("stores") + ":")
                do {
                    let result = try await body(database, store)
                    try await store.removeAll()
                    return result
                } catch {
                    _ = try? await store.removeAll()
                    throw error
                }
            case .sqlite:
                if backends.archive == .sqlite, let shared = try database.sharedWordCounts(now: { Date() }) {
                    return try await body(database, shared)
                }
                return try await withTemporaryFolder { folder in
                    try await body(database, try SQLiteWordCounts(path: folder.appending(path: "counts.sqlite").path))
                }
            case .memory:
                return try await body(database, InMemoryWordCounts())
            }
        }
    }
    /// Runs `body` with a new empty folder under the temporary directory, deleted afterwards.
    public static func withTemporaryFolder<Result: Sendable>(
        isolation: isolated (any Actor)? = #isolation, _ body: (URL) async throws -> Result
    ) async throws -> Result {
        let folder = FileManager.default.temporaryDirectory.appending(path: uniqueName("mirror_bot"))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try await body(folder)
    }
}
