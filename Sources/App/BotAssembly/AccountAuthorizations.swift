import BlueskyNetwork
import BotConfiguration
public import BotCore
public import Foundation
import Logging
import MastodonNetwork
import MisskeyNetwork
public import SocialNetwork
public import Stores
import XNetwork

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
