public import BotCore
import Foundation

/// Accounts named by id (as the network writes it; in a list typed by hand, as the bot's network module reads one:
/// digits for X and Mastodon) or by handle (`bob`, `bob@example.social`, with or without the leading `@`; compared case-insensitively):
/// `BLOCKED_ACCOUNTS`, the opt-out list.
public struct AccountSet: Sendable, Equatable {
    /// The ids.
    public private(set) var ids: Set<String>
    /// The handles, folded, without `@` in front.
    public private(set) var handles: Set<String>

    /// A set of `entries`, each an id (as `accountID` reads one: digits by default) or a handle; empty entries are
    /// dropped.
    public init(_ entries: [String] = [], accountID: (String) -> String? = TypedAccount.digits) {
        ids = []
        handles = []
        for entry in entries { insert(entry, accountID: accountID) }
    }

    /// Whether the set names no account.
    public var isEmpty: Bool { ids.isEmpty && handles.isEmpty }

    /// Adds the account with the id `id`, whatever it looks like (a Misskey id, a DID).
    public mutating func insert(id: String) {
        let trimmed = id.trimmingCharacters(in: .whitespacesAndNewlines)
        if !trimmed.isEmpty { ids.insert(trimmed) }
    }

    /// Adds an account named by id or handle, as a person types it: `accountID` says whether it is an id as the bot's
    /// network writes them (digits by default); with `@` in front it is always a handle.
    public mutating func insert(_ entry: String, accountID: (String) -> String? = TypedAccount.digits) {
        let trimmed = entry.trimmingCharacters(in: .whitespacesAndNewlines)
        if !trimmed.hasPrefix("@"), let id = accountID(trimmed) {
            ids.insert(id)
        } else if let handle = Self.handle(trimmed) {
            handles.insert(handle)
        }
    }

    /// Whether the account with `id` (when known) or `handle` (when known) is in the set.
    public func contains(id: String?, handle: String?) -> Bool {
        if let id, ids.contains(id) { return true }
        if let handle = handle.flatMap(Self.handle), handles.contains(handle) { return true }
        return false
    }

    /// `entry` as a handle is compared: folded, without the `@` in front; nil when nothing is left.
    public static func handle(_ entry: String) -> String? {
        var text = WordList.folded(entry.trimmingCharacters(in: .whitespacesAndNewlines))
        while text.hasPrefix("@") { text.removeFirst() }
        return text.isEmpty ? nil : text
    }
}
