public import BlueskyAPI
import BotClock
public import BotCore
public import Foundation
public import Logging
public import SocialNetwork

/// The person signing in on Bluesky with atproto OAuth (`mirror_bot auth bluesky --account human`), in their own
/// browser, without giving the mirror a password: their handle resolved to their DID and PDS
/// (`com.atproto.identity.resolveIdentity`), the PDS's authorization server, a pushed request with PKCE and a DPoP key
/// made for this mirror, their sign-in on the server's own page, and the code exchanged for tokens whose `sub` must be
/// the DID their handle resolved to. What it gives is a session to keep sealed in the store (the DPoP key with it),
/// renewed at the authorization server, and revoked there when the person takes the app's access back.
public struct BlueskyOAuthSignIn: Sendable {
    /// The address the person opens to sign in.
    public var address: URL { authorization.address }
    /// The handle signing in.
    public let handle: String
    let did: String
    let pds: URL
    let key: DPoPKey
    let authorization: BlueskyOAuth.Authorization
    let oauth: BlueskyOAuth

    /// What the person grants: who they are (`atproto`) and, unless `liking` is false, reading their likes.
    public static func scope(liking: Bool) -> String { liking ? "atproto rpc:app.bsky.feed.getActorLikes?aud=*" : "atproto" }

    /// Starts the sign-in of `handle`, resolved at `service`, coming back to `redirectURI` (a `LoopbackRedirect`'s).
    /// Throws `AuthorizationRefused` saying what failed.
    public static func begin(handle: String, service: URL, liking: Bool, redirectURI: String, logger: Logger) async throws -> BlueskyOAuthSignIn {
        let bare = (handle.hasPrefix("@") ? String(handle.dropFirst()) : handle).lowercased()
        let resolver = BlueskyClient(configuration: .init(service: service, accounts: [:]), sessionStore: InMemoryBlueskySessions(), clock: SystemBotClock(),
                                     logger: logger)
        let identity: ResolveIdentity.Output
        do {
            identity = try await resolver.send(ResolveIdentity(identifier: bare), as: nil)
        } catch let error as BlueskyAPIError where error.isNotFound {
            throw AuthorizationRefused("No Bluesky account has the handle @\(bare) (asked at \(service.absoluteString)): check the handle")
        } catch {
            throw AuthorizationRefused("@\(bare) could not be resolved at \(service.absoluteString) (\(error)): try again")
        }
        guard let pds = identity.didDoc?.pds else {
            throw AuthorizationRefused("@\(bare)'s DID document (\(identity.did)) names no PDS: the account cannot sign in")
        }
        let oauth = BlueskyOAuth()
        let key = DPoPKey()
        do {
            let server = try await oauth.server(for: pds)
            let authorization = try await oauth.authorize(at: server, handle: bare, scope: scope(liking: liking), redirectURI: redirectURI, key: key, now: Date())
            return BlueskyOAuthSignIn(handle: bare, did: identity.did, pds: pds, key: key, authorization: authorization, oauth: oauth)
        } catch let error as BlueskyOAuthError {
            throw AuthorizationRefused("@\(bare)'s server (\(pds.absoluteString)) did not start the sign-in: \(error)")
        }
    }

    /// Finishes with the query the browser came back with: the session to keep (sealed) and the values to set.
    public func finish(redirectQuery: [String: String]) async throws -> (AuthorizedAccount, BlueskySession) {
        let tokens: BlueskyOAuth.Tokens
        do {
            tokens = try await oauth.finish(authorization, redirectQuery: redirectQuery, key: key, now: Date())
        } catch let error as BlueskyOAuthError {
            if case .refused(_, _, "access_denied", _) = error { throw AuthorizationRefused("The sign-in was denied on the page: nothing is kept") }
            throw AuthorizationRefused("The sign-in did not finish: \(error)")
        }
        // The account that signed in must be the one the handle names: a person signing in as someone else is refused.
        guard tokens.sub == did else {
            throw AuthorizationRefused("The page was signed in as \(tokens.sub), not as @\(handle) (\(did)): sign in on the page as @\(handle)")
        }
        guard let refreshToken = tokens.refreshToken else { throw AuthorizationRefused("The server gave no refresh token: the sign-in cannot last") }
        let binding = BlueskySession.OAuthBinding(issuer: authorization.server.issuer, tokenEndpoint: authorization.server.tokenEndpoint,
                                                  clientID: authorization.clientID, scope: tokens.scope, dpopKey: key.rawRepresentation)
        let session = BlueskySession(did: did, handle: handle, accessJwt: tokens.accessToken, refreshJwt: refreshToken, pds: pds, oauth: binding)
        let authorized = AuthorizedAccount(handle: handle, userID: did, networkAccount: did,
                                           variables: [("HUMAN_BLUESKY_HANDLE", handle), ("HUMAN_BLUESKY_SIGN_IN", "oauth")])
        return (authorized, session)
    }
}
