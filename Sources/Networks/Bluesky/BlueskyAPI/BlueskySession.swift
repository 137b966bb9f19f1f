public import BotClock
public import BotCore
public import Foundation

/// A logged-in account's session: who it is, its access and refresh tokens, and its PDS (where its requests go).
/// Kept in the bot's store between runs: `createSession` is limited to 30 per 5 minutes and 300 a day per account,
/// so a start renews the stored session (`refreshSession`) instead of logging in again.
public struct BlueskySession: Codable, Sendable, Equatable {
    /// The account's DID (`did:plc:…`).
    public var did: String
    /// Its handle, without the @.
    public var handle: String
    /// The access token, sent with each request (short-lived).
    public var accessJwt: String
    /// The refresh token, sent only to `refreshSession` (single use: each renewal gives a new one).
    public var refreshJwt: String
    /// The account's PDS, from its DID document; nil: the service it logged in at.
    public var pds: URL?
    /// For a session made by atproto OAuth (the person's sign-in): the tokens are DPoP-bound to this key and renewed at
    /// this authorization server. Nil for an app password's session.
    public var oauth: OAuthBinding?

    /// A session from its parts.
    public init(did: String, handle: String, accessJwt: String, refreshJwt: String, pds: URL?, oauth: OAuthBinding? = nil) {
        self.did = did
        self.handle = handle
        self.accessJwt = accessJwt
        self.refreshJwt = refreshJwt
        self.pds = pds
        self.oauth = oauth
    }

    /// What an OAuth session is bound to: the authorization server that renews it, the client it was given to, and the
    /// DPoP key its tokens need (kept sealed with the rest of the session).
    public struct OAuthBinding: Codable, Sendable, Equatable {
        /// The authorization server.
        public var issuer: String
        /// Its token endpoint, where the refresh token is spent.
        public var tokenEndpoint: URL
        /// The `client_id` the grant was given to: the loopback one, or the front door's metadata address.
        public var clientID: String
        /// A confidential client's signing key (`ConfidentialClient.rawKey`), which every renewal needs; nil for the
        /// loopback client.
        public var clientKey: String?
        /// The scope granted.
        public var scope: String
        /// The DPoP private key, `DPoPKey.rawRepresentation`.
        public var dpopKey: String
        /// When the person signed in (nil: kept before this was recorded).
        public var signedInAt: Date?
        /// When the tokens were last renewed (nil: not since the sign-in).
        public var renewedAt: Date?

        /// A binding from its parts.
        public init(
            issuer: String, tokenEndpoint: URL, clientID: String, clientKey: String? = nil, scope: String, dpopKey: String, signedInAt: Date? = nil
        ) {
            self.issuer = issuer
            self.tokenEndpoint = tokenEndpoint
            self.clientID = clientID
            self.clientKey = clientKey
            self.scope = scope
            self.dpopKey = dpopKey
            self.signedInAt = signedInAt
        }

        /// The longest a loopback (public) client's sign-in lives on Bluesky's reference authorization server, and how
        /// long it may go unrenewed; a confidential client's live far longer (the web front door's).
        public static let publicClientLifetime: TimeInterval = 7 * 86_400, publicClientIdleLimit: TimeInterval = 2 * 86_400

        /// Whether, at `now`, the sign-in is past either limit (an hour of leeway): a refusal then is its lapse, not
        /// the person's withdrawal.
        public func isPastLimits(at now: Date) -> Bool {
            let leeway: TimeInterval = 3_600
            if let signedInAt, now >= signedInAt.addingTimeInterval(limits.lifetime - leeway) { return true }
            if let last = renewedAt ?? signedInAt, now >= last.addingTimeInterval(limits.idle - leeway) { return true }
            return false
        }

        /// When the sign-in lapses at the latest, if known.
        public var lapsesBy: Date? { signedInAt.map { $0.addingTimeInterval(limits.lifetime) } }

        /// The server's limits on this client's grant: a confidential client's, or a loopback client's.
        var limits: (lifetime: TimeInterval, idle: TimeInterval) {
            clientKey == nil
                ? (Self.publicClientLifetime, Self.publicClientIdleLimit) : (ConfidentialClient.lifetime, ConfidentialClient.idleLimit)
        }
    }
}

/// Where sessions are kept between runs (the bot's state store, in the network module).
public protocol BlueskySessionStore: Sendable {
    /// The stored session of `account`, if any.
    func session(of account: Account) async throws -> BlueskySession?
    /// Stores `session` as `account`'s (nil forgets it).
    func save(_ session: BlueskySession?, of account: Account) async throws
    /// Renews `stale` by `renew` and stores what it gives, one renewal at a time among every client on this store: a
    /// refresh token works once, and the second to spend it is refused (on some servers the grant ends with it). When
    /// another renewed it first, its session, without renewing again. `clock` paces the wait for another's renewal.
    func renew(
        _ account: Account, replacing stale: BlueskySession, clock: any BotClock,
        by renew: @escaping @Sendable (BlueskySession) async throws -> BlueskySession
    ) async throws -> BlueskySession
}

extension BlueskySessionStore {
    /// A store that only this client uses: the stored session when it was renewed already, else a renewal, stored.
    public func renew(
        _ account: Account, replacing stale: BlueskySession, clock: any BotClock,
        by renew: @escaping @Sendable (BlueskySession) async throws -> BlueskySession
    ) async throws -> BlueskySession {
        if let stored = try await session(of: account), stored.refreshJwt != stale.refreshJwt { return stored }
        let renewed = try await renew(stale)
        try await save(renewed, of: account)
        return renewed
    }
}

/// Sessions kept in memory only: a one-shot command without a store, and tests.
public actor InMemoryBlueskySessions: BlueskySessionStore {
    private var sessions: [Account: BlueskySession] = [:]

    /// An empty store.
    public init() {}

    /// The session of `account`.
    public func session(of account: Account) -> BlueskySession? { sessions[account] }
    /// Keeps `session` for `account`.
    public func save(_ session: BlueskySession?, of account: Account) { sessions[account] = session }
}

/// The output of `createSession` and `refreshSession`.
public struct SessionOutput: Decodable, Sendable {
    /// The access token.
    public var accessJwt: String
    /// The refresh token.
    public var refreshJwt: String
    /// The handle.
    public var handle: String
    /// The DID.
    public var did: String
    var didDoc: DIDDocument?
    /// False when the account cannot act (taken down, deactivated).
    public var active: Bool?
    /// Why not, when it cannot.
    public var status: String?

    /// The session it gives; the PDS named by the DID document, when it names one.
    public var session: BlueskySession {
        BlueskySession(did: did, handle: handle, accessJwt: accessJwt, refreshJwt: refreshJwt, pds: didDoc?.pds)
    }
}

/// The parts of a DID document the bot reads: its services, the PDS among them.
public struct DIDDocument: Decodable, Sendable {
    struct Service: Decodable, Sendable {
        var id: String
        var type: String?
        var serviceEndpoint: String?
    }
    var service: [Service]?
    var alsoKnownAs: [String]?

    /// Whether the document claims `handle` (`at://<handle>` among its `alsoKnownAs`): the handle's way back to the DID.
    public func claims(handle: String) -> Bool { alsoKnownAs?.contains { $0.lowercased() == "at://\(handle.lowercased())" } ?? false }

    /// The `#atproto_pds` service's https endpoint (plain http only on this machine, for tests).
    public var pds: URL? {
        guard let endpoint = service?.first(where: { $0.id.hasSuffix("#atproto_pds") })?.serviceEndpoint,
            let url = URL(string: endpoint), let host = url.host
        else { return nil }
        let loopback = host == "localhost" || host == "127.0.0.1" || host == "::1"
        return url.scheme == "https" || (url.scheme == "http" && loopback) ? url : nil
    }
}
