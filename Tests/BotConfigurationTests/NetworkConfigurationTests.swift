import BotAssembly
import BotConfiguration
import MastodonAPI
import Foundation
import Testing

@Suite("NETWORK and the Mastodon accounts")
struct NetworkConfigurationTests {
    static let mastodon = [
        "NETWORK": "mastodon", "HUMAN_MASTODON_URL": "https://mastodon.social/", "HUMAN_MASTODON_TOKEN": "person-token",
        "BOT_MASTODON_URL": "https://botsin.space", "BOT_MASTODON_TOKEN": "bot-token",
    ]

    @Test("X by default; NETWORK=mastodon reads each account's instance and token, unlisted posts, warnings not copied")
    func mastodonAccounts() throws {
        let defaults = try Configuration(environment: [:])
        #expect(defaults.x != nil && defaults.mastodon == nil && defaults.networkModule.name == "X")
        let plain = try #require(try Configuration(environment: ["NETWORK": "Mastodon"]).mastodon)
        #expect(plain.human == nil && plain.bot == nil && plain.visibility == .unlisted && !plain.copyingWarnings)
        let configuration = try Configuration(environment: Self.mastodon.merging(["POST_VISIBILITY": "Public", "POST_CW": "true"]) { $1 })
        #expect(configuration.mastodon != nil && configuration.networkModule.name == "Mastodon")
        #expect(configuration.mastodon?.human == MastodonAccess(instance: URL(string: "https://mastodon.social")!, token: "person-token"))
        #expect(configuration.mastodon?.bot?.instance.host == "botsin.space" && configuration.mastodon?.bot?.token == "bot-token")
        #expect(configuration.mastodon?.visibility == .public && configuration.mastodon?.copyingWarnings == true)
        try configuration.require([.humanCredentials, .botCredentials])  // no X credentials needed
    }

    @Test("A token without its instance, an instance that is not https, an unknown network or visibility: each named, no token shown")
    func malformed() throws {
        let error = try #require(throws: ConfigurationError.self) {
            try Configuration(environment: ["NETWORK": "friendica", "HUMAN_MASTODON_TOKEN": "secret-person-token",
                                            "BOT_MASTODON_URL": "http://mastodon.example", "BOT_MASTODON_TOKEN": "secret-bot-token",
                                            "POST_VISIBILITY": "direct"])
        }
        let text = error.description
        for name in ["NETWORK", "HUMAN_MASTODON_URL", "BOT_MASTODON_URL", "POST_VISIBILITY"] { #expect(text.contains(name), "\(name): \(text)") }
        // HUMAN_NETWORK: the bot's network, another (the person read there, with that network's HUMAN_* section), or
        // archive; anything else is named with what it may be.
        let unknown = try #require(throws: ConfigurationError.self) {
            try Configuration(environment: ["NETWORK": "bluesky", "HUMAN_NETWORK": "myspace"])
        }
        #expect(unknown.description.contains("HUMAN_NETWORK") && unknown.description.contains("x, mastodon or bluesky"), "\(unknown.description)")
        let elsewhere = try Configuration(environment: ["NETWORK": "bluesky", "HUMAN_NETWORK": "mastodon", "HUMAN_MASTODON_URL": "https://mastodon.example",
                                                        "HUMAN_MASTODON_TOKEN": "person-token", "BOT_BLUESKY_HANDLE": "bot.bsky.social",
                                                        "BOT_BLUESKY_APP_PASSWORD": "app-pass-word0"])
        let pair = try #require(elsewhere.networkModule as? PersonElsewhereModule)
        #expect(pair.person.name == "Mastodon" && pair.bot.name == "Bluesky" && elsewhere.networkModule.name == "Bluesky")
        // Each side asks for its own account's settings only.
        #expect(pair.missingSettings(for: [.human, .bot]).isEmpty)
        let unset = try #require(try Configuration(environment: ["NETWORK": "bluesky", "HUMAN_NETWORK": "mastodon"]).networkModule as? PersonElsewhereModule)
        #expect(unset.missingSettings(for: [.human]).map(\.variable).allSatisfy { $0.hasPrefix("HUMAN_MASTODON") }, "\(unset.missingSettings(for: [.human]))")
        #expect(unset.missingSettings(for: [.bot]).map(\.variable).allSatisfy { $0.hasPrefix("BOT_BLUESKY") }, "\(unset.missingSettings(for: [.bot]))")
        #expect(!unset.missingSettings(for: [.human]).isEmpty && !unset.missingSettings(for: [.bot]).isEmpty)
        #expect(try Configuration(environment: ["NETWORK": "bluesky", "HUMAN_NETWORK": "archive"]).learnsPersonFromArchiveOnly)
        #expect(try Configuration(environment: ["NETWORK": "bluesky", "HUMAN_NETWORK": "Bluesky"]).learnsPersonFromArchiveOnly == false)
        #expect(!text.contains("secret-person-token") && !text.contains("secret-bot-token"))
    }

    @Test("On Mastodon, start asks for the Mastodon accounts with the scopes each token needs, not for X's credentials")
    func requirementsFollowTheNetwork() throws {
        let configuration = try Configuration(environment: ["NETWORK": "mastodon"])
        let error = try #require(throws: ConfigurationError.self) { try configuration.require([.humanCredentials, .botCredentials]) }
        let text = error.description
        #expect(text.contains("HUMAN_MASTODON_TOKEN") && text.contains("BOT_MASTODON_URL") && text.contains("write:statuses"))
        #expect(!text.contains("CONSUMER_KEY"))
        let onX = try #require(throws: ConfigurationError.self) { try Configuration(environment: [:]).require([.botCredentials]) }
        #expect(onX.description.contains("BOT_CONSUMER_KEY") && !onX.description.contains("MASTODON"))
    }
}
