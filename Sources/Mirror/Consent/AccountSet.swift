import Foundation

/// Accounts named by id (as the network writes it; in a list typed by hand, digits: an X user id, a Mastodon account
/// id) or by handle (`bob`, `bob@example.social`, with or without the leading `@`; compared case-insensitively):
/// `BLOCKED_ACCOUNTS`, the opt-out list.
public struct AccountSet: Sendable, Equatable {
    /// The ids.
    public private(set) var ids: Set<String>
    /// The handles, folded, without `@` in front.
    public private(set) var handles: Set<String>

    /// A set of `entries`, each an id or a handle; empty entries are dropped.
    public init(_ entries: [String] = []) {
        ids = []
        handles = []
        for entry in entries { insert(entry) }
    }

    /// Whether the set names no account.
    public var isEmpty: Bool { ids.isEmpty && handles.isEmpty }

    /// Adds the account with the id `id`, whatever it looks like (a Misskey id, a DID).
    public mutating func insert(id: String) {
        let trimmed = id.trimmingCharacters(in: .whitespacesAndNewlines)
        if !trimmed.isEmpty { ids.insert(trimmed) }
    }

    /// Adds an account named by id (digits) or handle, as a person types it.
    public mutating func insert(_ entry: String) {
        let trimmed = entry.trimmingCharacters(in: .whitespacesAndNewlines)
        if Self.isID(trimmed) { ids.insert(trimmed) } else if let handle = Self.handle(trimmed) { handles.insert(handle) }
    }

    /// Whether the account with `id` (when known) or `handle` (when known) is in the set.
    public func contains(id: String?, handle: String?) -> Bool {
        if let id, ids.contains(id) { return true }
        if let handle = handle.flatMap(Self.handle), handles.contains(handle) { return true }
        return false
    }

    /// Whether `entry` is an account id: digits only.
    public static func isID(_ entry: String) -> Bool {
        !entry.isEmpty && entry.unicodeScalars.allSatisfy { ("0"..."9").contains($0) }
    }

    /// `entry` as a handle is compared: folded, without the `@` in front; nil when nothing is left.
    public static func handle(_ entry: String) -> String? {
        var text = WordList.folded(entry.trimmingCharacters(in: .whitespacesAndNewlines))
        while text.hasPrefix("@") { text.removeFirst() }
        return text.isEmpty ? nil : text
    }
}
