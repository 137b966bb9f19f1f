public import BlueskyAPI
public import BotClock
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
    /// Whether a redirect's query is this sign-in's answer (it carries its `state`); others are not, and are ignored.
    public func isAnswer(_ redirectQuery: [String: String]) -> Bool { redirectQuery["state"] == authorization.state }
    let did: String
    let pds: URL
    /// The account signing in: the person, or (from the front door) the bot.
    let account: Account
    /// Where the handle was resolved: the service the mirror then uses.
    let service: URL
    let key: DPoPKey
    let authorization: BlueskyOAuth.Authorization
    let oauth: BlueskyOAuth
    /// The time the proofs and the sign-in are stamped with.
    let clock: any BotClock
    let logger: Logger

    /// What the person grants: who they are (`atproto`) and, unless `liking` is false, reading their likes.
    public static func scope(liking: Bool) -> String { liking ? "atproto rpc:app.bsky.feed.getActorLikes?aud=*" : "atproto" }
    /// What the bot's account grants: what an app password allows (posting, replying, liking, reading).
    public static let botScope = "atproto transition:generic"

    /// Starts the sign-in of `handle`, resolved at `service`, coming back to `redirectURI` (a `LoopbackRedirect`'s, or
    /// with a confidential `client`, the front door's) with `state` (a new one unless given); `account` is the person
    /// unless the bot's account signs in (the front door's); `publicOnly` (a door on the internet) refuses servers that
    /// are not `https` on a public host. Throws `AuthorizationRefused` saying what failed.
    public static func begin(
        handle: String, service: URL, liking: Bool, redirectURI: String, plcDirectory: URL? = nil, account: Account = .human,
        client: ConfidentialClient? = nil, state: String? = nil, publicOnly: Bool = false, clock: any BotClock = SystemBotClock(),
        logger: Logger
    ) async throws -> BlueskyOAuthSignIn {
        let bare = (handle.hasPrefix("@") ? String(handle.dropFirst()) : handle).lowercased()
        let oauth = BlueskyOAuth(publicOnly: publicOnly)
        let (did, pds) = try await resolve(
            bare, at: service, plcDirectory: plcDirectory ?? defaultDirectory(for: service), oauth: oauth,
            clock: clock, logger: logger)
        let key = DPoPKey()
        do {
            let server = try await oauth.server(for: pds)
            let authorization = try await oauth.authorize(
                at: server, handle: bare, scope: account == .bot ? botScope : scope(liking: liking), redirectURI: redirectURI, key: key,
                now: clock.now(), client: client, state: state)
            return BlueskyOAuthSignIn(
                handle: bare, did: did, pds: pds, account: account, service: service, key: key, authorization: authorization, oauth: oauth,
                clock: clock, logger: logger)
        } catch let error as BlueskyOAuthError {
            throw AuthorizationRefused("@\(bare)'s server (\(pds.absoluteString)) did not start the sign-in: \(error)")
        }
    }

    /// What the person is told once signed in at `now`: how long the sign-in lasts, and what happens when it lapses.
    public static func lifetimeNote(from now: Date) -> String {
        let lapse = now.addingTimeInterval(BlueskySession.OAuthBinding.publicClientLifetime)
        return """
            This sign-in lasts until \(lapse.formatted(.iso8601)) at most: Bluesky keeps the sign-in of an app without a hosted \
            address for a week, and two days unused. When it lapses, the mirror pauses, keeping everything, until the person \
            runs this command again. For a mirror that runs on, the person can make an app password instead \
            (`mirror_bot auth bluesky --account human --with-app-password`): deleting it ends the mirror.
            """
    }

    /// Where `did:plc:` documents are read: the PLC directory, or a test network's own service.
    static func defaultDirectory(for service: URL) -> URL {
        service == BlueskyClient.Configuration.entryway ? URL(string: "https://plc.directory")! : service
    }

    /// The DID and PDS of `handle`: `com.atproto.identity.resolveIdentity` (the handle and DID verified both ways by
    /// the service); where the service does not serve it, `resolveHandle` then the DID document (from the PLC directory,
    /// or the host of a `did:web`), which must claim the handle back (`alsoKnownAs`).
    static func resolve(
        _ handle: String, at service: URL, plcDirectory: URL, oauth: BlueskyOAuth, clock: any BotClock,
        logger: Logger
    ) async throws -> (did: String, pds: URL) {
        let resolver = BlueskyClient(
            configuration: .init(service: service, accounts: [:]), sessionStore: InMemoryBlueskySessions(), clock: clock,
            logger: logger)
        let where_ = resolver.configuration.publicAppView.absoluteString
        let unknown = AuthorizationRefused("No Bluesky account has the handle @\(handle) (asked at \(where_)): check the handle")
        func unresolved(_ error: any Error) -> AuthorizationRefused {
            AuthorizationRefused("@\(handle) could not be resolved at \(where_) (\(error)): try again")
        }
        func noPDS(_ did: String) -> AuthorizationRefused {
            AuthorizationRefused("@\(handle)'s DID document (\(did)) names no PDS: the account cannot sign in")
        }
        do {
            let identity = try await resolver.send(ResolveIdentity(identifier: handle), as: nil)
            guard let pds = identity.didDoc?.pds else { throw noPDS(identity.did) }
            return (identity.did, pds)
        } catch let error as BlueskyAPIError where error.isUnknownHandle {
            throw unknown
        } catch let error as BlueskyAPIError where error.isNotServed {
            logger.info("\(where_) does not serve resolveIdentity (\(error)); resolving @\(handle) by resolveHandle and its DID document")
        } catch let refused as AuthorizationRefused {
            throw refused
        } catch {
            throw unresolved(error)
        }
        let did: String?
        do { did = try await resolver.did(ofHandle: handle) } catch { throw unresolved(error) }
        guard let did else { throw unknown }
        let document: DIDDocument
        do { document = try await oauth.didDocument(of: did, plcDirectory: plcDirectory) } catch {
            throw AuthorizationRefused("@\(handle)'s DID document (\(did)) could not be read: \(error)")
        }
        guard document.claims(handle: handle) else {
            throw AuthorizationRefused(
                "@\(handle) points to \(did), whose DID document does not claim the handle back: it is not verified, and cannot sign in")
        }
        guard let pds = document.pds else { throw noPDS(did) }
        return (did, pds)
    }

    /// Finishes with the query the browser came back with: the session to keep (sealed) and the values to set.
    public func finish(redirectQuery: [String: String]) async throws -> (AuthorizedAccount, BlueskySession) {
        let tokens: BlueskyOAuth.Tokens
        do {
            tokens = try await oauth.finish(authorization, redirectQuery: redirectQuery, key: key, now: clock.now())
        } catch let error as BlueskyOAuthError {
            if case .refused(_, _, "access_denied", _) = error { throw AuthorizationRefused("The sign-in was denied on the page: nothing is kept") }
            throw AuthorizationRefused("The sign-in did not finish: \(error)")
        }
        // The account that signed in must be the one the handle names: a person signing in as someone else is refused.
        guard tokens.sub == did else {
            // Not kept, and not left live either: the grant of the account that signed in is revoked.
            let revoked = await oauth.revoke(
                tokens.refreshToken ?? tokens.accessToken, clientID: authorization.clientID, at: authorization.server, key: key, now: clock.now(),
                client: authorization.client)
            if !revoked { logger.warning("the tokens given to \(tokens.sub) could not be revoked: they lapse on their own") }
            throw AuthorizationRefused("The page was signed in as \(tokens.sub), not as @\(handle) (\(did)): sign in on the page as @\(handle)")
        }
        guard let refreshToken = tokens.refreshToken else { throw AuthorizationRefused("The server gave no refresh token: the sign-in cannot last") }
        let binding = BlueskySession.OAuthBinding(
            issuer: authorization.server.issuer, tokenEndpoint: authorization.server.tokenEndpoint,
            clientID: authorization.clientID, clientKey: authorization.client?.rawKey, scope: tokens.scope, dpopKey: key.rawRepresentation,
            signedInAt: clock.now())
        let session = BlueskySession(did: did, handle: handle, accessJwt: tokens.accessToken, refreshJwt: refreshToken, pds: pds, oauth: binding)
        let prefix = account.environmentPrefix
        var variables = [(prefix + "BLUESKY_HANDLE", handle), (prefix + "BLUESKY_SIGN_IN", "oauth")]
        if service != BlueskyClient.Configuration.entryway { variables.insert(("BLUESKY_SERVICE_URL", service.absoluteString), at: 0) }
        let (account, oauth, authorization, key, clock) = (account, oauth, authorization, key, clock)
        let authorized = AuthorizedAccount(
            handle: handle, userID: did, networkAccount: did, variables: variables,
            keeping: { state, sealer in try await StoredBlueskySessions(state: state, sealer: sealer).save(session, of: account) },
            release: {
                await oauth.revoke(
                    refreshToken, clientID: authorization.clientID, at: authorization.server, key: key, now: clock.now(), client: authorization.client
                )
            })
        return (authorized, session)
    }
}
