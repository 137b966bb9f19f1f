import Crypto
public import Foundation

/// The key that seals each bot's settings in the fleet's database (`FLEET_KEY`): AES-GCM with a 256-bit key made from
/// the text (SHA-256 of it), so that a database copied without the key gives away no token. A wrong key opens nothing
/// and says so in one line; no setting is ever printed.
public struct FleetKey: Sendable {
    private let key: SymmetricKey

    /// The shortest `FLEET_KEY` taken.
    public static let minimumLength = 16

    /// The key from `FLEET_KEY`'s text; throws `FleetKeyError.missing` or `.tooShort`.
    public init(text: String?) throws {
        guard let text, !text.isEmpty else { throw FleetKeyError.missing }
        guard text.count >= Self.minimumLength else { throw FleetKeyError.tooShort }
        key = SymmetricKey(data: SHA256.hash(data: Data(text.utf8)))
    }

    /// 32 bytes derived from the key for `purpose` (HKDF-SHA256): the same in every process of the fleet and after
    /// every restart, and telling nothing of the key (the front door's client keys are made from it).
    public func derivedSecret(for purpose: String) -> Data {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: key, info: Data("mirror_bot \(purpose)".utf8), outputByteCount: 32).withUnsafeBytes { Data($0) }
    }

    /// `settings` sealed: nonce, ciphertext and tag.
    public func seal(_ settings: [String: String]) throws -> Data {
        let plain = try JSONEncoder().encode(settings)
        guard let combined = try AES.GCM.seal(plain, using: key).combined else { throw FleetKeyError.cannotSeal }
        return combined
    }

    /// The settings `sealed` holds; throws `FleetKeyError.wrongKey(bot:)` when this key did not seal them (or they were
    /// changed).
    public func open(_ sealed: Data, bot: String) throws -> [String: String] {
        do {
            let plain = try AES.GCM.open(try AES.GCM.SealedBox(combined: sealed), using: key)
            return try JSONDecoder().decode([String: String].self, from: plain)
        } catch {
            throw FleetKeyError.wrongKey(bot: bot)
        }
    }
}

/// Why the fleet's key cannot be used, in one line that says what to do (never a setting).
public enum FleetKeyError: Error, Equatable, CustomStringConvertible {
    /// `FLEET_KEY` is not set.
    case missing
    /// `FLEET_KEY` is too short to be a key.
    case tooShort
    /// The key does not open a bot's settings.
    case wrongKey(bot: String)
    /// Sealing failed (it does not, with a valid key).
    case cannotSeal

    /// The sentence.
    public var description: String {
        switch self {
        case .missing:
            "FLEET_KEY is not set: the bots' settings are sealed with it. Set it to a long random text (say `openssl rand -base64 32`), the same in every process of the fleet, and keep it."
        case .tooShort: "FLEET_KEY is too short: use at least \(FleetKey.minimumLength) characters (say `openssl rand -base64 32`)."
        case .wrongKey(let bot):
            "FLEET_KEY does not open the settings of the bot \(bot): they were sealed with another key. Set the key they were added with (or add the bot again)."
        case .cannotSeal: "The settings could not be sealed."
        }
    }
}

/// A bot's own settings within the fleet: its section of the configuration (network, accounts, time zone, options),
/// with what the fleet's processes share left out (the database, Redis, the log level, the status page), which comes
/// from the process running it.
public enum FleetBotSettings {
    /// The variables a bot's settings may not set: they are the fleet process's.
    public static let processVariables: Set<String> = [
        "DATABASE_URL", "DATABASE_SCHEMA", "REDIS_URL", "REDISTOGO_URL", "REDIS_TLS_CA", "REDIS_CLUSTER", "REDIS_KEY_PREFIX", "MIRROR_BOT_DATA",
        "FLEET_KEY",
        "PORT", "BIND", "DYNO", "STATUS_PASSWORD", "LOG_LEVEL", "MECAB_DICDIR", "FLEET_LEASE_SECONDS", "FLEET_ROUND_SECONDS",
        "FLEET_DATABASE_CONNECTIONS", "PUBLIC_URL",
    ]

    /// The bot `name`'s whole environment: the process's shared variables, the bot's own, and its word counts under a key
    /// prefix of its own (`<name>:`; on a Redis Cluster the hash tag `{bot:<name>}`).
    public static func environment(of name: String, settings: [String: String], process: [String: String]) -> [String: String] {
        var merged = settings.filter { !processVariables.contains($0.key) }
        for (variable, value) in process where processVariables.contains(variable) { merged[variable] = value }
        merged["REDIS_KEY_PREFIX"] = name + ":"
        merged["FLEET_KEY"] = nil
        return merged
    }
}
