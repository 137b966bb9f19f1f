import BlueskyAPI
import BotClock
public import BotCore
public import Foundation
public import Logging
public import SocialNetwork

/// Signing an account in on Bluesky with one of its app passwords (`mirror_bot auth bluesky`): a session is made with
/// it (`com.atproto.server.createSession`), which proves the password is the account's, and nothing else is asked.
/// The person signs in as themselves this way too: a handle alone proves nothing of who set it.
public enum BlueskyAccountSignIn {
    /// Signs `account` in at `service` as `handle` with `appPassword`; the variables to set are its handle and app
    /// password. Throws `AuthorizationRefused` when Bluesky refuses them.
    public static func signIn(_ account: Account, service: URL, handle: String, appPassword: String, logger: Logger) async throws -> AuthorizedAccount
    {
        let bare = (handle.hasPrefix("@") ? String(handle.dropFirst()) : handle).lowercased()
        let client = BlueskyClient(
            configuration: .init(service: service, accounts: [account: BlueskyAccess(handle: bare, appPassword: appPassword)]),
            sessionStore: InMemoryBlueskySessions(), clock: SystemBotClock(), logger: logger)
        let session: BlueskySession
        do {
            session = try await client.session(of: account)
        } catch let error as BlueskyAPIError {
            switch error {
            case .loginRefused(_, let detail), .unauthorized(_, _, let detail):
                throw AuthorizationRefused(
                    "Bluesky refuses this app password for @\(bare) (\(detail)): make one in Settings → Privacy and security → App passwords, logged in as @\(bare), and give it"
                )
            default:
                throw AuthorizationRefused("Bluesky at \(service.absoluteString) did not sign @\(bare) in (\(error)): try again")
            }
        }
        let prefix = account.environmentPrefix
        return AuthorizedAccount(
            handle: session.handle, userID: session.did, networkAccount: session.did,
            variables: [(prefix + "BLUESKY_HANDLE", session.handle), (prefix + "BLUESKY_APP_PASSWORD", appPassword)])
    }
}
