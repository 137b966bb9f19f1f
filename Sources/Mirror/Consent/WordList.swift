import Foundation

/// Words looked for in a text, case- and width-insensitively (both sides folded with NFKC and lowercased, so that
/// `ＳＴＯＰ`, `Stop` and `stop` are one word, and half-width `ﾔﾒﾃ` is `ヤメテ`): `BLOCKED_WORDS`, `OPT_OUT_WORDS`.
///
/// A word of ASCII letters and digits matches only as a whole word (`stop` is not found in `stopwatch`); any other
/// word (Japanese, which has no spaces; `#nobot`) matches wherever it appears.
public struct WordList: Sendable, Equatable {
    /// The words, folded, without empty ones.
    public let words: [String]

    /// A list of `words`, folded; empty entries are dropped.
    public init(_ words: [String]) {
        var seen = Set<String>()
        self.words = words.map { Self.folded($0).trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty && seen.insert($0).inserted }
    }

    /// Whether the list has no word.
    public var isEmpty: Bool { words.isEmpty }

    /// The first word of the list found in `text`, as the list holds it; nil when none is.
    public func firstMatch(in text: String) -> String? {
        guard !words.isEmpty else { return nil }
        let haystack = Self.folded(text)
        return words.first { Self.contains(haystack, word: $0) }
    }

    /// `text` folded: NFKC (full-width letters to ASCII, half-width kana to full-width), then lowercased.
    public static func folded(_ text: String) -> String {
        text.precomposedStringWithCompatibilityMapping.lowercased()
    }

    /// Whether folded `text` holds `word`, as a whole word when `word` is ASCII letters and digits.
    static func contains(_ text: String, word: String) -> Bool {
        let isWordLike = word.unicodeScalars.allSatisfy(isASCIIWordCharacter)
        guard isWordLike else { return text.contains(word) }
        var searchStart = text.startIndex
        while let range = text.range(of: word, range: searchStart..<text.endIndex) {
            let before = range.lowerBound == text.startIndex ? nil : text.unicodeScalars[text.unicodeScalars.index(before: range.lowerBound)]
            let after = range.upperBound == text.endIndex ? nil : text.unicodeScalars[range.upperBound]
            if !(before.map(isASCIIWordCharacter) ?? false) && !(after.map(isASCIIWordCharacter) ?? false) { return true }
            searchStart = text.index(after: range.lowerBound)
        }
        return false
    }

    private static func isASCIIWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_")
    }
}
