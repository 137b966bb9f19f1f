public import Foundation
public import Stores

/// One account that asked the bot to leave it alone.
public struct OptOut: Sendable, Equatable, Codable {
    /// The account's id, when known (always, for an opt-out the bot read).
    public var accountID: String?
    /// The account's handle, when known.
    public var handle: String?
    /// Why: the mention that asked, `#nobot` in their profile, or `mirror_bot optout add`.
    public var reason: String
    /// When the bot learned it.
    public var at: Date

    /// An opt-out from its parts.
    public init(accountID: String?, handle: String?, reason: String, at: Date) {
        self.accountID = accountID
        self.handle = handle
        self.reason = reason
        self.at = at
    }

    /// `@handle (id)`, `@handle` or `user id`, for logs and listings.
    public var who: String {
        switch (handle, accountID) {
        case (let handle?, let id?): "@\(handle) (\(id))"
        case (let handle?, nil): "@\(handle)"
        case (nil, let id?): "user \(id)"
        case (nil, nil): "?"
        }
    }
}

/// The accounts that asked the bot to leave them alone: never answered again, never liked. Kept in the bot's state
/// (`bot_state`, one row per account under `optout.`), which `train clear` leaves alone, so an opt-out lasts for good
/// (until `mirror_bot optout remove`).
public struct OptOutList: Sendable {
    /// Where the list is kept.
    public let state: any BotState

    /// The prefix of the list's names in the bot's state.
    static let prefix = "optout."

    /// The list in `state`.
    public init(state: any BotState) { self.state = state }

    /// Every opt-out, oldest first.
    public func all() async throws -> [OptOut] {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try await state.values().filter { $0.key.hasPrefix(Self.prefix) }
            .compactMap { try? decoder.decode(OptOut.self, from: Data($0.value.utf8)) }
            .sorted { ($0.at, $0.who) < ($1.at, $1.who) }
    }

    /// The accounts of the list, to check many posts against at once.
    public func accounts() async throws -> AccountSet {
        var set = AccountSet()
        for optOut in try await all() {
            if let id = optOut.accountID { set.insert(id: id) }
            if let handle = optOut.handle { set.insert(handle) }
        }
        return set
    }

    /// The opt-out of the account with `id` or `handle`, nil when it did not opt out.
    public func optOut(id: String?, handle: String?) async throws -> OptOut? {
        try await all().first { optOut in
            var accounts = AccountSet([optOut.handle].compactMap { $0 })
            if let accountID = optOut.accountID { accounts.insert(id: accountID) }
            return accounts.contains(id: id, handle: handle)
        }
    }

    /// Whether the account with `id` or `handle` opted out.
    public func contains(id: String?, handle: String?) async throws -> Bool {
        try await optOut(id: id, handle: handle) != nil
    }

    /// Adds an opt-out; false when the account was already on the list (the first reason is kept).
    @discardableResult
    public func add(_ optOut: OptOut) async throws -> Bool {
        var optOut = optOut
        optOut.handle = optOut.handle.flatMap(AccountSet.handle)
        guard let name = Self.name(id: optOut.accountID, handle: optOut.handle) else { return false }
        if try await state.value(of: name) != nil { return false }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        try await state.setValue(String(decoding: try encoder.encode(optOut), as: UTF8.self), of: name)
        return true
    }

    /// Removes the opt-outs of the account `entry` names (an id or a handle); returns those removed.
    public func remove(_ entry: String) async throws -> [OptOut] {
        let target = AccountSet([entry])
        var removed: [OptOut] = []
        for optOut in try await all() where target.contains(id: optOut.accountID, handle: optOut.handle) || optOut.accountID == entry {
            if let name = Self.name(id: optOut.accountID, handle: optOut.handle) {
                try await state.removeValue(of: name)
                removed.append(optOut)
            }
        }
        return removed
    }

    /// The state's name of an opt-out: by id when known (as the network writes it), else by handle.
    static func name(id: String?, handle: String?) -> String? {
        if let id = id?.trimmingCharacters(in: .whitespacesAndNewlines), !id.isEmpty { return prefix + "id:" + id }
        return AccountSet.handle(handle ?? "").map { prefix + "handle:" + $0 }
    }
}
