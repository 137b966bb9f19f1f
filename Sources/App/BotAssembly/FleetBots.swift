import BotConfiguration
public import Fleet
import Foundation
public import Logging
import PostgresStores
import RedisClient
import RedisWordCounts
public import Stores

/// The fleet's bots administered (`mirror_bot bots`): added with their settings sealed, listed, paused, resumed and
/// removed with their data, on the fleet's Postgres (`DATABASE_URL`) and, for a removal, its Redis.
public struct FleetBots: Sendable {
    /// The process's configuration (the fleet's database and Redis).
    public let configuration: Configuration
    /// The process's environment (the shared variables a bot's settings are checked with).
    public let environment: [String: String]
    /// The log.
    public let logger: Logger

    /// The administration from its parts.
    public init(configuration: Configuration, environment: [String: String], logger: Logger) {
        self.configuration = configuration
        self.environment = environment
        self.logger = logger
    }

    /// Runs `body` with the registry on the fleet's database, its tables made when missing.
    public func withRegistry<Result: Sendable>(_ body: (any FleetRegistry) async throws -> Result) async throws -> Result {
        try await withRegistryAndPool { registry, _ in try await body(registry) }
    }

    /// `body` with an administration whose every call shares one pool of connections, open while `body` runs (a
    /// process that serves many calls: `mirror_bot web`); without it each call opens its own.
    public func withOnePool<Result: Sendable>(_ body: (FleetBots) async throws -> Result) async throws -> Result {
        try await withRegistryAndPool { _, pool in
            var sharing = self
            sharing.shared = pool
            return try await body(sharing)
        }
    }

    /// The pool every call shares, inside `withOnePool`.
    private var shared: PostgresStoreSet?

    private func withRegistryAndPool<Result: Sendable>(_ body: (any FleetRegistry, PostgresStoreSet) async throws -> Result) async throws -> Result {
        if let shared {
            return try await body(PostgresFleetRegistry(database: PostgresStoreSet(sharing: shared, schema: shared.schema ?? "public")), shared)
        }
        guard let url = configuration.storage.database else {
            throw ConfigurationError(problems: [
                .init(variable: "DATABASE_URL", isMissing: true, expected: "the fleet's Postgres: the fleet keeps its bots and their leases there")
            ])
        }
        let pool = try PostgresStoreSet(url: url, logger: logger)
        return try await pool.withRunning {
            let registry = PostgresFleetRegistry(database: PostgresStoreSet(sharing: pool, schema: pool.schema ?? "public"))
            try await registry.prepare()
            return try await body(registry, pool)
        }
    }

    /// Adds the bot `name` with `settings` (its own variables: those the fleet's processes share are refused), after
    /// checking that they make a whole configuration; its stores are made and migrated in its schema. Returns the bot.
    public func add(name: String, settings: [String: String], key: FleetKey) async throws -> FleetBot {
        try await add(name: name, settings: settings, key: key, pausedBecause: nil) { _, _ in }
    }

    /// Adds the bot `name` as `add(name:settings:key:)` does, paused `pausedBecause` when it is given, then `prepare`s
    /// its stores (its configuration, its migrated stores): a bot whose preparation fails is removed again, so that
    /// none is left half made. Returns the bot.
    public func add(
        name: String, settings: [String: String], key: FleetKey, pausedBecause: String?,
        prepare: (Configuration, any StoreSet) async throws -> Void
    ) async throws -> FleetBot {
        let (configuration, sealed) = try checked(name: name, settings: settings, key: key)
        return try await withRegistryAndPool { registry, pool in
            let bot = try await registry.add(
                name: name, network: settings["NETWORK"]?.lowercased() ?? "x", sealedSettings: sealed, pausedBecause: pausedBecause)
            do {
                let stores = PostgresStoreSet(sharing: pool, schema: bot.schema, settings: StoreSettings(timeZone: configuration.behaviour.timeZone))
                try await stores.migrations.migrate()
                try await prepare(configuration, stores)
            } catch {
                _ = try? await registry.remove(name)
                throw error
            }
            return bot
        }
    }

    /// Changes the settings of the bot `name`: `changes` set over its sealed settings (an empty value removes one),
    /// checked as `add` checks them, sealed again, and the bot let go by the process running it so that the next round
    /// starts it with them. Returns the new configuration, nil when there is no such bot.
    public func changeSettings(of name: String, _ changes: [String: String], key: FleetKey) async throws -> Configuration? {
        try await withRegistry { registry in
            guard let bot = try await registry.bot(named: name) else { return nil }
            var settings = try key.open(bot.sealedSettings, bot: name)
            for (variable, value) in changes { settings[variable] = value.isEmpty ? nil : value }
            let (configuration, sealed) = try checked(name: name, settings: settings, key: key)
            return try await registry.replaceSettings(of: name, with: sealed) ? configuration : nil
        }
    }

    /// `body` with the stores of the bot `name` (its schema's, migrated as it was added), nil when there is no such bot.
    public func withStores<Result: Sendable>(of name: String, _ body: (FleetBot, any StoreSet) async throws -> Result) async throws -> Result? {
        try await withStores(of: name, settings: { _ in StoreSettings() }, body)
    }

    /// `body` with the stores of the bot `name` as `withStores(of:_:)` gives them, with the settings its own
    /// configuration gives (`settings`: its time zone, which an archive's writes depend on, and its row limit).
    public func withStores<Result: Sendable>(
        of name: String, settings: (FleetBot) throws -> StoreSettings, _ body: (FleetBot, any StoreSet) async throws -> Result
    ) async throws -> Result? {
        try await withRegistryAndPool { registry, pool in
            guard let bot = try await registry.bot(named: name) else { return nil }
            return try await body(bot, PostgresStoreSet(sharing: pool, schema: bot.schema, settings: try settings(bot)))
        }
    }

    /// Makes the bot that `start` runs on this database a fleet's bot named `name`, with `settings` (its own variables, as
    /// `add` takes them), its data moved in place: the tables of its schema (`DATABASE_SCHEMA`, default `public`) become
    /// the bot's schema's without a row copied, and its word counts (under `REDIS_KEY_PREFIX`) go under the bot's key
    /// prefix. The single bot's lease is held meanwhile, so that no `start` runs it; a `start` later on that schema is
    /// refused, naming the fleet's bot. Returns the bot, the tables moved and the Redis keys moved. Throws `LeaseHeld`
    /// while a `start` runs the bot, `FleetError.nothingToAdopt` when the schema holds none, `FleetError.nameTaken`.
    public func adopt(name: String, settings: [String: String], key: FleetKey) async throws -> (bot: FleetBot, tables: Int, keys: Int) {
        let (botConfiguration, sealed) = try checked(name: name, settings: settings, key: key)
        return try await withRegistryAndPool { registry, pool in
            let schema = configuration.storage.databaseSchema ?? "public"
            // As `start` opens them (its lease is taken by the same name: none when DATABASE_SCHEMA is not set).
            let single = configuration.storage.databaseSchema.map { PostgresStoreSet(sharing: pool, schema: $0) } ?? pool
            guard try await !single.migrations.appliedVersions().isEmpty else { throw FleetError.nothingToAdopt(schema: schema) }
            let lease = try await single.takeLease(logger: logger)
            do {
                let (bot, tables) = try await registry.adopt(
                    name: name, network: settings["NETWORK"]?.lowercased() ?? "x", sealedSettings: sealed, storesIn: schema)
                let stores = PostgresStoreSet(
                    sharing: pool, schema: bot.schema, settings: StoreSettings(timeZone: botConfiguration.behaviour.timeZone))
                try await stores.migrations.migrate()
                var keys = 0
                if let redis = configuration.storage.redis {
                    let connection: any RedisPipelining =
                        configuration.storage.redisCluster
                        ? RedisClusterConnection(seed: redis, certificateAuthority: configuration.storage.redisTLSCertificateAuthority)
                        : RedisConnection(url: redis, certificateAuthority: configuration.storage.redisTLSCertificateAuthority)
                    defer { connection.close() }
                    keys = try await RedisWordCounts(connection: connection, keyPrefix: configuration.storage.redisKeys)
                        .move(to: RedisWordCounts(connection: connection, keyPrefix: botConfiguration.storage.redisKeys))
                }
                await lease.release()
                return (bot, tables, keys)
            } catch {
                await lease.release()
                throw error
            }
        }
    }

    /// The bot `name`'s whole configuration from `settings`, checked (a name a bot may have, none of the variables the
    /// fleet's processes share, its accounts all there), and its settings sealed with `key`.
    private func checked(name: String, settings: [String: String], key: FleetKey) throws -> (Configuration, Data) {
        guard FleetBot.isValidName(name) else { throw FleetError.badName(name) }
        let shared = settings.keys.filter { FleetBotSettings.processVariables.contains($0) }.sorted()
        guard shared.isEmpty else {
            throw ConfigurationError(
                problems: shared.map {
                    .init(
                        variable: $0, isMissing: false,
                        expected: "not in a bot's settings: it is the fleet process's (set it in the process's environment)")
                })
        }
        // Nothing of a bot's settings is printed (they are sealed for that): no value in the errors either.
        let configuration: Configuration
        do {
            configuration = try Configuration(environment: FleetBotSettings.environment(of: name, settings: settings, process: environment))
            try configuration.require([.humanCredentials, .botCredentials])
        } catch let error as ConfigurationError {
            throw error.withoutValues
        }
        return (configuration, try key.seal(settings))
    }

    /// The environment a command runs in for the bot `name` (`mirror_bot bots exec`): every variable of the
    /// configuration is the bot's (its settings, the process's shared ones, its key prefix, `DATABASE_SCHEMA` its
    /// schema) or set empty, so that nothing of a `.env` beside it or of another bot's variables leaks in; the rest of
    /// the process's environment (`PATH`, `HOME`, …) stays. Throws `FleetError.noSuchBot`, `FleetKeyError`.
    public func commandEnvironment(of name: String, key: FleetKey) async throws -> [String: String] {
        guard let bot = try await withRegistry({ try await $0.bot(named: name) }) else { throw FleetError.noSuchBot(name) }
        var bots = FleetBotSettings.environment(of: bot.name, settings: try key.open(bot.sealedSettings, bot: bot.name), process: environment)
        bots["DATABASE_SCHEMA"] = bot.schema
        var result = environment.filter { !Configuration.variableNames.contains($0.key) }
        for variable in Configuration.variableNames { result[variable] = bots[variable] ?? "" }
        for (variable, value) in bots { result[variable] = value }
        return result
    }

    /// Removes the bot `name`: its schema with every store, its word counts (its keys in Redis), its lease and its row.
    /// Returns how many Redis keys went; throws `FleetError.noSuchBot`.
    public func remove(name: String) async throws -> Int {
        try await withRegistry { registry in
            guard try await registry.bot(named: name) != nil else { throw FleetError.noSuchBot(name) }
            var removedKeys = 0
            if let redis = configuration.storage.redis {
                var storage = configuration.storage
                storage.redisKeyPrefix = name + ":"
                let connection: any RedisPipelining =
                    storage.redisCluster
                    ? RedisClusterConnection(seed: redis, certificateAuthority: storage.redisTLSCertificateAuthority)
                    : RedisConnection(url: redis, certificateAuthority: storage.redisTLSCertificateAuthority)
                removedKeys = try await RedisWordCounts(connection: connection, keyPrefix: storage.redisKeys).removeAll()
                connection.close()
            }
            try await registry.remove(name)
            return removedKeys
        }
    }

    /// Why a bot `bots pause` paused is.
    public static let pausedByHand = "paused by hand"

    /// Who runs `mirror_bot bots` here, as the audit log names them: the command on this host.
    public static var commandActor: String { "mirror_bot bots on \(ProcessInfo.processInfo.hostName)" }

    /// Records in the audit log that `actor` (by default the operator, by `mirror_bot bots`) did `action` to the bot
    /// `bot`. A failure to record is a line of the log: what was done stays done.
    public func audit(_ action: String, bot: String?, detail: String? = nil, by actor: String = FleetBots.commandActor) async {
        do {
            try await withRegistry { try await $0.audit(FleetAuditEntry(actor: actor, action: action, bot: bot, detail: detail)) }
        } catch {
            logger.warning("fleet: \(action) \(bot ?? "") was not recorded in the audit log: \(error)")
        }
    }

    /// What joins an operator's pause to the person's own pause under it, which comes back when the operator resumes.
    static let under = "; before that, "

    /// The pause after the operator pauses a bot paused `current` (`reason`): theirs, over a person's own (kept under
    /// it); nil where the pause stays as it is (an operator's or a failure's already).
    static func pause(_ reason: String, over current: String?) -> String? {
        guard let current else { return reason }
        return FleetDoorOperations.isPersonsPause(current) ? reason + under + current : nil
    }

    /// The pause after the operator lifts theirs (or a failure's) from the bot `name`: the person's own that was under
    /// it, or none. A person's own pause throws `FleetResumeRefused`: only they lift it.
    static func resumed(_ name: String, from current: String) throws -> String? {
        if FleetDoorOperations.isPersonsPause(current) { throw FleetResumeRefused(name: name, reason: current) }
        guard let range = current.range(of: under) else { return nil }
        let persons = String(current[range.upperBound...])
        return FleetDoorOperations.isPersonsPause(persons) ? persons : nil
    }

    /// Changes the bot `name`'s pause as `change` says from the pause it has (`.none`: it stays), in one conditional
    /// statement, read again and tried again while another change comes first. Returns the pause it had and whether it
    /// changed; nil when there is no such bot.
    public func changePause(
        of name: String, _ change: (String?) throws -> String??
    ) async throws -> (had: String?, changed: Bool)? {
        try await withRegistry { registry in
            for _ in 0..<5 {
                guard let bot = try await registry.bot(named: name) else { return nil }
                guard let new = try change(bot.pauseReason) else { return (bot.pauseReason, false) }
                if try await registry.setPaused(name, reason: new, ifStill: bot.pauseReason) { return (bot.pauseReason, true) }
            }
            throw FleetResumeRefused(name: name, reason: "changed by someone else meanwhile, five times: try again")
        }
    }

    /// Pauses the bot `name` for `actor` (`reason`: why, by default `bots pause`'s), recorded in the audit log; false when
    /// there is none. A pause already there stays (an operator's or a failure's) or goes under this one (a person's
    /// own, which comes back when the operator resumes).
    public func pause(_ name: String, reason: String = FleetBots.pausedByHand, by actor: String = FleetBots.commandActor) async throws -> Bool {
        guard let (_, changed) = try await changePause(of: name, { current in Self.pause(reason, over: current).map { .some($0) } }) else {
            return false
        }
        if changed { await audit("paused", bot: name, by: actor) }
        return true
    }

    /// Lifts the operator's pause, or a failure's, from the bot `name` for `actor`, recorded in the audit log (a pause of
    /// its person's under it comes back); false when there is none. A front door's mirror its person paused, never
    /// started, or is deleting, is theirs: that throws `FleetResumeRefused`.
    public func resume(_ name: String, by actor: String = FleetBots.commandActor) async throws -> Bool {
        guard
            let (had, changed) = try await changePause(
                of: name,
                { current in
                    guard let current else { return .none }
                    return .some(try Self.resumed(name, from: current))
                })
        else { return false }
        if changed, let had { await audit("resumed", bot: name, detail: "it was \(had)", by: actor) }
        return true
    }
}

/// A resume the operator may not make: the mirror's person paused it, or has not started it.
public struct FleetResumeRefused: Error, CustomStringConvertible {
    /// The bot.
    public var name: String
    /// Its pause.
    public var reason: String

    /// The sentence.
    public var description: String {
        "\(name) is paused by its person, or was never started (\(reason)): only its person starts it, from their page at the front door."
    }
}
