import Foundation

/// Makes a post's text ready for MeCab: HTML entities decoded, Unicode NFKC (full-width letters and digits
/// become ASCII, half-width katakana become full-width, so the same word always looks the same), then a leading
/// `RT @name:`, URLs and @mentions removed (they are not words of the post; the author is a feature of its own).
public enum PostTextNormalizer {
    /// The normalised text.
    public static func normalize(_ text: String) -> String {
        var text = HTMLEntities.decode(text)
        if needsNFKC(text) { text = text.precomposedStringWithCompatibilityMapping }
        return removingRetweetHeaderURLsAndMentions(text)
    }

    /// False when `text` is certainly already in NFKC, so the (slow, on Linux) Foundation call can be skipped:
    /// no scalar changes under NFKC_Casefold other than ASCII capitals (NFKC_CF changes every scalar NFKC changes),
    /// and nothing that composes with a neighbour (combining marks, conjoining Hangul jamo).
    static func needsNFKC(_ text: String) -> Bool {
        for scalar in text.unicodeScalars where !scalar.isASCII {
            let properties = scalar.properties
            if properties.changesWhenNFKCCaseFolded { return true }
            switch properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark: return true
            default: break
            }
            if (0x1100...0x11FF).contains(scalar.value) || (0xA960...0xA97F).contains(scalar.value)
                || (0xD7B0...0xD7FF).contains(scalar.value)
            {
                return true
            }
        }
        return false
    }

    private static func removingRetweetHeaderURLsAndMentions(_ text: String) -> String {
        var scalars = Substring(text).unicodeScalars
        // A leading "RT @name:" (the old-style manual retweet) names the retweeted author, not the human's words.
        if scalars.starts(with: "RT @".unicodeScalars) {
            var index = scalars.index(scalars.startIndex, offsetBy: 4)
            while index < scalars.endIndex, isUsernameScalar(scalars[index]) { index = scalars.index(after: index) }
            if index < scalars.endIndex, scalars[index] == ":" { scalars = scalars[scalars.index(after: index)...] }
        }
        var result = String.UnicodeScalarView()
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let scalar = scalars[index]
            if scalar == "h" || scalar == "H", let end = urlEnd(in: scalars, from: index) {
                result.append(" ")
                index = end
                continue
            }
            if scalar == "@" {
                var end = scalars.index(after: index)
                while end < scalars.endIndex, isUsernameScalar(scalars[end]) { end = scalars.index(after: end) }
                if end > scalars.index(after: index) {
                    result.append(" ")
                    index = end
                    continue
                }
            }
            result.append(scalar)
            index = scalars.index(after: index)
        }
        return String(result)
    }

    /// The end of an `http://` or `https://` URL starting at `start` (it runs to the next whitespace), or nil.
    private static func urlEnd(in scalars: Substring.UnicodeScalarView, from start: Substring.UnicodeScalarView.Index) -> Substring.UnicodeScalarView
        .Index?
    {
        let rest = scalars[start...]
        let lowercasedPrefix = String(String.UnicodeScalarView(rest.prefix(8))).lowercased()
        let schemeLength: Int
        if lowercasedPrefix.hasPrefix("https://") {
            schemeLength = 8
        } else if lowercasedPrefix.hasPrefix("http://") {
            schemeLength = 7
        } else {
            return nil
        }
        var end = scalars.index(start, offsetBy: schemeLength)
        while end < scalars.endIndex, !scalars[end].properties.isWhitespace { end = scalars.index(after: end) }
        return end
    }

    /// X usernames are ASCII letters, digits and underscores.
    private static func isUsernameScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar == "_" || scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))
    }
}
