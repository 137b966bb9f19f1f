public import Foundation

/// How Misskey's ids become the bot's, which are decimal 63-bit numbers (its stores key posts and users by 64-bit
/// integers, as X and Mastodon give them). Misskey's ids are strings of the instance's chosen method (`aidx` by
/// default: 8 base-36 digits of milliseconds since 2000, then 8 of node and counter; `aid`, `meid`, `ulid`,
/// `objectid` elsewhere), too long to carry whole in 63 bits, so:
/// - a note's number is its time in milliseconds since 2000 (read from the id, or the note's `createdAt`), shifted
///   left 20 bits, with 20 bits of a hash of the whole id below: newer notes have larger numbers, as on X;
/// - a user's number is a 63-bit FNV-1a hash of `user:` and their id.
/// Neither can be turned back into the id by arithmetic: `MisskeyIDMap` keeps what each number stands for.
public enum MisskeyIDs {
    /// Misskey's epoch for `aid` and `aidx`: 2000-01-01T00:00:00Z.
    static let epoch2000: Double = 946_684_800

    /// The number of the note `id`, made at `createdAt` (used when the id does not say its time).
    public static func number(ofNote id: String, createdAt: Date?) -> Int64? {
        guard let time = time(of: id) ?? createdAt else { return nil }
        let milliseconds = Int64(((time.timeIntervalSince1970 - epoch2000) * 1000).rounded(.down))
        guard milliseconds >= 0, milliseconds < 1 << 42 else { return nil }
        return milliseconds << 20 | Int64(fnv1a(id) & 0xF_FFFF)
    }

    /// The number of the user `id`.
    public static func number(ofUser id: String) -> Int64 { Int64(fnv1a("user:" + id) & UInt64(Int64.max)) }

    /// When the note with `number` was made, to the millisecond.
    public static func time(ofNumber number: Int64) -> Date {
        Date(timeIntervalSince1970: epoch2000 + Double(number >> 20) / 1000)
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
    public static func isNewer(_ id: String, than other: String?) -> Bool {
        guard let other else { return true }
        return id.count != other.count ? id.count > other.count : id > other
    }

    /// An id greater than every id of `id`'s length and method: the upper bound that makes Misskey answer a page
    /// between two ids, newest first (with `sinceId` alone it answers the oldest first).
    static func ceiling(above id: String) -> String { String(repeating: "z", count: max(id.count, 1)) }

    private static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}
