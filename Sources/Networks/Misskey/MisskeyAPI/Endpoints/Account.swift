import Foundation
public import HTTPCore

/// `i`: the token's own account (`MeDetailed`: its id, username, profile and bot flag).
public struct GetI: MisskeyEndpoint {
    /// The account.
    public typealias Response = MisskeyUser
    /// The reference's name.
    public static let name = "i"
    /// The request.
    public init() {}
    /// None.
    public var parameters: [String: MisskeyValue] { [:] }
}

/// `users/show`: a user by id, with their profile's text (`UserDetailed`).
public struct ShowUser: MisskeyEndpoint {
    /// The user.
    public typealias Response = MisskeyUser
    /// The reference's name.
    public static let name = "users/show"
    /// The user's id.
    public var userID: String
    /// The request for `userID`.
    public init(userID: String) { self.userID = userID }
    /// `userId`.
    public var parameters: [String: MisskeyValue] { ["userId": .string(userID)] }
}

/// `meta`: what the instance says of itself, such as the longest note it takes.
public struct GetMeta: MisskeyEndpoint {
    /// The instance's description.
    public typealias Response = MisskeyMeta
    /// The reference's name.
    public static let name = "meta"
    /// No token: the instance's description is public.
    public static var sendsToken: Bool { false }
    /// The request.
    public init() {}
    /// `detail: false`.
    public var parameters: [String: MisskeyValue] { ["detail": .bool(false)] }
}

/// `miauth/:session/check`: whether the person approved the MiAuth session, and its token (given once).
public struct CheckMiAuthSession: MisskeyEndpoint {
    /// The check's answer.
    public typealias Response = MiAuthCheck
    /// The reference's name.
    public static let name = "miauth/:session/check"
    /// Read as a read: asked again, the instance answers `ok: false` once the token was handed over, and the person approves again.
    public static var repeatability: Repeatability { .read }
    /// No token: the session is the secret.
    public static var sendsToken: Bool { false }
    /// The session's id.
    public var session: String
    /// The check of `session`.
    public init(session: String) { self.session = session }
    /// None.
    public var parameters: [String: MisskeyValue] { [:] }
    /// `miauth/<session>/check`.
    public var path: String { "miauth/\(session)/check" }
}
