import BotCore

/// A Postgres connection URL in Heroku's form: `postgres://user:password@host:port/database?sslmode=require`.
public struct DatabaseURL: Sendable, Equatable {
    /// How the connection uses TLS, after libpq's `sslmode`.
    public enum TLSMode: String, Sendable, Equatable, CaseIterable {
        /// Never TLS.
        case disable
        /// TLS if the server offers it, plain otherwise; the certificate is not verified. The default for a server on
        /// this machine (loopback) only: plain text there crosses no network.
        case prefer
        /// TLS or fail; the certificate is not verified (Heroku's servers use certificates no public CA signed).
        /// The default for any other host, so that a downgrade to plain text cannot happen unnoticed.
        case require
        /// TLS with a certificate chain verified against `sslrootcert` (else the system's CAs), any host name.
        case verifyCA = "verify-ca"
        /// TLS with a certificate verified against `sslrootcert` (else the system's CAs) and the host name.
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
    /// TLS use, from `sslmode` (libpq's `allow` counts as `prefer`); without it, `require` unless the host is this
    /// machine.
    public var tlsMode: TLSMode
    /// The CA certificate file (PEM) that verifies the server's certificate (`sslrootcert`), instead of the
    /// system's CAs.
    public var rootCertificatePath: String?
    /// How long a connection may take to be made and answered, in seconds (libpq's `connect_timeout`, 1 to 3600;
    /// default 10).
    public var connectTimeout = 10

    /// A URL from its parts.
    public init(
        host: String, port: Int = 5432, username: String, password: String?, database: String, tlsMode: TLSMode,
        rootCertificatePath: String? = nil
    ) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.tlsMode = tlsMode
        self.rootCertificatePath = rootCertificatePath
    }

    /// Whether `host` is this machine (a loopback name or address), where plain text crosses no network.
    public static func isLoopback(_ host: String) -> Bool {
        LoopbackHost.contains(host) || host.hasPrefix("/")  // or a Unix socket's folder
    }

    /// Parses `postgres://` or `postgresql://` URLs; nil when the text is not one.
    public init?(_ text: String) {
        guard let parts = URLParts(text), ["postgres", "postgresql"].contains(parts.scheme),
            let user = parts.user, !user.isEmpty,
            let database = parts.path, !database.isEmpty, !database.contains("/")
        else { return nil }
        let mode: TLSMode
        switch parts.query["sslmode"] {
        case nil: mode = Self.isLoopback(parts.host) ? .prefer : .require
        case "disable": mode = .disable
        case "allow", "prefer": mode = .prefer
        case "require": mode = .require
        case "verify-ca": mode = .verifyCA
        case "verify-full": mode = .verifyFull
        default: return nil
        }
        let rootCertificate = parts.query["sslrootcert"].flatMap { $0.isEmpty ? nil : $0 }
        self.init(
            host: parts.host, port: parts.port ?? 5432, username: user, password: parts.password,
            database: database, tlsMode: mode, rootCertificatePath: rootCertificate)
        if let text = parts.query["connect_timeout"] {
            guard let seconds = Int(text), (1...3_600).contains(seconds) else { return nil }
            connectTimeout = seconds
        }
    }

    /// The URL with the password replaced by `***`, safe to log.
    public var redacted: String {
        "postgres://\(username)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)?sslmode=\(tlsMode.rawValue)"
            + (rootCertificatePath.map { "&sslrootcert=\($0)" } ?? "")
    }
}
