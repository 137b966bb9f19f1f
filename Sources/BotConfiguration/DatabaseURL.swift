/// A Postgres connection URL in Heroku's form: `postgres://user:password@host:port/database?sslmode=require`.
public struct DatabaseURL: Sendable, Equatable {
    /// How the connection uses TLS, after libpq's `sslmode`.
    public enum TLSMode: String, Sendable, Equatable, CaseIterable {
        /// Never TLS.
        case disable
        /// TLS if the server offers it, plain otherwise; the certificate is not verified (libpq's default).
        case prefer
        /// TLS or fail; the certificate is not verified (Heroku's servers use certificates no public CA signed).
        case require
        /// TLS with a certificate verified against the system's CAs and the host name.
        case verifyFull = "verify-full"
    }

    /// Host name or address.
    public var host: String
    /// TCP port, 5432 unless given.
    public var port: Int
    /// Role to log in as.
    public var username: String
    /// Password, if any.
    public var password: String?
    /// Database name.
    public var database: String
    /// TLS use, from `sslmode` (libpq's `allow` counts as `prefer`, `verify-ca` as `verify-full`).
    public var tlsMode: TLSMode

    /// A URL from its parts.
    public init(host: String, port: Int = 5432, username: String, password: String?, database: String, tlsMode: TLSMode) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.tlsMode = tlsMode
    }

    /// Parses `postgres://` or `postgresql://` URLs; nil when the text is not one.
    public init?(_ text: String) {
        guard let parts = URLParts(text), ["postgres", "postgresql"].contains(parts.scheme),
              let user = parts.user, !user.isEmpty,
              let database = parts.path, !database.isEmpty, !database.contains("/")
        else { return nil }
        let mode: TLSMode
        switch parts.query["sslmode"] {
        case nil: mode = .prefer
        case "disable": mode = .disable
        case "allow", "prefer": mode = .prefer
        case "require": mode = .require
        case "verify-ca", "verify-full": mode = .verifyFull
        default: return nil
        }
        self.init(host: parts.host, port: parts.port ?? 5432, username: user, password: parts.password,
                  database: database, tlsMode: mode)
    }

    /// The URL with the password replaced by `***`, safe to log.
    public var redacted: String {
        "postgres://\(username)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)?sslmode=\(tlsMode.rawValue)"
    }
}
