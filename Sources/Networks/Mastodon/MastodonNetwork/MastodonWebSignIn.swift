import BotConfiguration
public import BotCore
public import Foundation
public import Logging
public import SocialNetwork

/// Signing in on Mastodon from the front door: OAuth 2's authorization code flow with PKCE, the instance sending the
/// browser back to the door's callback with the code and `state` (`MastodonAccountAuthorization` with a redirect).
public struct MastodonWebSignIn: WebSignIn {
    /// The flow.
    public init() {}

    /// The largest instance, as an example.
    public var serverExample: String? { "mastodon.social" }

    /// Registers mirror_bot on the instance `server` (`mastodon.social` or its `https://` address) with the door's
    /// callback and the scopes `account` needs; throws `AuthorizationRefused` for an address that is no instance's.
    public func begin(for account: Account, server: String, redirect: URL, state: String, logger: Logger) async throws -> any PendingAuthorization {
        let typed = server.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let instance = EnvironmentReader.typedServerURL(typed) else {
            throw AuthorizationRefused(
                "\(typed.isEmpty ? "no instance" : typed) is not a Mastodon instance's address: give its name, such as mastodon.social")
        }
        return try await MastodonAccountAuthorization.begin(
            for: account, instance: instance, redirectURI: redirect.absoluteString, state: state, logger: logger)
    }
}
