import BlueskyAPI
import BotClock
import BotConfiguration
public import BotCore
public import Foundation
public import Logging
public import SocialNetwork

/// Signing in on Bluesky from the front door: atproto OAuth with the door as a confidential web client. The door
/// serves the client's metadata (`/oauth/client-metadata.json`, its `client_id`) and key set (`/oauth/jwks.json`);
/// the key is derived from the door's secret, so it survives restarts and needs no file. Each account is resolved
/// from the handle the person types, its PDS's authorization server gets a pushed request (PKCE, DPoP, the client's
/// signed assertion, the door's `state`), and the code the browser brings back is exchanged for tokens whose `sub`
/// must be the handle's DID. The person grants who they are and reading their likes; the bot's account what an app
/// password would allow. The sessions are kept in the mirror's store, sealed, and renewed there by the same client.
public struct BlueskyWebSignIn: WebSignIn {
    /// The door's client; nil until the flow is placed at a door.
    let client: ConfidentialClient?
    /// Where handles are resolved (`BLUESKY_SERVICE_URL`, else Bluesky's entryway).
    let service: URL
    let door: WebDoor?

    /// The flow before it is placed at a door (`at(_:)`).
    public init() {
        client = nil
        service = BlueskyClient.Configuration.entryway
        door = nil
    }

    init(door: WebDoor) {
        self.door = door
        client = ConfidentialClient(clientID: Self.metadataURL(of: door).absoluteString, seed: door.secret)
        var reader = EnvironmentReader(environment: door.environment)
        service = BlueskyNetworkSettings(reading: &reader).service
    }

    /// The path of the client metadata document at the door.
    public static let metadataPath = "oauth/client-metadata.json"
    /// The path of the client's key set at the door.
    public static let keySetPath = "oauth/jwks.json"

    static func metadataURL(of door: WebDoor) -> URL { door.publicURL.appending(path: metadataPath) }

    /// The flow with `door`'s client.
    public func at(_ door: WebDoor) -> (any WebSignIn)? { BlueskyWebSignIn(door: door) }

    /// A handle, as an example: on Bluesky a person signs in with their handle, not a server's name.
    public var serverExample: String? { "alice.bsky.social" }

    /// The client metadata document and the key set, at the door's address.
    public var documents: [WebDocument] {
        guard let client, let door else { return [] }
        let scope = "atproto transition:generic rpc:app.bsky.feed.getActorLikes?aud=*"
        return [
            WebDocument(
                path: Self.metadataPath,
                body: client.metadata(
                    name: "mirror_bot", home: door.publicURL, redirectURI: door.callback.absoluteString, scope: scope,
                    keySetURI: door.publicURL.appending(path: Self.keySetPath).absoluteString)),
            WebDocument(path: Self.keySetPath, body: client.keySet),
        ]
    }

    /// Starts `account`'s sign-in as the handle typed in `server`, the browser to come back to `redirect` with `state`.
    public func begin(for account: Account, server: String, redirect: URL, state: String, logger: Logger) async throws -> any PendingAuthorization {
        guard let client else { throw AuthorizationRefused("This door is not set up for Bluesky's sign-in: its operator sets PUBLIC_URL") }
        let typed = server.trimmingCharacters(in: .whitespacesAndNewlines)
        let handle = typed.hasPrefix("@") ? String(typed.dropFirst()) : typed
        guard RichText.isHandle(handle.lowercased()) else {
            throw AuthorizationRefused(
                "\(typed.isEmpty ? "no handle" : typed) is not a Bluesky handle: give \(account == .bot ? "the bot's" : "yours"), such as alice.bsky.social"
            )
        }
        let signIn = try await BlueskyOAuthSignIn.begin(
            handle: handle, service: service, liking: true, redirectURI: redirect.absoluteString, account: account, client: client, state: state,
            publicOnly: door?.publicURL.scheme == "https", clock: door?.clock ?? SystemBotClock(), logger: logger)
        return Pending(signIn: signIn)
    }

    /// A sign-in under way at Bluesky's page.
    struct Pending: PendingAuthorization {
        let signIn: BlueskyOAuthSignIn
        var address: URL { signIn.address }

        /// Only the whole callback finishes it (its `iss` is checked).
        func finish(code: String) async throws -> AuthorizedAccount {
            throw AuthorizationRefused("Bluesky's sign-in finishes with the page's whole answer: start again")
        }

        func finish(callback query: [String: String]) async throws -> AuthorizedAccount {
            try await signIn.finish(redirectQuery: query).0
        }
    }
}
