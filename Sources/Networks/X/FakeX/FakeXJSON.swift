package import Foundation

// The fake's response bodies, written from the OpenAPI document's schemas and independent of the client's models,
// so that the client is tested against what the API documents rather than against itself.

/// A JSON value for building bodies field by field, as the API reference lists them.
package enum JSONValue: Encodable, Sendable, Equatable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case array([JSONValue])
    case object([(String, JSONValue)])
    case null

    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1)
        case (.null, .null): true
        default: false
        }
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    package func encode(to encoder: any Encoder) throws {
        switch self {
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .int(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .double(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .array(let items):
            var container = encoder.unkeyedContainer()
            for item in items { try container.encode(item) }
        case .object(let fields):
            var container = encoder.container(keyedBy: Key.self)
            for (name, value) in fields { try container.encode(value, forKey: Key(name)) }
        }
    }

    /// The encoded bytes (keys in the order given, slashes unescaped).
    package func data() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data("{}".utf8)
    }

    /// An RFC 7807 problem body.
    static func problem(type: String, title: String, detail: String, status: Int, extra: [(String, JSONValue)] = []) -> JSONValue {
        .object([("title", .string(title)), ("detail", .string(detail)), ("type", .string(type)), ("status", .int(status))] + extra)
    }

    /// An ISO 8601 time with milliseconds, as X writes `created_at`.
    package static func time(_ date: Date) -> JSONValue {
        .string(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
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
