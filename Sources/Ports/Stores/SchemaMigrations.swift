/// The schema of a database, brought up to date by plain SQL files applied in order (`Migrations/` for Postgres,
/// `Migrations/sqlite/` for the SQLite file), each recorded in `schema_migrations` so that running it again does nothing.
public protocol SchemaMigrations: Sendable {
    /// Every migration of this database's engine, in order.
    var all: [Migration] { get }
    /// The versions recorded as applied, in order.
    func appliedVersions() async throws -> [Int]
    /// Applies the migrations not yet recorded; returns those it applied.
    @discardableResult func migrate() async throws -> [Migration]
}

extension SchemaMigrations {
    /// The migrations not applied yet.
    public func pending() async throws -> [Migration] {
        let applied = Set(try await appliedVersions())
        return all.filter { !applied.contains($0.version) }
    }
}

/// One plain SQL file of `Migrations/` (Postgres) or `Migrations/sqlite/` (SQLite), named `NNNN_name.sql`.
public struct Migration: Sendable, Equatable {
    /// The file's number, its order among migrations.
    public var version: Int
    /// The rest of the file name, without `.sql`.
    public var name: String
    /// The file's text.
    public var sql: String

    /// A migration from its parts.
    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// A migration from a file name such as `0002_archive_constraints.sql`; nil when the name has no number.
    public init?(fileName: String, sql: String) {
        guard fileName.hasSuffix(".sql"), let underscore = fileName.firstIndex(of: "_"),
            let version = Int(fileName[..<underscore])
        else { return nil }
        self.init(version: version, name: String(fileName[fileName.index(after: underscore)...].dropLast(4)), sql: sql)
    }

    /// Migrations from embedded files, in order of their numbers.
    public static func ordered(_ files: [(fileName: String, sql: String)]) -> [Migration] {
        files.compactMap { Migration(fileName: $0.fileName, sql: $0.sql) }.sorted { $0.version < $1.version }
    }
}
