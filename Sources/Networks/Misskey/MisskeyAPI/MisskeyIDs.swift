import BotCore
public import Foundation

/// What the bot knows of Misskey's ids, which it keeps as the instance writes them: strings of the instance's chosen
/// method (`aidx` by default: 8 base-36 digits of milliseconds since 2000, then 8 of node and counter; `aid`, `meid`,
/// `ulid`, `objectid` elsewhere), whose time can be read, and whose order on one instance is their time's.
public enum MisskeyIDs {
    /// Misskey's epoch for `aid` and `aidx`: 2000-01-01T00:00:00Z.
    static let epoch2000: Double = 946_684_800

    /// Whether `id` is one of the numbers the releases before text ids gave notes and users (a note's milliseconds since
    /// 2000 shifted left 20 bits, a user's hash), which migration 0015 turned back into ids wherever it knew them: one
    /// it did not names nothing the bot can ask about. No id of Misskey's methods is 15 to 19 decimal digits alone:
    /// `aid` is 10 characters and `meid`, `objectid` and `ulid` 24 and 26; an `aidx` is 16, and its first (the time's
    /// base-36 digits since 2000) has been a letter since 2002.
    public static func isUnmappedNumber(_ id: String) -> Bool {
        (15...19).contains(id.utf8.count) && id.utf8.allSatisfy { (48...57).contains($0) }
    }

    /// Whether `entry`, typed by a person, is an id rather than a handle: 7 to 32 lowercase letters and digits with at
    /// least one digit (every id method writes so; a username has no shape that tells it apart, so a handle of that
    /// shape takes an `@` in front).
    public static func looksTyped(_ entry: String) -> Bool {
        (7...32).contains(entry.utf8.count) && entry.utf8.allSatisfy { (48...57).contains($0) || (97...122).contains($0) }
            && entry.utf8.contains { (48...57).contains($0) }
    }

    /// The time an id of a known method says it was made: `aid` (10) and `aidx` (16: base-36 milliseconds since 2000
    /// in the first 8), `meid`/`meidg` (24 hex: milliseconds since 1970 in the first 12, `meid` with its top bit set)
    /// and `objectid` (24 hex: seconds since 1970 in the first 8) told apart by their shape, `ulid` (26 Crockford
    /// base 32: milliseconds in the first 10). Nil for anything else.
    public static func time(of id: String) -> Date? {
        let characters = Array(id.utf8)
        func isBase36(_ byte: UInt8) -> Bool { (48...57).contains(byte) || (97...122).contains(byte) }
        if characters.count == 10 || characters.count == 16, characters.allSatisfy(isBase36),
            let milliseconds = Int64(String(id.prefix(8)), radix: 36)
        {
            return Date(timeIntervalSince1970: epoch2000 + Double(milliseconds) / 1000)
        }
        if characters.count == 24, let high = UInt64(String(id.prefix(12)), radix: 16), id.allSatisfy(\.isHexDigit) {
            // meid: the time's top bit is set (0x8…); objectid: 8 hex digits of seconds, then machine and counter.
            if high & 0x8000_0000_0000 != 0 { return Date(timeIntervalSince1970: Double(high & 0x7FFF_FFFF_FFFF) / 1000) }
            if let seconds = UInt64(String(id.prefix(8)), radix: 16), seconds > 946_684_800, seconds < 4_102_444_800 {
                return Date(timeIntervalSince1970: Double(seconds))
            }
            return Date(timeIntervalSince1970: Double(high) / 1000)
        }
        if characters.count == 26 {
            let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
            var milliseconds: UInt64 = 0
            for byte in characters.prefix(10) {
                guard let digit = alphabet.firstIndex(of: byte >= 97 ? byte - 32 : byte) else { return nil }
                milliseconds = milliseconds * 32 + UInt64(digit)
            }
            return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        }
        return nil
    }

    /// Whether `id` is newer than `other` on one instance (anything is, than nothing): ids of one method have one
    /// length and sort by time, so longer-then-greater orders them.
    public static func isNewer(_ id: String, than other: String?) -> Bool { PostID.isNewer(id, than: other) }

    /// An id greater than every id of `id`'s length and method: the upper bound that makes Misskey answer a page
    /// between two ids, newest first (with `sinceId` alone it answers the oldest first).
    static func ceiling(above id: String) -> String { String(repeating: "z", count: max(id.count, 1)) }
}
