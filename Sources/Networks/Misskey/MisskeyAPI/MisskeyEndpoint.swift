import Foundation
public import HTTPCore

/// One Misskey API endpoint: `POST /api/<name>` with a JSON body of its parameters (the token added as `i`), and the
/// type of its successful answer. Each is a small type in `Endpoints/`, named after the endpoint.
public protocol MisskeyEndpoint: Sendable {
    /// The decoded body of a successful answer.
    associatedtype Response: Decodable & Sendable

    /// The endpoint as the API reference names it, such as `notes/create`.
    static var name: String { get }
    /// Whether it may be sent again after a failure that may have reached the instance: reads freely, deletions and
    /// reactions as idempotent writes, `notes/create` (no idempotency key on Misskey) only when it surely never left.
    static var repeatability: Repeatability { get }
    /// Whether the account's token is sent (`i`): every endpoint the bot calls as an account; some reads are public.
    static var sendsToken: Bool { get }
    /// The parameters, in the JSON body.
    var parameters: [String: MisskeyValue] { get }
    /// The path under `/api/`: the name, with its session filled in for MiAuth's check.
    var path: String { get }
}

extension MisskeyEndpoint {
    /// A read.
    public static var repeatability: Repeatability { .read }
    /// The token is sent.
    public static var sendsToken: Bool { true }
    /// The name.
    public var path: String { Self.name }
}

/// An endpoint answering a page of items, newest first when it is given an upper bound (`untilId`), with `limit`
/// items at most.
public protocol MisskeyPagedEndpoint: MisskeyEndpoint where Response == [Item] {
    /// One item of a page.
    associatedtype Item: Decodable & Sendable
    /// Items a page (1 to 100).
    var limit: Int { get set }
    /// Items newer than this id.
    var sinceID: String? { get set }
    /// Items older than this id.
    var untilID: String? { get set }
    /// The id of an item, for paging.
    static func id(of item: Item) -> String
}

extension MisskeyPagedEndpoint {
    /// `limit`, `sinceId` and `untilId`, for an endpoint's own parameters to add to.
    public var pagingParameters: [String: MisskeyValue] {
        var parameters: [String: MisskeyValue] = ["limit": .int(limit)]
        if let sinceID { parameters["sinceId"] = .string(sinceID) }
        if let untilID { parameters["untilId"] = .string(untilID) }
        return parameters
    }
}

/// A JSON value in a request's body.
public enum MisskeyValue: Sendable, Equatable, Encodable {
    /// A string.
    case string(String)
    /// An integer.
    case int(Int)
    /// A boolean.
    case bool(Bool)
    /// A list of strings.
    case strings([String])
    /// `null`.
    case null

    /// Writes the value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .strings(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }
}
