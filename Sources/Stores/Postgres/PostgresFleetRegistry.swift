public import Foundation
import NIOCore
import NIOFoundationCompat
import PostgresNIO
public import Stores

/// The fleet's bots and leases in Postgres (`fleet_bots`, `fleet_leases`, `fleet_processes`, in the fleet's own schema;
/// each bot's stores in `bot_<id>`). Claims take free or expired leases with `FOR UPDATE SKIP LOCKED`, so processes
/// claiming at once never take the same bot; every new hold raises the bot's fencing number.
public struct PostgresFleetRegistry: FleetRegistry {
    /// The fleet's schema's view of the pool (its statements set their `search_path`, the pool serving every bot).
    let database: PostgresStoreSet

    /// The registry on `database`: a view of the fleet's pool routed to the fleet's schema
    /// (`PostgresStoreSet(sharing: pool, schema: pool.schema ?? "public")`), since the pool's connections serve every bot.
    public init(database: PostgresStoreSet) {
        self.database = database
    }

    /// Creates the fleet's tables when they are not there (once per database, whoever comes first).
    public func prepare() async throws {
        try await database.transaction("preparing the fleet's tables") { connection in
            _ = try await connection.query("SELECT pg_advisory_xact_lock(727274)", logger: database.logger)
            for statement in [
                """
                CREATE TABLE IF NOT EXISTS fleet_bots (id bigserial PRIMARY KEY, name text NOT NULL UNIQUE, network text NOT NULL,
                    settings bytea NOT NULL, pause_reason text, created_at timestamptz NOT NULL DEFAULT now())
                """,
                """
                CREATE TABLE IF NOT EXISTS fleet_leases (bot_id bigint PRIMARY KEY REFERENCES fleet_bots (id) ON DELETE CASCADE,
                    owner text, expires_at timestamptz NOT NULL DEFAULT '-infinity', fence bigint NOT NULL DEFAULT 0)
                """,
                "CREATE TABLE IF NOT EXISTS fleet_processes (id text PRIMARY KEY, heartbeat_at timestamptz NOT NULL)",
                """
                CREATE TABLE IF NOT EXISTS fleet_audit (id bigserial PRIMARY KEY, at timestamptz NOT NULL DEFAULT now(), actor text NOT NULL,
                    action text NOT NULL, bot text, detail text)
                """,
                """
                CREATE TABLE IF NOT EXISTS fleet_invitations (id bigserial PRIMARY KEY, code_digest bytea NOT NULL UNIQUE, note text NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now(), expires_at timestamptz NOT NULL, used_at timestamptz, used_for text)
                """,
            ] {
                _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: database.logger)
            }
        }
    }

    public func add(name: String, network: String, sealedSettings: Data, pausedBecause: String?) async throws -> FleetBot {
        guard FleetBot.isValidName(name) else { throw FleetError.badName(name) }
        let bytes = ByteBuffer(bytes: sealedSettings)
        do {
            let id = try await database.transaction("adding the bot \(name)") { connection in
                var id: Int64 = 0
                let rows = try await connection.query(
                    "INSERT INTO fleet_bots (name, network, settings, pause_reason) VALUES (\(name), \(network), \(bytes), \(pausedBecause)) RETURNING id",
                    logger: database.logger)
                for try await value in rows.decode(Int64.self) { id = value }
                _ = try await connection.query("INSERT INTO fleet_leases (bot_id) VALUES (\(id))", logger: database.logger)
                _ = try await connection.query("CREATE SCHEMA \(unescaped: FleetBot.schema(of: id))", logger: database.logger)
                return id
            }
            return FleetBot(id: id, name: name, network: network, sealedSettings: sealedSettings, pauseReason: pausedBecause)
        } catch let error as ArchiveError where "\(error)".contains("fleet_bots_name_key") {
            throw FleetError.nameTaken(name)
        }
    }

    public func adopt(name: String, network: String, sealedSettings: Data, storesIn schema: String) async throws -> (bot: FleetBot, tables: Int) {
        guard FleetBot.isValidName(name) else { throw FleetError.badName(name) }
        let bytes = ByteBuffer(bytes: sealedSettings)
        let from = Self.quoted(schema)
        let logger = database.logger
        do {
            let (id, tables) = try await database.transaction("adopting the bot in the schema \(schema) as \(name)") { connection in
                var tables: [String] = []
                let rows = try await connection.query(
                    """
                    SELECT tablename::text FROM pg_tables WHERE schemaname = \(schema)
                    AND tablename NOT IN (\(unescaped: Self.fleetTables)) ORDER BY tablename
                    """, logger: logger)
                for try await table in rows.decode(String.self) { tables.append(table) }
                guard tables.contains("schema_migrations") else { throw FleetError.nothingToAdopt(schema: schema) }
                var id: Int64 = 0
                let inserted = try await connection.query(
                    "INSERT INTO fleet_bots (name, network, settings) VALUES (\(name), \(network), \(bytes)) RETURNING id",
                    logger: logger)
                for try await value in inserted.decode(Int64.self) { id = value }
                _ = try await connection.query("INSERT INTO fleet_leases (bot_id) VALUES (\(id))", logger: logger)
                let to = Self.quoted(FleetBot.schema(of: id))
                _ = try await connection.query("CREATE SCHEMA \(unescaped: to)", logger: logger)
                // Each table with its indexes, constraints and the sequences its columns own: moved, not copied.
                for table in tables {
                    _ = try await connection.query(
                        "ALTER TABLE \(unescaped: from).\(unescaped: Self.quoted(table)) SET SCHEMA \(unescaped: to)", logger: logger)
                }
                _ = try await connection.query(
                    """
                    CREATE TABLE \(unescaped: from).adopted_into_fleet (name text NOT NULL, bot_id bigint NOT NULL, adopted_at timestamptz NOT NULL DEFAULT now())
                    """, logger: logger)
                _ = try await connection.query(
                    "INSERT INTO \(unescaped: from).adopted_into_fleet (name, bot_id) VALUES (\(name), \(id))", logger: logger)
                return (id, tables.count)
            }
            return (FleetBot(id: id, name: name, network: network, sealedSettings: sealedSettings), tables)
        } catch let error as ArchiveError where "\(error)".contains("fleet_bots_name_key") {
            throw FleetError.nameTaken(name)
        }
    }

    /// The fleet's own tables, which a schema's adoption leaves where they are, as a list of SQL strings.
    static let fleetTables = ["fleet_bots", "fleet_leases", "fleet_processes", "fleet_audit", "fleet_invitations", "adopted_into_fleet"]
        .map { "'\($0)'" }.joined(separator: ", ")

    /// A name as a Postgres identifier, quoted.
    static func quoted(_ identifier: String) -> String { "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    public func bots() async throws -> [FleetBot] {
        try await database.rows(
            "reading the fleet's bots",
            """
            SELECT b.id, b.name, b.network, b.settings, b.pause_reason,
                   CASE WHEN l.expires_at > now() THEN l.owner END, CASE WHEN l.expires_at > now() THEN l.expires_at END, l.fence, b.created_at
            FROM fleet_bots b JOIN fleet_leases l ON l.bot_id = b.id ORDER BY b.name
            """, as: (Int64, String, String, ByteBuffer, String?, String?, Date?, Int64, Date).self
        ).map { (row: (Int64, String, String, ByteBuffer, String?, String?, Date?, Int64, Date)) in
            FleetBot(
                id: row.0, name: row.1, network: row.2, sealedSettings: Data(buffer: row.3), pauseReason: row.4, holder: row.5, leaseExpiresAt: row.6,
                fence: row.7, createdAt: row.8)
        }
    }

    public func bot(named name: String) async throws -> FleetBot? { try await bots().first { $0.name == name } }

    @discardableResult
    public func setPaused(_ name: String, reason: String?) async throws -> Bool {
        !(try await database.rows(
            "pausing or resuming \(name)", "UPDATE fleet_bots SET pause_reason = \(reason) WHERE name = \(name) RETURNING 1",
            as: Int.self)).isEmpty
    }

    public func setPaused(_ name: String, reason: String?, ifStill current: String?) async throws -> Bool {
        !(try await database.rows(
            "pausing or resuming \(name)",
            "UPDATE fleet_bots SET pause_reason = \(reason) WHERE name = \(name) AND pause_reason IS NOT DISTINCT FROM \(current) RETURNING 1",
            as: Int.self)).isEmpty
    }

    @discardableResult
    public func replaceSettings(of name: String, with sealedSettings: Data) async throws -> Bool {
        // Every bot has its lease row (made with it): a row comes back exactly when the bot is there.
        !(try await database.rows(
            "changing the settings of \(name)",
            """
            WITH changed AS (UPDATE fleet_bots SET settings = \(ByteBuffer(bytes: sealedSettings)) WHERE name = \(name) RETURNING id)
            UPDATE fleet_leases l SET owner = NULL, expires_at = '-infinity' FROM changed WHERE l.bot_id = changed.id
            RETURNING 1
            """, as: Int.self)).isEmpty
    }

    @discardableResult
    public func remove(_ name: String) async throws -> Bool {
        try await database.transaction("removing the bot \(name)") { connection in
            var id: Int64?
            for try await value in try await connection.query("DELETE FROM fleet_bots WHERE name = \(name) RETURNING id", logger: database.logger)
                .decode(Int64.self)
            { id = value }
            guard let id else { return false }
            _ = try await connection.query("DROP SCHEMA IF EXISTS \(unescaped: FleetBot.schema(of: id)) CASCADE", logger: database.logger)
            return true
        }
    }

    public func heartbeat(_ process: String, liveness: TimeInterval) async throws -> Int {
        let seconds = Int(liveness.rounded(.up))
        return try await database.transaction("saying the process is alive") { connection in
            _ = try await connection.query(
                """
                INSERT INTO fleet_processes (id, heartbeat_at) VALUES (\(process), now())
                ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()
                """, logger: database.logger)
            _ = try await connection.query(
                "DELETE FROM fleet_processes WHERE heartbeat_at < now() - make_interval(secs => \(seconds * 10))",
                logger: database.logger)
            var live = 1
            for try await count in try await connection.query(
                "SELECT count(*) FROM fleet_processes WHERE heartbeat_at >= now() - make_interval(secs => \(seconds))", logger: database.logger
            )
            .decode(Int64.self) { live = Int(count) }
            return max(1, live)
        }
    }

    public func claim(for process: String, limit: Int, expiresIn: TimeInterval) async throws -> [FleetClaim] {
        guard limit > 0 else { return [] }
        let milliseconds = Int(expiresIn * 1000)
        return try await database.rows(
            "claiming bots",
            """
            UPDATE fleet_leases l SET owner = \(process), expires_at = now() + make_interval(secs => \(milliseconds) / 1000.0), fence = l.fence + 1
            WHERE l.bot_id IN (
                SELECT f.bot_id FROM fleet_leases f JOIN fleet_bots b ON b.id = f.bot_id
                WHERE b.pause_reason IS NULL AND (f.owner IS NULL OR f.expires_at <= now())
                ORDER BY f.bot_id LIMIT \(limit) FOR UPDATE OF f SKIP LOCKED)
            RETURNING l.bot_id, l.fence
            """, as: (Int64, Int64).self
        ).map { FleetClaim(botID: $0.0, fence: $0.1) }
    }

    public func renew(_ claims: [FleetClaim], for process: String, expiresIn: TimeInterval) async throws -> [FleetClaim] {
        guard !claims.isEmpty else { return [] }
        let milliseconds = Int(expiresIn * 1000)
        return try await database.rows(
            "renewing the bots' leases",
            """
            UPDATE fleet_leases l SET expires_at = now() + make_interval(secs => \(milliseconds) / 1000.0)
            FROM fleet_bots b, unnest(\(claims.map(\.botID))::bigint[], \(claims.map(\.fence))::bigint[]) AS c(bot_id, fence)
            WHERE l.bot_id = c.bot_id AND l.fence = c.fence AND l.owner = \(process) AND l.expires_at > now()
              AND b.id = l.bot_id AND b.pause_reason IS NULL
            RETURNING l.bot_id, l.fence
            """, as: (Int64, Int64).self
        ).map { FleetClaim(botID: $0.0, fence: $0.1) }
    }

    public func release(for process: String) async throws {
        _ = try await database.rows(
            "letting the process's bots go",
            """
            UPDATE fleet_leases SET owner = NULL, expires_at = '-infinity' WHERE owner = \(process) RETURNING 1
            """, as: Int.self)
        _ = try await database.rows("saying the process is gone", "DELETE FROM fleet_processes WHERE id = \(process) RETURNING 1", as: Int.self)
    }

    public func release(_ claims: [FleetClaim], for process: String) async throws {
        guard !claims.isEmpty else { return }
        _ = try await database.rows(
            "letting bots go",
            """
            UPDATE fleet_leases l SET owner = NULL, expires_at = '-infinity'
            FROM unnest(\(claims.map(\.botID))::bigint[], \(claims.map(\.fence))::bigint[]) AS c(bot_id, fence)
            WHERE l.bot_id = c.bot_id AND l.fence = c.fence AND l.owner = \(process) RETURNING 1
            """, as: Int.self)
    }

    public func holds(_ claim: FleetClaim, for process: String) async throws -> Bool {
        !(try await database.rows(
            "checking the lease of bot \(claim.botID)",
            """
            SELECT 1 FROM fleet_leases WHERE bot_id = \(claim.botID) AND fence = \(claim.fence) AND owner = \(process) AND expires_at > now()
            """, as: Int.self)).isEmpty
    }

    public func processes(liveness: TimeInterval) async throws -> [FleetProcess] {
        try await database.rows(
            "reading the fleet's processes",
            """
            SELECT id, heartbeat_at FROM fleet_processes
            WHERE heartbeat_at >= now() - make_interval(secs => \(Int(liveness.rounded(.up)))) ORDER BY heartbeat_at DESC, id
            """, as: (String, Date).self
        ).map { FleetProcess(id: $0.0, heardAt: $0.1) }
    }

    public func audit(_ entry: FleetAuditEntry) async throws {
        _ = try await database.rows(
            "recording what the operator did",
            """
            INSERT INTO fleet_audit (actor, action, bot, detail) VALUES (\(entry.actor), \(entry.action), \(entry.bot), \(entry.detail)) RETURNING 1
            """, as: Int.self)
    }

    public func auditLog(limit: Int) async throws -> [FleetAuditEntry] {
        try await database.rows(
            "reading what the operator did",
            "SELECT at, actor, action, bot, detail FROM fleet_audit ORDER BY id DESC LIMIT \(max(0, limit))",
            as: (Date, String, String, String?, String?).self
        ).map { FleetAuditEntry(at: $0.0, actor: $0.1, action: $0.2, bot: $0.3, detail: $0.4) }
    }

    public func invite(codeDigest: Data, note: String, expiresAt: Date) async throws -> FleetInvitation {
        let rows = try await database.rows(
            "keeping an invitation",
            """
            INSERT INTO fleet_invitations (code_digest, note, expires_at) VALUES (\(ByteBuffer(bytes: codeDigest)), \(note), \(expiresAt))
            RETURNING id, created_at
            """, as: (Int64, Date).self)
        let (id, created) = rows.first ?? (0, Date())
        return FleetInvitation(id: id, note: note, createdAt: created, expiresAt: expiresAt)
    }

    public func invitations() async throws -> [FleetInvitation] {
        try await database.rows(
            "reading the invitations",
            "SELECT id, note, created_at, expires_at, used_at, used_for FROM fleet_invitations ORDER BY id DESC",
            as: (Int64, String, Date, Date, Date?, String?).self
        ).map { FleetInvitation(id: $0.0, note: $0.1, createdAt: $0.2, expiresAt: $0.3, usedAt: $0.4, usedFor: $0.5) }
    }

    public func isOpenInvitation(codeDigest: Data) async throws -> Bool {
        !(try await database.rows(
            "checking an invitation",
            """
            SELECT 1 FROM fleet_invitations WHERE code_digest = \(ByteBuffer(bytes: codeDigest)) AND used_at IS NULL AND expires_at > now()
            """, as: Int.self)).isEmpty
    }

    public func useInvitation(codeDigest: Data, for bot: String) async throws -> Bool {
        !(try await database.rows(
            "using an invitation",
            """
            UPDATE fleet_invitations SET used_at = now(), used_for = \(bot)
            WHERE code_digest = \(ByteBuffer(bytes: codeDigest)) AND used_at IS NULL AND expires_at > now() RETURNING 1
            """, as: Int.self)).isEmpty
    }

    public func returnInvitation(codeDigest: Data) async throws {
        _ = try await database.rows(
            "giving an invitation back",
            "UPDATE fleet_invitations SET used_at = NULL, used_for = NULL WHERE code_digest = \(ByteBuffer(bytes: codeDigest)) RETURNING 1",
            as: Int.self)
    }

    public func forgetName(of bot: String) async throws {
        try await database.transaction("forgetting a deleted bot's name") { connection in
            _ = try await connection.query("UPDATE fleet_invitations SET used_for = NULL WHERE used_for = \(bot)", logger: database.logger)
            _ = try await connection.query("UPDATE fleet_audit SET bot = NULL WHERE bot = \(bot)", logger: database.logger)
        }
    }

    @discardableResult
    public func withdrawInvitation(_ id: Int64) async throws -> Bool {
        !(try await database.rows(
            "withdrawing an invitation", "DELETE FROM fleet_invitations WHERE id = \(id) AND used_at IS NULL RETURNING 1", as: Int.self)).isEmpty
    }
}
