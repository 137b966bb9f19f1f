public import BotCore
public import Foundation
public import HTTPCore

/// What went wrong talking to Bluesky, as a sentence a user can act on.
public enum BlueskyAPIError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The app password was refused at login (`createSession` 401), or the account cannot log in.
    case loginRefused(account: Account, detail: String)
    /// A session the server no longer takes, and no new one could be made.
    case unauthorized(account: Account?, method: String, detail: String)
    /// 4xx with the server's error name (`InvalidRequest`, `RecordNotFound`…) and message.
    case rejected(method: String, status: Int, error: String?, message: String)
    /// 429 that could not be waited out.
    case rateLimited(method: String, resetsAt: Date?)
    /// 5xx after the retries.
    case serverError(method: String, status: Int, attempts: Int)
    /// No answer after the retries.
    case transport(method: String, reason: String, attempts: Int)
    /// A write that could not be repeated lost its answer: it may or may not have been made.
    case outcomeUnknown(method: String, reason: String)
    /// An answer that is not what the lexicon says.
    case malformedResponse(method: String, reason: String)
    /// No handle (or no app password, for what needs a session) is configured for the account.
    case notConfigured(account: Account, what: String)
    /// The account's OAuth grant is refused (revoked by its owner, or never kept here): only a new sign-in helps.
    case grantRefused(account: Account, detail: String)
    /// The account's OAuth sign-in ran out (the authorization server's limit on a sign-in's life or idleness, or its
    /// refresh token spent elsewhere): not taken back by its owner, but only a new sign-in helps.
    case grantLapsed(account: Account, detail: String)

    /// The sentence for logs.
    public var description: String {
        switch self {
        case .loginRefused(let account, let detail):
            "Bluesky refused the \(account)'s login (\(detail)). Make an app password in Settings → Privacy and security → App passwords and set it."
        case .unauthorized(let account, let method, let detail):
            "Bluesky refused \(method)\(account.map { " to the \($0)" } ?? "") (\(detail)); the stored session could not be renewed."
        case .rejected(let method, let status, let error, let message):
            "Bluesky answered \(method) with HTTP \(status)\(error.map { " \($0)" } ?? ""): \(message)."
        case .rateLimited(let method, let resetsAt):
            "Bluesky rate-limited \(method)" + (resetsAt.map { " until \($0.formatted(.iso8601))" } ?? "") + "."
        case .serverError(let method, let status, let attempts): "Bluesky answered \(method) with HTTP \(status) \(attempts) times."
        case .transport(let method, let reason, let attempts): "Bluesky's \(method) did not answer after \(attempts) attempts: \(reason)."
        case .outcomeUnknown(let method, let reason):
            "\(method)'s answer was lost (\(reason)): it may or may not have been made, so it was not sent again."
        case .malformedResponse(let method, let reason): "Bluesky's answer to \(method) was not valid: \(reason)."
        case .notConfigured(let account, let what): "No \(what) is set for the \(account)'s Bluesky account."
        case .grantRefused(let account, let detail):
            "Bluesky refuses the \(account)'s OAuth sign-in (\(detail)); `mirror_bot auth bluesky --account \(account.rawValue)` signs them in again."
        case .grantLapsed(let account, let detail):
            "The \(account)'s OAuth sign-in on Bluesky lapsed (\(detail)); `mirror_bot auth bluesky --account \(account.rawValue)` signs them in again."
        }
    }

    /// Whether a DPoP request was refused for want of the server's latest nonce (given with the refusal): sent again.
    var isNonceRequired: Bool {
        guard case .rejected(_, let status, let error, _) = self else { return false }
        return (status == 400 || status == 401) && error == "use_dpop_nonce"
    }

    /// Whether the server said the record or account asked for is not there (`RecordNotFound`, 404, a deleted post).
    public var isNotFound: Bool {
        guard case .rejected(_, let status, let error, _) = self else { return false }
        return status == 404 || ["RecordNotFound", "NotFound", "ProfileNotFound", "AccountNotFound"].contains(error ?? "")
    }

    /// Whether the service says no account has the handle asked for (`HandleNotFound`, "Unable to resolve handle").
    public var isUnknownHandle: Bool {
        guard case .rejected(_, let status, let error, let message) = self else { return false }
        return error == "HandleNotFound" || ((status == 400 || status == 404) && message.lowercased().contains("unable to resolve handle"))
    }

    /// Whether the service does not serve the method at all (501 `MethodNotImplemented`, or 404 naming no record):
    /// another way is tried.
    public var isNotServed: Bool {
        guard case .rejected(_, let status, let error, _) = self else { return false }
        return status == 501 || error == "MethodNotImplemented" || error == "XRPCNotSupported" || (status == 404 && error == nil)
    }

    /// Whether it is an access token the server no longer takes (`ExpiredToken`, `InvalidToken`): renewed with the
    /// refresh token, not a reason to log in again.
    var isExpiredSession: Bool {
        guard case .rejected(_, let status, let error, _) = self else { return false }
        return (status == 400 || status == 401) && ["ExpiredToken", "InvalidToken", "invalid_token"].contains(error ?? "")
    }
}

/// The core's decisions, in this client's own cases.
extension BlueskyAPIError: HTTPCallFailureNaming {
    /// No answer after `attempts` tries.
    public static func transport(endpoint: String, reason: String, attempts: Int) -> Self {
        .transport(method: endpoint, reason: reason, attempts: attempts)
    }
    /// A write that may or may not have been carried out.
    public static func outcomeUnknown(endpoint: String, reason: String) -> Self { .outcomeUnknown(method: endpoint, reason: reason) }
    /// 5xx after `attempts` tries.
    public static func serverError(endpoint: String, status: Int, attempts: Int) -> Self {
        .serverError(method: endpoint, status: status, attempts: attempts)
    }
    /// Rate-limited past what is waited for.
    public static func rateLimited(endpoint: String, resetsAt: Date?) -> Self { .rateLimited(method: endpoint, resetsAt: resetsAt) }
    /// A 2xx answer that could not be read.
    public static func malformedResponse(endpoint: String, reason: String) -> Self { .malformedResponse(method: endpoint, reason: reason) }
}

/// The body of an XRPC error: `{"error": "ExpiredToken", "message": "…"}`.
struct XRPCErrorBody: Decodable {
    var error: String?
    var message: String?
}
