public import Foundation
public import Stores

/// The remixes the bot posted lately, kept in the bot's state (`remix.posted.<hash>`: when), so that a remix is never
/// written again within the network's repeat window or `REPOST_AFTER_DAYS`, across restarts; remixes older than
/// `keptFor` are forgotten as new ones are remembered. And the remix each slot is sending (`remix.sending.<day>.<minute>`),
/// for a restart to read back.
public struct RemixMemory: Sendable {
    /// Where the texts' hashes are kept.
    public let state: any BotState
    /// How long a remix is remembered.
    public let keptFor: TimeInterval

    static let prefix = "remix.posted."

    /// A memory in `state`, keeping each remix for `keptFor` seconds.
    public init(state: any BotState, keptFor: TimeInterval) {
        self.state = state
        self.keptFor = keptFor
    }

    /// The hashes of the remixes posted at or after `date`.
    public func texts(since date: Date) async throws -> RemixTexts {
        var hashes = Set<String>()
        for (name, value) in try await state.values() where name.hasPrefix(Self.prefix) {
            if let posted = Double(value), posted >= date.timeIntervalSince1970 { hashes.insert(String(name.dropFirst(Self.prefix.count))) }
        }
        return RemixTexts(hashes: hashes)
    }

    /// Notes that `text` was posted at `date`, and forgets the remixes older than `keptFor` (and the notes of slots
    /// being sent more than three days before).
    public func remember(_ text: String, postedAt date: Date) async throws {
        try await state.setValue(String(date.timeIntervalSince1970), of: Self.prefix + RemixTexts.hash(text))
        let oldDay = Self.utcDay(date.addingTimeInterval(-3 * 86_400))
        for (name, value) in try await state.values() {
            if name.hasPrefix(Self.prefix), let posted = Double(value), posted < date.timeIntervalSince1970 - keptFor {
                try await state.removeValue(of: name)
            } else if name.hasPrefix(Self.sendingPrefix), name.dropFirst(Self.sendingPrefix.count).prefix(10) < oldDay {
                try await state.removeValue(of: name)
            }
        }
    }

    static let sendingPrefix = "remix.sending."

    /// Notes, before it is sent, the remix the slot at `minute` of `day` posts: the text a restart reads back if this
    /// run stops before the network answers (an archived post's text is in the archive; a remix's only here).
    public func noteSending(_ text: String, day: String, minute: Int) async throws {
        try await state.setValue(text, of: Self.sendingPrefix + "\(day).\(minute)")
    }

    /// The remix the slot was sending when the last run stopped, if it was one.
    public func sending(day: String, minute: Int) async throws -> String? {
        try await state.value(of: Self.sendingPrefix + "\(day).\(minute)")
    }

    /// The slot's post is settled: its note goes.
    public func settled(day: String, minute: Int) async throws {
        try await state.removeValue(of: Self.sendingPrefix + "\(day).\(minute)")
    }

    private static func utcDay(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
}

/// Texts known by their hashes (FNV-1a of the UTF-8 bytes, 64 bits, in hex).
public struct RemixTexts: Sendable, ExpressibleByArrayLiteral {
    let hashes: Set<String>

    init(hashes: Set<String>) { self.hashes = hashes }

    /// An empty set, or one of the given texts.
    public init(arrayLiteral texts: String...) { hashes = Set(texts.map(Self.hash)) }

    /// Whether `text` is one of them.
    public func contains(_ text: String) -> Bool { hashes.contains(Self.hash(text)) }

    static func hash(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }
}
