import PostgresNIO
public import Stores

extension ArchiveError {
    /// An error for a failure of postgres-nio or the server while doing `operation`, in words a user can act on.
    public static func postgres(_ operation: String, _ error: any Error) -> ArchiveError {
        ArchiveError(operation: operation, reason: describe(error))
    }

    /// A readable account of a postgres-nio error: PSQLError hides its details from `description` on purpose.
    public static func describe(_ error: any Error) -> String {
        if let archiveError = error as? ArchiveError { return archiveError.reason }
        if let transactionError = error as? PostgresTransactionError {
            // What failed inside the transaction matters, not the wrapper.
            return describe(
                transactionError.closureError ?? transactionError.beginError ?? transactionError.commitError
                    ?? transactionError.rollbackError ?? CancellationError())
        }
        guard let psqlError = error as? PSQLError else { return tlsAdvice(String(describing: error)) ?? String(describing: error) }
        if let info = psqlError.serverInfo, let message = info[.message] {
            let state = info[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            let detail = info[.detail].map { "; \($0)" } ?? ""
            // pg_hba.conf with hostssl only refuses a plain connection: say how to get through.
            if message.contains("pg_hba.conf"), message.contains("no encryption") || message.contains("SSL off") {
                return
                    "the server accepts only TLS connections (it said: \(message)); remove sslmode=disable from DATABASE_URL or set sslmode=require"
            }
            return "the server said: \(message)\(detail)\(state)"
        }
        if let underlying = psqlError.underlying {
            return tlsAdvice(String(describing: underlying)).map { "\(psqlError.code): \($0)" } ?? "\(psqlError.code): \(underlying)"
        }
        return "\(psqlError.code)"
    }

    /// What to do about a TLS failure, named by OpenSSL's words in `text`; nil for other failures.
    static func tlsAdvice(_ text: String) -> String? {
        if text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("certificate verify failed") {
            return
                "the server's TLS certificate could not be verified (\(text)): with sslmode=verify-full or verify-ca, set sslrootcert to the CA certificate that signed it, or use sslmode=require to encrypt without verifying"
        }
        if text.contains("hostname") && text.contains("mismatch") || text.contains("unableToValidateCertificate") {
            return
                "the server's TLS certificate is not for this host name (\(text)): connect by a name the certificate names, or use sslmode=verify-ca"
        }
        if text.contains("sslUnsupported") || text.contains("does not support TLS") {
            return "the server does not offer TLS (\(text)): enable ssl on the server, or, for a server on this machine, remove sslmode"
        }
        return nil
    }
}
