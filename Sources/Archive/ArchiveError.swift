import PostgresNIO

/// A failure of the archive's database, described as a sentence a user can act on.
public struct ArchiveError: Error, CustomStringConvertible {
    /// What the archive was doing, such as "inserting 200 tweets".
    public var operation: String
    /// What went wrong, without secrets.
    public var reason: String

    /// An error from its parts.
    public init(operation: String, reason: String) {
        self.operation = operation
        self.reason = reason
    }

    /// An error for a failure of postgres-nio or the server while doing `operation`.
    public init(operation: String, underlying error: any Error) {
        self.init(operation: operation, reason: Self.describe(error))
    }

    /// "Database error while OPERATION: REASON".
    public var description: String { "Database error while \(operation): \(reason)" }

    /// A readable account of a postgres-nio error: PSQLError hides its details from `description` on purpose.
    public static func describe(_ error: any Error) -> String {
        if let archiveError = error as? ArchiveError { return archiveError.reason }
        if let transactionError = error as? PostgresTransactionError {
            // What failed inside the transaction matters, not the wrapper.
            return describe(transactionError.closureError ?? transactionError.beginError ?? transactionError.commitError
                            ?? transactionError.rollbackError ?? CancellationError())
        }
        guard let psqlError = error as? PSQLError else { return String(describing: error) }
        if let info = psqlError.serverInfo, let message = info[.message] {
            let state = info[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            let detail = info[.detail].map { "; \($0)" } ?? ""
            return "the server said: \(message)\(detail)\(state)"
        }
        if let underlying = psqlError.underlying { return "\(psqlError.code): \(underlying)" }
        return "\(psqlError.code)"
    }
}
