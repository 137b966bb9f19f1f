import FakeKit
import Foundation

// X's problem bodies (RFC 7807), on the fakes' JSON values.

extension JSONValue {
    /// An RFC 7807 problem body.
    static func problem(type: String, title: String, detail: String, status: Int, extra: [(String, JSONValue)] = []) -> JSONValue {
        .object([("title", .string(title)), ("detail", .string(detail)), ("type", .string(type)), ("status", .int(status))] + extra)
    }
}

/// Problem type URIs of the X API.
enum ProblemType {
    static let prefix = "https://api.twitter.com/2/problems/"
    static let invalidRequest = prefix + "invalid-request"
    static let notFound = prefix + "resource-not-found"
    static let forbidden = prefix + "client-forbidden"
    static let usageCapped = prefix + "usage-capped"
    static let creditsDepleted = "https://api.x.com/2/problems/credits-depleted"
    static let blank = "about:blank"
}
