import Foundation

/// One XRPC method of the AT Protocol, as its lexicon defines it: a query (`GET /xrpc/<nsid>?…`) or a procedure
/// (`POST /xrpc/<nsid>` with a JSON input), and the type of its output. Each is a small type in `Methods.swift`,
/// named after its lexicon's id.
public protocol XRPCMethod: Sendable {
    /// The JSON input of a procedure (`NoInput` for a query).
    associatedtype Input: Encodable & Sendable = NoInput
    /// The decoded output.
    associatedtype Output: Decodable & Sendable

    /// The lexicon's id, such as `app.bsky.feed.getAuthorFeed`.
    static var nsid: String { get }
    /// Query or procedure.
    static var kind: XRPCKind { get }
    /// A query's parameters, in order (a name may repeat, for arrays).
    var parameters: [(String, String)] { get }
    /// A procedure's input.
    var input: Input { get }
    /// Whether it may be sent again after a failure that may have reached the server: queries, and writes whose
    /// effect is the same however often they arrive (`putRecord` with a chosen record key, `deleteRecord`).
    var isRepeatable: Bool { get }
}

/// The two kinds of XRPC method.
public enum XRPCKind: Sendable {
    /// `GET`, reads.
    case query
    /// `POST`, writes.
    case procedure
}

/// The input of a query: none.
public struct NoInput: Encodable, Sendable {
    /// None.
    public init() {}
}

/// The output of a procedure that answers nothing (an empty body, or one the bot does not read).
public struct NoOutput: Decodable, Sendable {
    /// Whatever was answered, unread.
    public init(from decoder: any Decoder) throws {}
    /// Nothing.
    public init() {}
}

extension XRPCMethod {
    /// No parameters.
    public var parameters: [(String, String)] { [] }
    /// Queries are repeatable; procedures say so themselves.
    public var isRepeatable: Bool { Self.kind == .query }
}

extension XRPCMethod where Input == NoInput {
    /// No input.
    public var input: NoInput { NoInput() }
}
