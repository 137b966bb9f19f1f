import Foundation

/// An identifier as its network wrote it: X's and Mastodon's decimal numbers, a Misskey note id, a Bluesky record key
/// or DID. The core never parses, hashes or folds one: it stores it, compares it and hands it back to the network
/// module that made it. Which network an id belongs to is told by where it is kept (a bot's stores hold the ids of
/// the person's network in the archive and of the bot's network beside its own posts, likes and mentions).
///
/// Ids sort as the stores sort them (`ORDER BY length(id), id`, bytes compared): shorter first, then byte by byte.
/// For decimal numbers that is their numeric order, so the archives of the previous releases, which kept ids as
/// 64-bit integers, draw the same posts for the same seed; fixed-length ids (Misskey's, Bluesky's TIDs) sort by text.
public struct NetworkIdentifier<Kind: NetworkIdentifierKind>: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The id as the network wrote it.
    public var text: String

    /// The id `text`.
    public init(_ text: String) { self.text = text }

    /// The id a number stands for (a stored id of the previous releases, a test's literal).
    public init(_ number: some BinaryInteger) { self.text = String(number) }

    /// The id as the network wrote it.
    public var description: String { text }

    /// Shorter first, then byte by byte (see the type's documentation).
    public static func < (lhs: Self, rhs: Self) -> Bool {
        let (left, right) = (lhs.text.utf8, rhs.text.utf8)
        if left.count != right.count { return left.count < right.count }
        return left.lexicographicallyPrecedes(right)
    }
}

extension NetworkIdentifier: ExpressibleByStringLiteral {
    /// The id written in the source.
    public init(stringLiteral value: String) { self.init(value) }
}

extension NetworkIdentifier: ExpressibleByIntegerLiteral {
    /// The id a number written in the source stands for.
    public init(integerLiteral value: Int64) { self.init(value) }
}

/// What a `NetworkIdentifier` names: a post or an account.
public protocol NetworkIdentifierKind: Sendable {}

/// The kind of a post's id.
public enum PostIdentifierKind: NetworkIdentifierKind {}

/// The kind of an account's id.
public enum AccountIdentifierKind: NetworkIdentifierKind {}

/// A post's id on its network (see `NetworkIdentifier`).
public typealias PostID = NetworkIdentifier<PostIdentifierKind>

/// An account's id on its network (see `NetworkIdentifier`).
public typealias AccountID = NetworkIdentifier<AccountIdentifierKind>

extension NetworkIdentifier {
    /// Whether `id` is newer than `other` (anything is, than nothing), on a network whose ids grow with time in this
    /// order: X's, Mastodon's and Bluesky's numbers, Misskey's ids of one method. The one order every cursor uses.
    public static func isNewer(_ id: String, than other: String?) -> Bool { other.map { Self(id) > Self($0) } ?? true }
}

/// How a person types an account (`mirror_bot optout add`, `BLOCKED_ACCOUNTS`): by id or by handle.
public enum TypedAccount {
    /// `entry` as an account id when it is digits only (X's and Mastodon's ids), else nil: a handle. Each network
    /// module may read its own ids (`NetworkModule.accountID(typed:)`).
    public static func digits(_ entry: String) -> String? {
        let trimmed = entry.trimmingCharacters(in: .whitespacesAndNewlines)
        return !trimmed.isEmpty && trimmed.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) ? trimmed : nil
    }
}
