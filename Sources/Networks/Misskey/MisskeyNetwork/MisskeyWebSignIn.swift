import BotConfiguration
public import BotCore
public import Foundation
public import Logging
public import SocialNetwork

/// Signing in on Misskey from the front door: MiAuth, the instance sending the browser back to the door's callback
/// (which carries the door's `state`) with the session added; the token is then fetched once.
public struct MisskeyWebSignIn: WebSignIn {
    /// The flow.
    public init() {}

    /// A large instance, as an example.
    public var serverExample: String? { "misskey.io" }

    /// A MiAuth session on the instance `server` (`misskey.io` or its `https://` address) asking for what `account`
    /// needs, its callback the door's with `state`; throws `AuthorizationRefused` for an address that is no instance's.
    public func begin(for account: Account, server: String, redirect: URL, state: String, logger: Logger) async throws -> any PendingAuthorization {
        let typed = server.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let instance = EnvironmentReader.typedServerURL(typed),
            var callback = URLComponents(url: redirect, resolvingAgainstBaseURL: false)
        else {
            throw AuthorizationRefused(
                "\(typed.isEmpty ? "no instance" : typed) is not a Misskey instance's address: give its name, such as misskey.io")
        }
        callback.queryItems = (callback.queryItems ?? []) + [URLQueryItem(name: "state", value: state)]
        return try MisskeyAccountAuthorization(for: account, instance: instance, callback: callback.url, logger: logger)
    }
}
