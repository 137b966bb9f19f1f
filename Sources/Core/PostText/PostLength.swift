/// How a network measures a post's length, and the most it takes.
public enum PostLength: Sendable, Equatable {
    /// Characters (grapheme clusters), at most the given count (Mastodon's 500 by default).
    case characters(Int)
    /// X's weighted count: most Latin characters and punctuation weigh 1, everything else (Japanese included) 2, a link 23;
    /// at most the given weight (280).
    case xWeighted(Int)

    /// The length of `text` as the network counts it.
    public func length(of text: String) -> Int {
        switch self {
        case .characters: return text.count
        case .xWeighted:
            var weight = 0
            var rest = Substring(text)
            while let link = rest.firstRange(of: "https://") ?? rest.firstRange(of: "http://") {
                weight += Self.weight(of: rest[..<link.lowerBound]) + 23
                rest = rest[link.lowerBound...]
                rest = rest.drop { !$0.isWhitespace }
            }
            return weight + Self.weight(of: rest)
        }
    }

    /// The most a post may measure.
    public var limit: Int {
        switch self {
        case .characters(let limit), .xWeighted(let limit): return limit
        }
    }

    /// Whether `text` fits.
    public func fits(_ text: String) -> Bool { length(of: text) <= limit }

    /// X's weights (twitter-text's configuration v3): the ranges that weigh 1, per character.
    private static func weight(of text: Substring) -> Int {
        text.reduce(0) { sum, character in
            guard let scalar = character.unicodeScalars.first?.value else { return sum }
            let light = scalar <= 4351 || (8192...8205).contains(scalar) || (8208...8223).contains(scalar) || (8242...8247).contains(scalar)
            return sum + (light ? 1 : 2)
        }
    }
}
