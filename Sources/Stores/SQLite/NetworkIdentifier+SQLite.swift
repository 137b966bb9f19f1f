public import BotCore
public import GRDB

/// Post and account ids are bound and read as SQLite `TEXT` (migration 0011 made every id column `TEXT`). A number
/// (a column a file has not migrated) is read as its decimal text.
extension NetworkIdentifier: SQLExpressible, StatementBinding, DatabaseValueConvertible {
    /// The id as `TEXT`.
    public var databaseValue: DatabaseValue { text.databaseValue }

    /// The id in a `TEXT` value, or an `INTEGER` one as its decimal text; nil for anything else.
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Self? {
        switch value.storage {
        case .string(let text): Self(text)
        case .int64(let number): Self(number)
        default: nil
        }
    }
}
