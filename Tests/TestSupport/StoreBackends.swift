public import Archive
public import Foundation
import RedisClient
public import Testing
public import WordCounts
import RedisWordCounts
import SQLiteWordCounts

/// Where a test keeps the archive and the word counts: every combination the bot supports (Postgres or the SQLite
/// file for the archive, Redis or the SQLite file for the counts). Suites that test stored behaviour take these as
/// arguments, so one suite runs against every backend.
public struct StoreBackends: Sendable, CustomTestStringConvertible {
    /// Where the archive lives.
    public enum ArchiveKind: String, Sendable, CaseIterable { case postgres, sqlite }
    /// Where the word counts live.
    public enum CountsKind: String, Sendable, CaseIterable { case redis, sqlite }

    /// The archive's backend.
    public var archive: ArchiveKind
    /// The word counts' backend.
    public var counts: CountsKind

    /// A combination from its parts.
    public init(archive: ArchiveKind, counts: CountsKind) { self.archive = archive; self.counts = counts }

    /// All four combinations.
    public static let all: [StoreBackends] = ArchiveKind.allCases.flatMap { archive in
        CountsKind.allCases.map { StoreBackends(archive: archive, counts: $0) }
    }

    /// The two archive backends (for tests that use no word counts).
    public static let archives: [ArchiveKind] = ArchiveKind.allCases

    /// "postgres+redis", "sqlite+sqlite", ...
    public var testDescription: String { "\(archive.rawValue)+\(counts.rawValue)" }
}

extension StoreBackends.ArchiveKind: CustomTestStringConvertible {
    /// "postgres" or "sqlite".
    public var testDescription: String { rawValue }
}

extension TestServers {
    /// Runs `body` with an empty, migrated archive of `kind` (a schema of its own on the test Postgres, or a new
    /// SQLite file in a temporary folder), removed afterwards.
    public static func withIsolatedDatabase<Result: Sendable>(
        _ kind: StoreBackends.ArchiveKind, migrated: Bool = true,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (ArchiveDatabase) async throws -> Result
    ) async throws -> Result {
        switch kind {
        case .postgres:
            return try await withIsolatedDatabase(migrated: migrated, body)
        case .sqlite:
            return try await withTemporaryFolder { folder in
                let database = try ArchiveDatabase(sqliteFile: folder.appending(path: "mirror_bot.sqlite").path, logger: logger)
                if migrated { try await Migrator().migrate(database) }
                return try await body(database)
            }
        }
    }

    /// Runs `body` with an empty archive and empty word counts of `backends`, removed afterwards. When both are
    /// SQLite they share one file, as in a bot run without servers.
    public static func withStores<Result: Sendable>(
        _ backends: StoreBackends,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (ArchiveDatabase, any WordCountBackend) async throws -> Result
    ) async throws -> Result {
        try await withIsolatedDatabase(backends.archive) { database in
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
                if case .sqlite(_, let path) = database.backend { return try await body(database, try SQLiteWordCounts(path: path)) }
                return try await withTemporaryFolder { folder in
                    try await body(database, try SQLiteWordCounts(path: folder.appending(path: "counts.sqlite").path))
                }
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
