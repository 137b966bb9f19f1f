import BotAssembly
import BotConfiguration
import Foundation
import MastodonAPI
import MisskeyAPI
import MisskeyNetwork
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
            try Configuration(environment: [
                "NETWORK": "friendica", "HUMAN_MASTODON_TOKEN": "secret-person-token",
                "BOT_MASTODON_URL": "http://mastodon.example", "BOT_MASTODON_TOKEN": "secret-bot-token",
                "POST_VISIBILITY": "direct",
            ])
        }
        let text = error.description
        for name in ["NETWORK", "HUMAN_MASTODON_URL", "BOT_MASTODON_URL", "POST_VISIBILITY"] { #expect(text.contains(name), "\(name): \(text)") }
        // HUMAN_NETWORK: the bot's network, another (the person read there, with that network's HUMAN_* section), or
        // archive; anything else is named with what it may be.
        let unknown = try #require(throws: ConfigurationError.self) {
            try Configuration(environment: ["NETWORK": "bluesky", "HUMAN_NETWORK": "myspace"])
        }
        #expect(
            unknown.description.contains("HUMAN_NETWORK") && unknown.description.contains("x, mastodon, bluesky or misskey"), "\(unknown.description)"
        )
        let elsewhere = try Configuration(environment: [
            "NETWORK": "bluesky", "HUMAN_NETWORK": "mastodon", "HUMAN_MASTODON_URL": "https://mastodon.example",
            "HUMAN_MASTODON_TOKEN": "person-token", "BOT_BLUESKY_HANDLE": "bot.bsky.social",
            "BOT_BLUESKY_APP_PASSWORD": "app-pass-word0",
        ])
        let pair = try #require(elsewhere.networkModule as? PersonElsewhereModule)
        #expect(pair.person.name == "Mastodon" && pair.bot.name == "Bluesky" && elsewhere.networkModule.name == "Bluesky")
        // Each side asks for its own account's settings only.
        #expect(pair.missingSettings(for: [.human, .bot]).isEmpty)
        let unset = try #require(
            try Configuration(environment: ["NETWORK": "bluesky", "HUMAN_NETWORK": "mastodon"]).networkModule as? PersonElsewhereModule)
        #expect(
            unset.missingSettings(for: [.human]).map(\.variable).allSatisfy { $0.hasPrefix("HUMAN_MASTODON") },
            "\(unset.missingSettings(for: [.human]))")
        #expect(
            unset.missingSettings(for: [.bot]).map(\.variable).allSatisfy { $0.hasPrefix("BOT_BLUESKY") }, "\(unset.missingSettings(for: [.bot]))")
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

@Suite("NETWORK=misskey")
struct MisskeyConfigurationTests {
    static let misskey = [
        "NETWORK": "misskey", "HUMAN_MISSKEY_URL": "https://misskey.io/", "HUMAN_MISSKEY_TOKEN": "person-token",
        "BOT_MISSKEY_URL": "https://misskey.example", "BOT_MISSKEY_TOKEN": "bot-token",
    ]

    @Test(
        "NETWORK=misskey reads each account's instance and token; posts home by default (Mastodon's unlisted and private taken as home and followers); ❤ likes unless another emoji is named"
    )
    func misskeyAccounts() throws {
        let configuration = try Configuration(environment: Self.misskey)
        let module = try #require(configuration.networkModule as? MisskeyNetworkModule)
        #expect(
            module.name == "Misskey" && module.settings.visibility == .home && module.settings.likeReaction == "❤" && !module.settings.copyingWarnings
        )
        #expect(module.settings.human == MisskeyAccess(instance: URL(string: "https://misskey.io")!, token: "person-token"))
        #expect(module.settings.bot?.instance.host == "misskey.example" && module.settings.bot?.token == "bot-token")
        try configuration.require([.humanCredentials, .botCredentials])
        for (text, visibility) in [("public", MisskeyVisibility.public), ("followers", .followers), ("private", .followers), ("unlisted", .home)] {
            let chosen = try #require(
                try Configuration(environment: Self.misskey.merging(["POST_VISIBILITY": text]) { $1 }).networkModule as? MisskeyNetworkModule)
            #expect(chosen.settings.visibility == visibility, "\(text)")
        }
        for reaction in ["👍", ":igyo:", ":blobcat@misskey.io:"] {
            let chosen = try #require(
                try Configuration(environment: Self.misskey.merging(["MISSKEY_LIKE_REACTION": reaction]) { $1 }).networkModule
                    as? MisskeyNetworkModule)
            #expect(chosen.settings.likeReaction == reaction)
        }
    }

    @Test(
        "A token without its instance, an instance that is not https, a visibility or a reaction Misskey has not: each named, no token shown; start asks for Misskey's accounts with the permissions each token needs"
    )
    func misskeyMistakes() throws {
        let error = try #require(throws: ConfigurationError.self) {
            try Configuration(environment: [
                "NETWORK": "misskey", "HUMAN_MISSKEY_TOKEN": "secret-person-token", "BOT_MISSKEY_URL": "http://misskey.example",
                "BOT_MISSKEY_TOKEN": "secret-bot-token", "POST_VISIBILITY": "specified", "MISSKEY_LIKE_REACTION": "like",
            ])
        }
        for name in ["HUMAN_MISSKEY_URL", "BOT_MISSKEY_URL", "POST_VISIBILITY", "MISSKEY_LIKE_REACTION"] {
            #expect(error.description.contains(name), "\(name): \(error.description)")
        }
        #expect(!error.description.contains("secret-person-token") && !error.description.contains("secret-bot-token"))
        let missing = try #require(throws: ConfigurationError.self) {
            try Configuration(environment: ["NETWORK": "misskey"]).require([.humanCredentials, .botCredentials])
        }
        #expect(
            missing.description.contains("HUMAN_MISSKEY_TOKEN") && missing.description.contains("BOT_MISSKEY_URL")
                && missing.description.contains("write:notes"))
        #expect(!missing.description.contains("CONSUMER_KEY"))
    }
}
