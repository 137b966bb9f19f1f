/// A Redis connection URL: `redis://[user][:password]@host:port[/db]`, or `rediss://` for TLS (Heroku Data for Redis).
public struct RedisURL: Sendable, Equatable {
    /// Host name or address.
    public var host: String
    /// TCP port, 6379 unless given.
    public var port: Int
    /// ACL user name for `AUTH`, if given.
    public var username: String?
    /// Password for `AUTH`, if given.
    public var password: String?
    /// Logical database selected after connecting.
    public var database: Int
    /// Whether the connection uses TLS (`rediss://`).
    public var usesTLS: Bool

    /// A URL from its parts.
    public init(host: String, port: Int = 6379, username: String? = nil, password: String? = nil, database: Int = 0, usesTLS: Bool = false) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.usesTLS = usesTLS
    }

    /// Parses `redis://` and `rediss://` URLs; nil when the text is not one.
    public init?(_ text: String) {
        guard let parts = URLParts(text), ["redis", "rediss"].contains(parts.scheme) else { return nil }
        var database = 0
        if let path = parts.path, !path.isEmpty {
            guard let number = Int(path), number >= 0 else { return nil }
            database = number
        }
        self.init(
            host: parts.host, port: parts.port ?? 6379,
            username: parts.user.flatMap { $0.isEmpty ? nil : $0 },
            password: parts.password.flatMap { $0.isEmpty ? nil : $0 },
            database: database, usesTLS: parts.scheme == "rediss")
    }

    /// The URL with the password replaced by `***`, safe to log.
    public var redacted: String {
        let credentials = password == nil ? (username.map { "\($0)@" } ?? "") : "\(username ?? ""):***@"
        return "\(usesTLS ? "rediss" : "redis")://\(credentials)\(host):\(port)/\(database)"
    }
}
