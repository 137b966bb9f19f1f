public import Foundation

/// A timestamp identifier (TID), the record key of posts: 13 characters of base32-sortable encoding a 53-bit count
/// of microseconds since 1970 and a 10-bit clock id. A TID made from what a post is for (its slot, the mention it
/// answers) names the same record however often the write is retried: `putRecord` with it leaves one post.
public struct TID: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The 64-bit value (the top bit zero).
    public let value: UInt64

    static let alphabet = Array("234567abcdefghijklmnopqrstuvwxyz")

    /// The TID of `microseconds` since 1970 and `clockID` (its low 10 bits).
    public init(microseconds: UInt64, clockID: UInt64) {
        value = ((microseconds & ((1 << 53) - 1)) << 10) | (clockID & 1023)
    }

    /// The TID of `date` (to the microsecond) and `clockID`.
    public init(date: Date, clockID: UInt64) {
        self.init(microseconds: UInt64(max(0, (date.timeIntervalSince1970 * 1_000_000).rounded())), clockID: clockID)
    }

    /// The TID for what a record is for, such as "slot 2026-11-22 09:12": its time from `date`, its clock id from
    /// `purpose` (FNV-1a), so that two purposes at the same microsecond still differ.
    public init(date: Date, purpose: String) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in purpose.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        self.init(date: date, clockID: hash)
    }

    /// Reads a TID; nil when `text` is not one. The first character holds the value's top 4 bits, of which the top one
    /// is zero: `2` to `b` (one from `c` to `j` gave a value of 2^63 or more, whose post id named no post).
    public init?(_ text: String) {
        let characters = Array(text)
        guard characters.count == 13, let first = characters.first, "234567ab".contains(first) else { return nil }
        var value: UInt64 = 0
        for character in characters {
            guard let digit = Self.alphabet.firstIndex(of: character) else { return nil }
            value = value << 5 | UInt64(digit)
        }
        self.value = value
    }

    /// The microseconds since 1970.
    public var microseconds: UInt64 { value >> 10 }
    /// The clock id.
    public var clockID: UInt64 { value & 1023 }
    /// When it says it was made.
    public var date: Date { Date(timeIntervalSince1970: Double(microseconds) / 1_000_000) }

    /// The 13 characters.
    public var description: String {
        var characters: [Character] = []
        var rest = value
        for _ in 0..<13 {
            characters.append(Self.alphabet[Int(rest & 31)])
            rest >>= 5
        }
        return String(characters.reversed())
    }
}
