public import BotCore
public import Foundation
public import HTTPCore

/// What went wrong talking to a Mastodon instance, as a sentence a user can act on.
public enum MastodonAPIError: Error, Sendable, CustomStringConvertible {
    /// 401: the token is wrong, revoked or expired.
    case unauthorized(account: Account, endpoint: String, detail: String)
    /// 403: the token lacks a scope, or the account may not do this.
    case forbidden(account: Account, endpoint: String, detail: String)
    /// 404: no such status or account, or one the account may not see.
    case notFound(endpoint: String)
    /// Any other 4xx (422: the status was not accepted), with the instance's words.
    case rejected(endpoint: String, status: Int, detail: String)
    /// An OAuth endpoint's refusal (RFC 6749's error pair, as `/oauth/token` and `/oauth/revoke` answer): `error` is the
    /// code (`invalid_grant`, `invalid_client`, `invalid_request`, …), `description` the instance's sentence.
    case oauthRefused(endpoint: String, status: Int, error: String, description: String)
    /// 429 that could not be waited out.
    case rateLimited(endpoint: String, resetsAt: Date?)
    /// 5xx after the retries.
    case serverError(endpoint: String, status: Int, attempts: Int)
    /// No answer after the retries.
    case transport(endpoint: String, reason: String, attempts: Int)
    /// A create was sent without an idempotency key and its answer lost: it may or may not have been made.
    case outcomeUnknown(endpoint: String, reason: String)
    /// An answer that is not what the reference says.
    case malformedResponse(endpoint: String, reason: String)
    /// No instance and token are configured for the account.
    case notConfigured(account: Account)

    /// The sentence for logs.
    public var description: String {
        switch self {
        case .unauthorized(let account, let endpoint, let detail):
            "The \(account)'s Mastodon token was refused by \(endpoint) (401: \(detail)). Create a new token in Preferences → Development and set it."
        case .forbidden(let account, let endpoint, let detail):
            "Mastodon refused \(endpoint) to the \(account) (403: \(detail)). Check the token's scopes (docs/mastodon.md)."
        case .notFound(let endpoint): "Mastodon answered \(endpoint) with 404: not there, or not visible to this account."
        case .rejected(let endpoint, let status, let detail): "Mastodon answered \(endpoint) with HTTP \(status): \(detail)."
        case .oauthRefused(let endpoint, let status, let error, let description):
            "Mastodon refused \(endpoint) (HTTP \(status), \(error)): \(description)"
        case .rateLimited(let endpoint, let resetsAt):
            "Mastodon rate-limited \(endpoint)" + (resetsAt.map { " until \($0.formatted(.iso8601))" } ?? "") + "."
        case .serverError(let endpoint, let status, let attempts): "Mastodon answered \(endpoint) with HTTP \(status) \(attempts) times."
        case .transport(let endpoint, let reason, let attempts): "Mastodon's \(endpoint) did not answer after \(attempts) attempts: \(reason)."
        case .outcomeUnknown(let endpoint, let reason):
            "\(endpoint)'s answer was lost (\(reason)): it may or may not have been made, so it was not sent again."
        case .malformedResponse(let endpoint, let reason): "Mastodon's answer to \(endpoint) was not valid: \(reason)."
        case .notConfigured(let account): "No Mastodon instance and token are set for the \(account)."
        }
    }
}

/// The core's decisions, named by this client's own cases.
extension MastodonAPIError: HTTPCallFailureNaming {}
