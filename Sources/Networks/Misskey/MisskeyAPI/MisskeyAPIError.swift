public import BotCore
public import Foundation
public import HTTPCore

/// What went wrong talking to a Misskey instance, as a sentence a user can act on.
public enum MisskeyAPIError: Error, Sendable, CustomStringConvertible {
    /// 401 or 403 `AUTHENTICATION_FAILED`: the token is wrong or revoked.
    case unauthorized(account: Account, endpoint: String, detail: String)
    /// 403: the token lacks a permission, the account is suspended, or a role forbids it.
    case forbidden(account: Account, endpoint: String, code: String, detail: String)
    /// No such note or user (`NO_SUCH_NOTE`, `NO_SUCH_USER`), or one the account may not see.
    case notFound(endpoint: String, code: String)
    /// Any other refusal (400 and its code: `ALREADY_REACTED`, a text too long, …), with the instance's words.
    case rejected(endpoint: String, status: Int, code: String, detail: String)
    /// 429 `RATE_LIMIT_EXCEEDED` that could not be waited out.
    case rateLimited(endpoint: String, resetsAt: Date?)
    /// 5xx after the retries.
    case serverError(endpoint: String, status: Int, attempts: Int)
    /// No answer after the retries.
    case transport(endpoint: String, reason: String, attempts: Int)
    /// A create's answer was lost: it may or may not have been made (Misskey takes no idempotency key).
    case outcomeUnknown(endpoint: String, reason: String)
    /// An answer that is not what the reference says.
    case malformedResponse(endpoint: String, reason: String)
    /// No instance and token are configured for the account.
    case notConfigured(account: Account)

    /// The sentence for logs.
    public var description: String {
        switch self {
        case .unauthorized(let account, let endpoint, let detail):
            "The \(account)'s Misskey token was refused by \(endpoint) (\(detail)). Make a new one with `mirror_bot auth misskey --account \(account)` (or Settings → API) and set it."
        case .forbidden(let account, let endpoint, let code, let detail):
            "Misskey refused \(endpoint) to the \(account) (403 \(code): \(detail)). Check the token's permissions (docs/misskey.md)."
        case .notFound(let endpoint, let code): "Misskey answered \(endpoint) with \(code): not there, or not visible to this account."
        case .rejected(let endpoint, let status, let code, let detail): "Misskey answered \(endpoint) with HTTP \(status) \(code): \(detail)."
        case .rateLimited(let endpoint, let resetsAt):
            "Misskey rate-limited \(endpoint)" + (resetsAt.map { " until \($0.formatted(.iso8601))" } ?? "") + "."
        case .serverError(let endpoint, let status, let attempts): "Misskey answered \(endpoint) with HTTP \(status) \(attempts) times."
        case .transport(let endpoint, let reason, let attempts): "Misskey's \(endpoint) did not answer after \(attempts) attempts: \(reason)."
        case .outcomeUnknown(let endpoint, let reason):
            "\(endpoint)'s answer was lost (\(reason)): it may or may not have been made, so it was not sent again."
        case .malformedResponse(let endpoint, let reason): "Misskey's answer to \(endpoint) was not valid: \(reason)."
        case .notConfigured(let account): "No Misskey instance and token are set for the \(account)."
        }
    }

    /// The instance's error code, when it gave one.
    public var code: String? {
        switch self {
        case .forbidden(_, _, let code, _), .notFound(_, let code), .rejected(_, _, let code, _): code
        default: nil
        }
    }
}

/// The core's decisions, named by this client's own cases.
extension MisskeyAPIError: HTTPCallFailureNaming {}
