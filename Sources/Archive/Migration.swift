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
              let version = Int(fileName[..<underscore]) else { return nil }
        self.init(version: version, name: String(fileName[fileName.index(after: underscore)...].dropLast(4)), sql: sql)
    }

    /// The migrations shipped in this binary (the package's `Migrations/` folder at build time), in order.
    public static let bundled: [Migration] = embeddedMigrationFiles
        .compactMap { Migration(fileName: $0.fileName, sql: $0.sql) }
        .sorted { $0.version < $1.version }

    /// The SQLite migrations shipped in this binary (the package's `Migrations/sqlite/` folder), in order.
    public static let bundledSQLite: [Migration] = embeddedSQLiteMigrationFiles
        .compactMap { Migration(fileName: $0.fileName, sql: $0.sql) }
        .sorted { $0.version < $1.version }

    /// The file's statements, in order.
    var statements: [String] { SQLStatements.split(sql) }
}
