public import Foundation
public import Stores

/// What the person paused from their own account: nothing, the scheduled posts, or everything the bot does (posts,
/// answers, likes). Kept in the bot's state (`control.paused`), so a pause survives restarts.
public struct OwnerControl: Sendable {
    /// What is paused.
    public enum Pause: String, Sendable, Equatable {
        /// The scheduled posts; answers and likes go on.
        case posting
        /// Posts, answers (but to the person's own commands) and likes.
        case everything
        /// Everything, for good: the person withdrew their consent (only a new sign-in of theirs lifts it).
        case ended
        /// Everything, until the person signs in again: their sign-in ran out by the network's limit on its life, so
        /// their consent can no longer be checked. Nothing learned is deleted.
        case signInLapsed = "lapsed"

        /// Whether answers and likes stop too.
        public var stopsEverything: Bool { self != .posting }
        /// Whether only a new sign-in of the person's lifts it (not their "resume").
        public var waitsForSignIn: Bool { self == .ended || self == .signInLapsed }
    }

    /// A pause and when it began.
    public struct Paused: Sendable, Equatable {
        /// What is paused.
        public var pause: Pause
        /// When.
        public var since: Date

        /// A pause from its parts.
        public init(pause: Pause, since: Date) {
            self.pause = pause
            self.since = since
        }
    }

    /// Where the pause is kept.
    public let state: any BotState

    static let name = "control.paused"

    /// The control over `state`.
    public init(state: any BotState) { self.state = state }

    /// The pause in force, nil when the bot runs.
    public func current() async throws -> Paused? {
        guard let value = try await state.value(of: Self.name) else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1).map(String.init)
        guard let pause = parts.first.flatMap(Pause.init(rawValue:)) else { return nil }
        let since = parts.count > 1 ? (try? Date(parts[1], strategy: .iso8601)) : nil
        return Paused(pause: pause, since: since ?? .distantPast)
    }

    /// Whether the scheduled posts are paused (a pause of posting, or of everything).
    public func postingPaused() async throws -> Bool { try await current() != nil }

    /// Whether everything is paused (or ended).
    public func everythingPaused() async throws -> Bool { try await current()?.pause.stopsEverything == true }

    /// Whether the person ended the mirror.
    public func ended() async throws -> Bool { try await current()?.pause == .ended }

    /// Pauses `pause` from `date`.
    public func pause(_ pause: Pause, at date: Date) async throws {
        try await state.setValue("\(pause.rawValue) \(date.formatted(.iso8601))", of: Self.name)
    }

    /// Whether the mirror waits for the person to sign in again (ended, or their sign-in lapsed).
    public func waitsForSignIn() async throws -> Bool { try await current()?.pause.waitsForSignIn == true }

    /// Ends any pause but those only a new sign-in lifts (`signedInAgain`); returns the one that was in force.
    @discardableResult
    public func resume() async throws -> Paused? {
        let was = try await current()
        guard was?.pause.waitsForSignIn != true else { return was }
        try await state.removeValue(of: Self.name)
        return was
    }

    /// Lifts the end of the mirror, or the pause of a lapsed sign-in: the person signed in again.
    public func signedInAgain() async throws {
        guard try await waitsForSignIn() else { return }
        try await state.removeValue(of: Self.name)
    }
}
