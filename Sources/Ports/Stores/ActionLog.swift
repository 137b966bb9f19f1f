public import Foundation

/// The bot's actions, newest first, read a page at a time from a position, in either direction: read from the stores
/// that record each (`plan_slots`, `mention_replies`, `bot_likes`).
public protocol ActionLog: Sendable {
    /// Up to `limit` actions, newest first: the newest of all, those older than `before`, or those newer than `after`.
    func actions(before: ActionPosition?, after: ActionPosition?, limit: Int) async throws -> [BotAction]
}

extension ActionLog {
    /// Up to `limit` actions, newest first: the newest of all, those older than `before`, or those newer than `after`.
    public func page(before: ActionPosition? = nil, after: ActionPosition? = nil, limit: Int) async throws -> [BotAction] {
        try await actions(before: before, after: after, limit: limit)
    }
}

/// A place in the list of actions: an action's time and key (the key breaks ties).
public struct ActionPosition: Sendable, Equatable {
    /// The action's time.
    public var at: Date
    /// The action's key.
    public var key: String

    /// A position from its parts.
    public init(at: Date, key: String) {
        self.at = at
        self.key = key
    }

    /// Whether `self` comes after `other` in time order (time, then key).
    public func isAfter(_ other: ActionPosition) -> Bool { at != other.at ? at > other.at : key > other.key }
}

/// One thing the bot did or decided not to do, with its reason: a slot posted or skipped, a mention answered or not,
/// a like.
public struct BotAction: Sendable, Equatable {
    /// What kind of action.
    public enum Kind: String, Sendable, CaseIterable {
        /// A slot's post was sent.
        case posted
        /// A slot was not posted (missed, refused, deleted, interrupted, shed for the budget, ...).
        case skipped
        /// A mention was answered.
        case replied
        /// A mention was not answered (a stranger, a limit, a bot loop, ...).
        case notReplied = "not_replied"
        /// A post was liked.
        case liked
    }

    /// What it was.
    public var kind: Kind
    /// When, on the bot's clock.
    public var at: Date
    /// Its stable key: `slot:2026-11-22:0480`, `mention:<id>`, `like:<id>`.
    public var key: String
    /// The post it made or liked (the bot's post; the liked post), if any.
    public var postID: String?
    /// What it acted on: the person's post a slot copied, the mention answered or not.
    public var sourceID: String?
    /// Why, as logged.
    public var reason: String?

    /// Whether `sourceID` is one of the person's posts (a slot's original) rather than one the bot's account saw (a mention).
    public var copiedThePerson: Bool { kind == .posted || kind == .skipped }

    /// Where it stands in the list.
    public var position: ActionPosition { ActionPosition(at: at, key: key) }

    /// An action from its parts.
    public init(kind: Kind, at: Date, key: String, postID: String?, sourceID: String?, reason: String?) {
        self.kind = kind
        self.at = at
        self.key = key
        self.postID = postID
        self.sourceID = sourceID
        self.reason = reason
    }

    /// A slot's key, `slot:2026-11-22:0480`.
    public static func slotKey(day: String, minute: Int) -> String { "slot:\(day):" + String(format: "%04d", minute) }
}
