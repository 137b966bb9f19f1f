import Fleet
import Foundation
import Testing

@Suite("The fleet's key")
struct FleetKeyTests {
    @Test(
        "Settings sealed with FLEET_KEY open with it; another key, or a changed byte, opens nothing and says so in a line without a setting; a missing or short key is refused"
    )
    func sealsAndOpens() throws {
        let settings = ["NETWORK": "mastodon", "BOT_MASTODON_TOKEN": "secret-token-123"]
        let key = try FleetKey(text: "a long and random fleet key")
        let sealed = try key.seal(settings)
        #expect(!String(decoding: sealed, as: UTF8.self).contains("secret-token-123"))
        #expect(try key.open(sealed, bot: "alice") == settings)
        let wrong = try FleetKey(text: "another long fleet key!!")
        let error = try #require(throws: FleetKeyError.self) { try wrong.open(sealed, bot: "alice") }
        #expect(error == .wrongKey(bot: "alice") && !error.description.contains("secret") && !error.description.contains("\n"))
        var changed = sealed
        changed[changed.count / 2] ^= 1
        #expect(throws: FleetKeyError.wrongKey(bot: "alice")) { try key.open(changed, bot: "alice") }
        #expect(throws: FleetKeyError.missing) { try FleetKey(text: nil) }
        #expect(throws: FleetKeyError.tooShort) { try FleetKey(text: "short") }
    }

    @Test("A bot's environment: its own variables, the process's shared ones (which its settings cannot override), its own key prefix")
    func botEnvironment() {
        let environment = FleetBotSettings.environment(
            of: "alice", settings: ["NETWORK": "x", "TZ": "Asia/Tokyo", "DATABASE_URL": "postgres://bot-wants-this", "REDIS_KEY_PREFIX": "mine:"],
            process: ["DATABASE_URL": "postgres://fleet", "REDIS_URL": "redis://fleet", "FLEET_KEY": "k", "PATH": "/usr/bin", "TZ": "UTC"])
        #expect(
            environment == [
                "NETWORK": "x", "TZ": "Asia/Tokyo", "DATABASE_URL": "postgres://fleet", "REDIS_URL": "redis://fleet", "REDIS_KEY_PREFIX": "alice:",
            ])
    }
}
