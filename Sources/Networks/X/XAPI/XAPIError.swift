public import BotCore
public import Foundation
public import HTTPCore

/// Why an X API call failed, as sentences that say what happened and what to do.
public enum XAPIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 401: the account's credentials were refused.
    case unauthorized(account: Account, endpoint: String, detail: String)
    /// 403 "You are not allowed to create a Tweet with duplicate content."
    case duplicateContent
    /// 429 whose problem type ends in `usage-capped`: the app's monthly or daily post cap is spent. Not retried.
    case usageCapped(endpoint: String, detail: String)
    /// 429 still answered after waiting for the rate-limit window as often as allowed.
    case rateLimited(endpoint: String, resetsAt: Date?)
    /// A 5xx, still after the retries.
    case serverError(endpoint: String, status: Int, attempts: Int)
    /// No answer (refused, timed out, dropped), still after the retries.
    case transport(endpoint: String, reason: String, attempts: Int)
    /// A post was sent but the connection dropped before the answer: it may or may not have been created.
    case outcomeUnknown(endpoint: String, reason: String)
    /// A 2xx whose body is not what the API documents (truncated, not JSON, wrong shape).
    case malformedResponse(endpoint: String, reason: String)
    /// Any other error answer (4xx), with its problem details.
    case problem(endpoint: String, status: Int, XProblem)
    /// A 200 carrying only `errors`, no `data`.
    case partialErrors(endpoint: String, [XProblem])
    /// 402: the app's prepaid credits are spent. Not retried.
    case creditsExhausted(endpoint: String, detail: String)
    /// 403 client-forbidden: the app's access level does not include this endpoint (self-serve apps and likes).
    case notEnrolled(endpoint: String, XProblem)
    /// Not sent: X refused this kind of call earlier, and its recheck is not due yet.
    case refused(XRefusals.Refusal)
    /// Not sent: the call could cost more than what is left of the day's budget for its work.
    case overBudget(endpoint: String, work: String, spent: Double, limit: Double)
    /// Not sent: the day's spend is not known (it could not be read at start) or could not be written before the call.
    case spendUnknown(endpoint: String, detail: String)

    /// A readable sentence.
    public var description: String {
        switch self {
        case .unauthorized(let account, let endpoint, let detail):
            "X refused the \(account) account's credentials on \(endpoint) (401: \(detail)). Check the four \(account.environmentPrefix)* variables."
        case .duplicateContent:
            "X refused the post as a duplicate of a recent one (403 duplicate content)."
        case .usageCapped(let endpoint, let detail):
            "The X app's usage cap is spent (\(endpoint): \(detail)); calls resume when the cap period renews."
        case .rateLimited(let endpoint, let resetsAt):
            "X still rate-limits \(endpoint) after waiting\(resetsAt.map { " (window resets at \($0.formatted(.iso8601)))" } ?? "")."
        case .serverError(let endpoint, let status, let attempts):
            "X answered \(endpoint) with HTTP \(status) \(attempts) times; giving up for now."
        case .transport(let endpoint, let reason, let attempts):
            "Could not reach X for \(endpoint) after \(attempts) attempts: \(reason)."
        case .outcomeUnknown(let endpoint, let reason):
            "The connection dropped during \(endpoint) (\(reason)); the post may or may not have been made, so it was not sent again."
        case .malformedResponse(let endpoint, let reason):
            "X's answer to \(endpoint) was not valid: \(reason)."
        case .problem(let endpoint, let status, let problem):
            "X answered \(endpoint) with HTTP \(status): \(problem)."
        case .partialErrors(let endpoint, let problems):
            "X answered \(endpoint) with errors only: \(problems.map(\.description).joined(separator: "; "))."
        case .creditsExhausted(let endpoint, let detail):
            "X refused \(endpoint): the app's credits are spent (402: \(detail)). Add credits in the X developer console."
        case .notEnrolled(let endpoint, let problem):
            "X refused \(endpoint): the app's access level does not include it (403 \(problem.reason ?? problem.kind): \(problem.detail ?? problem.description))."
        case .refused(let refusal):
            "not asking X again for \(refusal.subject) until \(refusal.recheckAt.formatted(.iso8601)): it refused \(refusal.endpoint) (\(refusal.detail))"
        case .overBudget(let endpoint, let work, let spent, let limit):
            String(format: "not calling %@ for %@: $%.3f of the day's X_DAILY_BUDGET $%.2f is spent", endpoint, work, spent, limit)
        case .spendUnknown(let endpoint, let detail):
            "not calling \(endpoint): \(detail); billed calls wait until the day's spend is stored and read again, rather than count from zero"
        }
    }

    /// Whether asking again soon would get the same answer: a refusal of the account, the app or the endpoint
    /// (401, 402, 403 other than a duplicate, usage-capped), or a call not sent for one. Pollers wait for the
    /// refusal's recheck instead of trying again.
    public var isRefusal: Bool {
        switch self {
        case .unauthorized, .usageCapped, .creditsExhausted, .notEnrolled, .refused: true
        case .problem(_, let status, _): status == 403
        default: false
        }
    }
}

/// The core's decisions, named by this client's own cases.
extension XAPIError: HTTPCallFailureNaming {}
