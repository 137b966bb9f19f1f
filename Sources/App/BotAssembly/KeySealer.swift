import Fleet
import Foundation
public import SocialNetwork

/// Seals the tokens a bot keeps in its store with a key made from a text (`MIRROR_BOT_KEY` for a single bot, the
/// fleet's `FLEET_KEY`): AES-GCM (`FleetKey`), stored as `sealed:v1:` and base64. What this key did not seal does not
/// open, and says so.
public struct KeySealer: SecretSealer {
    private let key: FleetKey

    /// What sealed values start with.
    static let prefix = "sealed:v1:"

    /// A sealer with the key made from `text` (at least 16 characters).
    public init(text: String) throws { key = try FleetKey(text: text) }

    /// A sealer with `key`.
    init(key: FleetKey) { self.key = key }

    public func seal(_ text: String) throws -> String {
        Self.prefix + (try key.seal(["value": text])).base64EncodedString()
    }

    public func open(_ sealed: String) throws -> String {
        guard sealed.hasPrefix(Self.prefix), let data = Data(base64Encoded: String(sealed.dropFirst(Self.prefix.count))),
            let value = try key.open(data, bot: "this bot")["value"]
        else {
            throw FleetKeyError.wrongKey(bot: "this bot")
        }
        return value
    }
}
