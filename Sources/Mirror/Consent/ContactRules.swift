import Foundation
public import Stores

/// Whom the bot may answer and like: nobody on the opt-out list, nobody in `BLOCKED_ACCOUNTS`; and how an opt-out is
/// asked for (`OPT_OUT_WORDS` in a mention, `#nobot` in a profile).
public struct ContactRules: Sendable {
    /// The accounts that asked to be left alone.
    public let optOuts: OptOutList
    /// The accounts the operator blocked (`BLOCKED_ACCOUNTS`).
    public let blocked: AccountSet
    /// The words that ask for an opt-out (`OPT_OUT_WORDS`).
    public let request: OptOutRequest

    /// Rules over the opt-out list kept in `state`.
    public init(state: any BotState, blocked: AccountSet = AccountSet(), request: OptOutRequest = OptOutRequest()) {
        self.optOuts = OptOutList(state: state)
        self.blocked = blocked
        self.request = request
    }

    /// Why the account with `id` or `handle` may not be answered or liked, nil when it may.
    public func refusal(id: String?, handle: String?) async throws -> String? {
        if blocked.contains(id: id, handle: handle) { return "the account is in BLOCKED_ACCOUNTS" }
        if let optOut = try await optOuts.optOut(id: id, handle: handle) {
            return "the account opted out on \(optOut.at.formatted(.iso8601)) (\(optOut.reason))"
        }
        return nil
    }

    /// Every account the bot leaves alone, blocked or opted out, to check many posts at once.
    public func leftAlone() async throws -> AccountSet {
        var accounts = try await optOuts.accounts()
        for id in blocked.ids { accounts.insert(id) }
        for handle in blocked.handles { accounts.insert(handle) }
        return accounts
    }
}
