import BlueskyNetwork
import BotConfiguration
public import BotCore
public import Foundation
public import Logging
import MastodonAPI
import MastodonNetwork
import MisskeyNetwork
public import SocialNetwork
public import Stores
import XNetwork

/// The networks mirror_bot runs on, by `NETWORK`'s values. The network is chosen here, once: `NETWORK` names a
/// module, which reads its own section of the environment; everything else asks the module.
public enum NetworkChoice: String, Sendable, CaseIterable {
    /// X (the X API v2, OAuth 1.0a), the default.
    case x
    /// A Mastodon instance (bearer tokens).
    case mastodon
    /// Bluesky (the AT Protocol, app passwords).
    case bluesky
    /// A Misskey instance (tokens from MiAuth or Settings → API).
    case misskey

    /// Every network's variables, `HUMAN_NETWORK`, and `POST_CW` (read by each network that has warnings or labels).
    static let variableNames =
        XNetworkSettings.variableNames + MastodonNetworkSettings.variableNames + BlueskyNetworkSettings.variableNames
        + MisskeyNetworkSettings.variableNames + ["HUMAN_NETWORK", "POST_CW"]

    /// The module `NETWORK` names, having read its section from `environment`. When `NETWORK` names no network
    /// mirror_bot knows, every network's section is read too, so that one run names every malformed variable.
    static func module(reading environment: inout EnvironmentReader) -> any NetworkModule {
        let problemsBefore = environment.problems.count
        let chosen = environment.choice("NETWORK", default: NetworkChoice.x, expected: "x, mastodon, bluesky or misskey")
        if environment.problems.count > problemsBefore {
            for other in allCases where other != chosen { _ = module(for: other, reading: &environment) }
        }
        let module = module(for: chosen, reading: &environment)
        // Where the person is: on the bot's network (the default), on another (read there with its own section), or in
        // their imported archive only.
        guard let place = environment.value("HUMAN_NETWORK")?.lowercased(), place != chosen.rawValue else { return module }
        if place == "archive" { return ArchivedPersonModule(module) }
        guard let elsewhere = NetworkChoice(rawValue: place) else {
            environment.malformed(
                "HUMAN_NETWORK",
                expected:
                    "x, mastodon, bluesky or misskey (the person's network; the bot's, \(chosen.rawValue), by default) or archive (the person learned from their imported archive only)",
                shown: place)
            return module
        }
        return PersonElsewhereModule(person: Self.module(for: elsewhere, reading: &environment), bot: module)
    }

    /// `network`'s module, built from its own section of `environment`.
    private static func module(for network: NetworkChoice, reading environment: inout EnvironmentReader) -> any NetworkModule {
        switch network {
        case .x: XNetworkModule(settings: XNetworkSettings(reading: &environment))
        case .mastodon: MastodonNetworkModule(settings: MastodonNetworkSettings(reading: &environment))
        case .bluesky: BlueskyNetworkModule(settings: BlueskyNetworkSettings(reading: &environment))
        case .misskey: MisskeyNetworkModule(settings: MisskeyNetworkSettings(reading: &environment))
        }
    }
}

extension Configuration {
    /// Whether the person is learned from their imported archive only (`HUMAN_NETWORK=archive`).
    public var learnsPersonFromArchiveOnly: Bool { networkModule is ArchivedPersonModule }

    /// The configured network opened for a one-shot command, as `accounts` (for a command that needs no store).
    public func network(as accounts: [Account], logger: Logger) -> CommandNetwork {
        networkModule.forCommand(accounts: accounts, logger: logger)
    }
}

extension BotParts {
    /// The configured network for a one-shot command, as `accounts`, keeping what a network's numbers stand for in the
    /// stores.
    public func network(as accounts: [Account]) -> CommandNetwork {
        let kept = ((try? configuration.tokenSealer()) ?? nil).map { KeptTokens(state: database.state, sealer: $0) }
        return configuration.networkModule.forCommand(accounts: accounts, networkIDs: database.networkIDs, kept: kept, logger: logger)
    }
}

/// How `mirror_bot auth` authorizes an account on each network that has a flow for it.
public enum AccountAuthorizations {
    /// OAuth 1.0a's PIN flow on X for `account`, with the app's key and secret, at `X_API_BASE_URL` of `environment`.
    public static func x(
        for account: Account, consumerKey: String, consumerSecret: String,
        environment: [String: String]
    ) async throws -> any PendingAuthorization {
        var reader = EnvironmentReader(environment: environment)
        let baseURL = reader.apiBaseURL("X_API_BASE_URL", default: XNetworkSettings.defaultBaseURL, example: "https://api.x.com")
        if !reader.problems.isEmpty { throw ConfigurationError(problems: reader.problems) }
        return try await XAccountAuthorization.begin(for: account, consumerKey: consumerKey, consumerSecret: consumerSecret, baseURL: baseURL)
    }

    /// An app password of `account` on Bluesky (`BLUESKY_SERVICE_URL` of `environment`, bsky.social by default), tried
    /// at once: the account's handle and password, or `AuthorizationRefused`.
    public static func bluesky(for account: Account, handle: String, appPassword: String, environment: [String: String]) async throws
        -> AuthorizedAccount
    {
        var reader = EnvironmentReader(environment: environment)
        let settings = BlueskyNetworkSettings(reading: &reader)
        if !reader.problems.isEmpty { throw ConfigurationError(problems: reader.problems) }
        return try await BlueskyAccountSignIn.signIn(
            account, service: settings.service, handle: handle, appPassword: appPassword,
            logger: Logger(label: "mirror_bot.auth"))
    }

    /// The person's atproto OAuth sign-in on Bluesky (`BLUESKY_SERVICE_URL` of `environment`, where `handle` is
    /// resolved), coming back to `redirectURI`; `liking`: their likes may be read too. Its address is opened in a
    /// browser; the redirect's query finishes it.
    public static func blueskyOAuth(handle: String, liking: Bool, redirectURI: String, environment: [String: String]) async throws -> PendingSignIn {
        var reader = EnvironmentReader(environment: environment)
        let settings = BlueskyNetworkSettings(reading: &reader)
        if !reader.problems.isEmpty { throw ConfigurationError(problems: reader.problems) }
        let signIn = try await BlueskyOAuthSignIn.begin(
            handle: handle, service: settings.service, liking: liking, redirectURI: redirectURI,
            logger: Logger(label: "mirror_bot.auth"))
        return PendingSignIn(address: signIn.address, lifetime: BlueskyOAuthSignIn.lifetimeNote(from: Date()), isAnswer: signIn.isAnswer) { query in
            let (authorized, session) = try await signIn.finish(redirectQuery: query)
            return (authorized, { state, sealer in try await StoredBlueskySessions(state: state, sealer: sealer).save(session, of: .human) })
        }
    }

    /// A sign-in whose tokens are kept in the store, sealed (Bluesky's OAuth session): the address the person opens,
    /// and how the redirect's query finishes it, giving the values to set and how the session is kept.
    public struct PendingSignIn: Sendable {
        /// What is kept in the store, sealed.
        public typealias Keep = @Sendable (_ state: any BotState, _ sealer: any SecretSealer) async throws -> Void
        /// The address to open.
        public let address: URL
        /// How long the sign-in lasts and what happens then, said once it is kept; nil when it lasts until taken back.
        public let lifetime: String?
        /// Whether a redirect's query is this sign-in's answer; another is ignored, and the wait goes on.
        public let isAnswer: @Sendable (_ redirectQuery: [String: String]) -> Bool
        /// Finishes with the redirect's query; throws `AuthorizationRefused`.
        public let finish: @Sendable (_ redirectQuery: [String: String]) async throws -> (AuthorizedAccount, Keep)
    }

    /// MiAuth on Misskey for `account` at `instance`, asking for the permissions it needs (`liking`: reactions too).
    public static func misskey(for account: Account, instance: URL, liking: Bool) throws -> any PendingAuthorization {
        try MisskeyAccountAuthorization(for: account, instance: instance, liking: liking, logger: Logger(label: "mirror_bot.auth"))
    }

    /// OAuth 2's authorization code flow with PKCE on Mastodon for `account` at `instance`: registers mirror_bot there
    /// with the scopes the account needs (`liking`: the bot's favourites too); the code the instance shows finishes it.
    public static func mastodon(for account: Account, instance: URL, liking: Bool) async throws -> any PendingAuthorization {
        try await MastodonAccountAuthorization.begin(for: account, instance: instance, liking: liking, logger: Logger(label: "mirror_bot.auth"))
    }
}
