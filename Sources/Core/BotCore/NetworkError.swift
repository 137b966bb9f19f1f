public import Foundation

/// Why a network call failed, in the bot's words. Each network maps its own errors to these, so that services
/// decide what to do (pick another post, wait for a check, pause) without knowing the network.
public enum NetworkError: Error, Sendable, CustomStringConvertible {
    /// The network refused this post as a duplicate of a recent one: another may be tried.
    case duplicate(String)
    /// The network cannot take this text (longer than it allows): another may be tried.
    case unpostable(String)
    /// The network refused this one item (a conversation that takes no replies, a post that is gone).
    case rejected(String)
    /// The network refuses this kind of call for good (credentials, credits, a usage cap, an endpoint the app may
    /// not use) until `recheckAt`; it was logged once where it happened.
    case refused(String, recheckAt: Date?)
    /// The network's access level does not include this capability; it was logged and stored where it happened.
    case notEnrolled(NetworkCapability, String)
    /// Not sent: the day's budget shed this work (logged once a day where it happened).
    case shed(String)
    /// The call was sent, and whether it took effect is unknown: not sent again.
    case outcomeUnknown(String)
    /// The network did not answer, or answered badly, after its retries: the next round tries again.
    case unavailable(String)

    /// The sentence for logs and stored reasons.
    public var description: String {
        switch self {
        case .duplicate(let text), .unpostable(let text), .rejected(let text), .refused(let text, _), .notEnrolled(_, let text), .shed(let text),
            .outcomeUnknown(let text), .unavailable(let text):
            text
        }
    }

    /// Whether asking again soon would get the same answer (a refusal, or a capability not enrolled).
    public var isRefusal: Bool {
        switch self {
        case .refused, .notEnrolled: true
        default: false
        }
    }
}
