public import BotCore
import Crypto
public import Foundation
import Synchronization

/// What X refused for good, so that it is not asked again and again: a token revoked (401), credits exhausted (402),
/// a usage cap spent (429 usage-capped), an endpoint the app may not use (403). Each refusal stops that kind of
/// call without a request until its recheck: an hour later, or a day for a capability the app is not enrolled for
/// (403 client-forbidden, such as likes for self-serve apps), which is also stored so a restart does not ask again.
public final class XRefusals: Sendable {
    /// One refusal and what it covers.
    public struct Refusal: Sendable, Codable, Equatable {
        /// Why X refused.
        public enum Kind: String, Sendable, Codable {
            /// 403 client-forbidden / client-not-enrolled: the app's access level lacks the endpoint family.
            case notEnrolled
            /// 401: the account's tokens are wrong or revoked.
            case credentials
            /// 402: the app's prepaid credits are spent.
            case credits
            /// 429 usage-capped: the app's usage cap for the period is spent.
            case usageCap
            /// Another 403: the app or token may not use this endpoint (read-only tokens, for example).
            case forbidden
        }

        /// What the refusal covers.
        public enum Scope: Sendable, Codable, Equatable {
            /// Every call the account makes.
            case account
            /// The endpoints of a capability.
            case capability(XCapability)
            /// One endpoint.
            case endpoint(String)
        }

        /// Why.
        public var kind: Kind
        /// The account refused.
        public var account: String
        /// What is covered.
        public var scope: Scope
        /// The endpoint that was refused.
        public var endpoint: String
        /// What X said.
        public var detail: String
        /// When X first refused.
        public var since: Date
        /// When one call is let through to check again.
        public var recheckAt: Date
        /// A fingerprint of the app (consumer key) it was refused to: a new app is asked afresh.
        public var app: String

        /// Whether it covers a call of `endpoint` (of `capability`) as `account`.
        public func covers(endpoint name: String, capability: XCapability?, account: Account) -> Bool {
            guard self.account == account.rawValue else { return false }
            switch scope {
            case .account: return true
            case .capability(let refused): return capability == refused
            case .endpoint(let refused): return refused == name
            }
        }

        /// What is refused, in words: "every call as the bot", "likes as the bot", "POST /2/tweets as the bot".
        public var subject: String {
            switch scope {
            case .account: "every call as the \(account)"
            case .capability(let capability): "\(capability.rawValue) as the \(account)"
            case .endpoint(let endpoint): "\(endpoint) as the \(account)"
            }
        }

        /// What the user can do about it.
        public var remedy: String {
            switch kind {
            case .notEnrolled:
                "the app's X access level does not include this (self-serve pay-per-use apps have no likes since 2026-04-20); set LIKES=off to stop asking, or use an app enrolled for it"
            case .credentials:
                "regenerate the \(account) account's tokens in the X developer portal and set the four \(account.uppercased())_* variables"
            case .credits:
                "add credits in the X developer console (or turn on auto-recharge)"
            case .usageCap:
                "wait for the cap period to renew, or raise the cap in the X developer console"
            case .forbidden:
                "check the app's permissions (Read and write) in the X developer portal, then regenerate the tokens"
            }
        }
    }

    /// Delay before a refused call is tried once more.
    public static let recheckInterval: TimeInterval = 3_600
    /// Delay before a capability refusal (not enrolled) is tried once more.
    public static let capabilityRecheckInterval: TimeInterval = 86_400

    private let refusals = Mutex<[Refusal]>([])

    /// No refusals.
    public init() {}

    /// A short, stable fingerprint of an app's consumer key (the key itself is never stored).
    public static func appFingerprint(_ consumerKey: String) -> String {
        SHA256.hash(data: Data(consumerKey.utf8)).prefix(6).map { String(format: "%02x", $0) }.joined()
    }

    /// The refusal covering a call, if any.
    public func refusal(for endpoint: String, capability: XCapability?, account: Account) -> Refusal? {
        refusals.withLock { $0.first { $0.covers(endpoint: endpoint, capability: capability, account: account) } }
    }

    /// The refusal of a capability for `account`, if any.
    public func refusal(of capability: XCapability, account: Account) -> Refusal? {
        refusals.withLock { $0.first { $0.account == account.rawValue && $0.scope == .capability(capability) } }
    }

    /// Every refusal.
    public var all: [Refusal] { refusals.withLock { $0 } }

    /// The capability refusals: the ones to store.
    public var lasting: [Refusal] { all.filter { $0.kind == .notEnrolled } }

    /// Records a refusal; returns true when it is new (false when it only moves the recheck of one already known).
    @discardableResult
    public func record(_ refusal: Refusal) -> Bool {
        refusals.withLock { refusals in
            if let index = refusals.firstIndex(where: { $0.account == refusal.account && $0.scope == refusal.scope }) {
                let since = refusals[index].since
                refusals[index] = refusal
                refusals[index].since = since
                return false
            }
            refusals.append(refusal)
            return true
        }
    }

    /// Forgets a refusal (X accepted the call again); returns it when there was one.
    @discardableResult
    public func clear(account: Account, scope: Refusal.Scope) -> Refusal? {
        refusals.withLock { refusals in
            guard let index = refusals.firstIndex(where: { $0.account == account.rawValue && $0.scope == scope }) else { return nil }
            return refusals.remove(at: index)
        }
    }

    /// Adopts stored refusals (from an earlier run) made to the same apps; refusals to other apps are dropped.
    public func restore(_ stored: [Refusal], apps: [Account: String]) {
        let kept = stored.filter { refusal in Account(rawValue: refusal.account).map { apps[$0] == refusal.app } ?? false }
        refusals.withLock { refusals in
            for refusal in kept where !refusals.contains(where: { $0.account == refusal.account && $0.scope == refusal.scope }) {
                refusals.append(refusal)
            }
        }
    }

    /// The refusal an error answer means, if it is one that asking again would not change; nil for per-call
    /// failures (a duplicate, a restricted reply, a rate limit, a 5xx).
    static func refusal(
        status: Int, problem: XProblem?, endpoint: String, capability: XCapability?, account: Account, app: String,
        at now: Date
    ) -> Refusal? {
        let type = problem?.type ?? ""
        let detail = problem?.description ?? "HTTP \(status)"
        func make(_ kind: Refusal.Kind, _ scope: Refusal.Scope, after delay: TimeInterval = recheckInterval) -> Refusal {
            Refusal(
                kind: kind, account: account.rawValue, scope: scope, endpoint: endpoint, detail: detail, since: now,
                recheckAt: now.addingTimeInterval(delay), app: app)
        }
        switch status {
        case 401:
            return make(.credentials, .account)
        case 402:
            return make(.credits, .account)
        case 429 where type.hasSuffix("usage-capped") || problem?.kind == "usage-capped":
            return make(.usageCap, .account)
        case 403:
            if type.hasSuffix("/client-forbidden") || problem?.reason == "client-not-enrolled" {
                return make(.notEnrolled, capability.map(Refusal.Scope.capability) ?? .endpoint(endpoint), after: capabilityRecheckInterval)
            }
            let text = ((problem?.detail ?? "") + " " + (problem?.title ?? "")).lowercased()
            // Refusals of one post, not of the endpoint: a duplicate text, a conversation that does not take replies.
            if text.contains("duplicate content") || text.contains("reply") || text.contains("replies") { return nil }
            return make(.forbidden, .endpoint(endpoint))
        default:
            return nil
        }
    }
}

/// Where refusals that last (capabilities the app is not enrolled for) are kept across restarts.
public protocol XRefusalStore: Sendable {
    /// Stores `refusals`, replacing what was stored.
    func save(_ refusals: [XRefusals.Refusal]) async throws
}
