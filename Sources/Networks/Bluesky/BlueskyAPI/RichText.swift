import Foundation

/// A facet (`app.bsky.richtext.facet`): what a range of a post's text is (a link, a mention, a tag), the range given
/// in UTF-8 bytes (a Japanese character is three).
public struct Facet: Codable, Sendable, Equatable {
    /// The range, in UTF-8 bytes from the text's start.
    public var index: ByteSlice
    /// What it is.
    public var features: [FacetFeature]
    /// A facet from its parts.
    public init(index: ByteSlice, features: [FacetFeature]) {
        self.index = index
        self.features = features
    }
}

/// A range of UTF-8 bytes: `byteStart` included, `byteEnd` excluded.
public struct ByteSlice: Codable, Sendable, Equatable {
    /// The first byte.
    public var byteStart: Int
    /// The byte after the last.
    public var byteEnd: Int
    /// A slice from its bounds.
    public init(byteStart: Int, byteEnd: Int) {
        self.byteStart = byteStart
        self.byteEnd = byteEnd
    }
}

/// One feature of a facet.
public enum FacetFeature: Codable, Sendable, Equatable {
    /// A link to `uri`.
    case link(uri: String)
    /// A mention of the account `did`.
    case mention(did: String)
    /// A hashtag, without its `#`.
    case tag(String)
    /// A feature of another type, kept by type only.
    case other(type: String)

    enum CodingKeys: String, CodingKey { case type = "$type", uri, did, tag }

    /// Reads a feature by its `$type`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .type)
        switch type {
        case "app.bsky.richtext.facet#link": self = .link(uri: try container.decode(String.self, forKey: .uri))
        case "app.bsky.richtext.facet#mention": self = .mention(did: try container.decode(String.self, forKey: .did))
        case "app.bsky.richtext.facet#tag": self = .tag(try container.decode(String.self, forKey: .tag))
        default: self = .other(type: type)
        }
    }

    /// Writes it with its `$type`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .link(let uri):
            try container.encode("app.bsky.richtext.facet#link", forKey: .type)
            try container.encode(uri, forKey: .uri)
        case .mention(let did):
            try container.encode("app.bsky.richtext.facet#mention", forKey: .type)
            try container.encode(did, forKey: .did)
        case .tag(let tag):
            try container.encode("app.bsky.richtext.facet#tag", forKey: .type)
            try container.encode(tag, forKey: .tag)
        case .other(let type): try container.encode(type, forKey: .type)
        }
    }
}

/// Finds the links, mentions and hashtags of a post's text and gives their facets, with UTF-8 byte offsets.
///
/// - A link starts at `http://` or `https://` and runs to white space or the first character that is not printable
///   ASCII (Japanese text often follows a link with no space); trailing punctuation and an unbalanced `)` are left out.
/// - A mention is `@handle.domain` after the start, white space or an opening bracket (not an e-mail address); it
///   becomes a facet only when `resolve` finds the handle's DID, else it stays plain text.
/// - A tag is `#` (or `＃`) after the start or white space, then up to 64 characters that are not white space, with
///   trailing punctuation left out; one of digits only is not a tag.
public enum RichText {
    /// The facets of `text`, in the text's order; `resolve` gives a handle's DID (nil: no such account).
    public static func facets(of text: String, resolve: (_ handle: String) async throws -> String?) async rethrows -> [Facet] {
        var found: [(range: Range<String.Index>, feature: FacetFeature)] = []
        for range in links(in: text) { found.append((range, .link(uri: String(text[range])))) }
        for (range, handle) in mentions(in: text) where !found.contains(where: { $0.range.overlaps(range) }) {
            if let did = try await resolve(handle) { found.append((range, .mention(did: did))) }
        }
        for (range, tag) in tags(in: text) where !found.contains(where: { $0.range.overlaps(range) }) {
            found.append((range, .tag(tag)))
        }
        return found.sorted { $0.range.lowerBound < $1.range.lowerBound }.map { item in
            Facet(index: byteSlice(of: item.range, in: text), features: [item.feature])
        }
    }

    /// The handles `text` mentions (`@alice.bsky.social` gives `alice.bsky.social`), in order.
    public static func mentionedHandles(in text: String) -> [String] { mentions(in: text).map(\.handle) }

    /// The UTF-8 byte range of `range` in `text`.
    public static func byteSlice(of range: Range<String.Index>, in text: String) -> ByteSlice {
        ByteSlice(
            byteStart: text.utf8.distance(from: text.startIndex, to: range.lowerBound),
            byteEnd: text.utf8.distance(from: text.startIndex, to: range.upperBound))
    }

    /// The ranges of the links.
    static func links(in text: String) -> [Range<String.Index>] {
        var ranges: [Range<String.Index>] = []
        var rest = text.startIndex
        while let start = text[rest...].firstRange(of: "http")?.lowerBound {
            let afterScheme =
                text[start...].hasPrefix("https://")
                ? text.index(start, offsetBy: 8)
                : text[start...].hasPrefix("http://") ? text.index(start, offsetBy: 7) : nil
            guard let afterScheme else {
                rest = text.index(after: start)
                continue
            }
            var end = afterScheme
            while end < text.endIndex, let ascii = text[end].asciiValue, ascii > 32, ascii < 127 { end = text.index(after: end) }
            // Trailing punctuation ends the sentence, not the link; so does a ")" with no "(" in the link.
            while end > afterScheme {
                let last = text[text.index(before: end)]
                let unbalanced = last == ")" && !text[start..<end].contains("(")
                guard ".,;:!?'\"".contains(last) || unbalanced else { break }
                end = text.index(before: end)
            }
            if end > afterScheme { ranges.append(start..<end) }
            rest = end > start ? end : text.index(after: start)
        }
        return ranges
    }

    /// The ranges of the `@handle.domain` mentions, with each handle.
    static func mentions(in text: String) -> [(range: Range<String.Index>, handle: String)] {
        var found: [(Range<String.Index>, String)] = []
        var index = text.startIndex
        while index < text.endIndex {
            defer { index = index < text.endIndex ? text.index(after: index) : index }
            guard text[index] == "@", startsWord(at: index, in: text) else { continue }
            var end = text.index(after: index)
            while end < text.endIndex, let ascii = text[end].asciiValue,
                (ascii >= 48 && ascii <= 57) || (ascii >= 65 && ascii <= 90) || (ascii >= 97 && ascii <= 122) || ascii == 45 || ascii == 46
            {
                end = text.index(after: end)
            }
            while end > text.index(after: index), text[text.index(before: end)] == "." || text[text.index(before: end)] == "-" {
                end = text.index(before: end)
            }
            let handle = String(text[text.index(after: index)..<end])
            if isHandle(handle) {
                found.append((index..<end, handle.lowercased()))
                index = text.index(before: end)
            }
        }
        return found
    }

    /// The ranges of the hashtags, with each tag without its `#`.
    static func tags(in text: String) -> [(range: Range<String.Index>, tag: String)] {
        var found: [(Range<String.Index>, String)] = []
        var index = text.startIndex
        while index < text.endIndex {
            defer { index = index < text.endIndex ? text.index(after: index) : index }
            guard text[index] == "#" || text[index] == "＃" else { continue }
            guard index == text.startIndex || text[text.index(before: index)].isWhitespace else { continue }
            var end = text.index(after: index)
            while end < text.endIndex, !text[end].isWhitespace { end = text.index(after: end) }
            while end > text.index(after: index), text[text.index(before: end)].isTagEndingPunctuation { end = text.index(before: end) }
            let tag = text[text.index(after: index)..<end]
            guard !tag.isEmpty, tag.count <= 64, !tag.allSatisfy(\.isNumber) else { continue }
            found.append((index..<end, String(tag)))
            index = text.index(before: end)
        }
        return found
    }

    /// Whether the `@` at `index` begins a word: at the start, after white space or an opening bracket.
    private static func startsWord(at index: String.Index, in text: String) -> Bool {
        guard index > text.startIndex else { return true }
        let before = text[text.index(before: index)]
        return before.isWhitespace || "(（「『【".contains(before)
    }

    /// Whether `text` is a handle: domain labels of letters, digits and hyphens, at least two, the last not all digits.
    public static func isHandle(_ text: String) -> Bool {
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, text.utf8.count <= 253 else { return false }
        for label in labels {
            guard !label.isEmpty, label.utf8.count <= 63, label.first != "-", label.last != "-" else { return false }
        }
        return !(labels.last!.allSatisfy(\.isNumber)) && labels.last!.first?.isLetter == true
    }
}

extension Character {
    /// Punctuation that ends a sentence after a tag rather than belonging to it.
    fileprivate var isTagEndingPunctuation: Bool { (isPunctuation && self != "_") || "、。！？".contains(self) }
}

extension PostRecord {
    /// The text with each link written out whole: apps show a long link shortened (`example.com/articles/12…`) and
    /// keep the whole address in its facet, so a copy or a lesson from the text alone would keep the stump. A facet
    /// whose byte range is not on character boundaries within the text is left as it is.
    public var textWithFullLinks: String {
        var bytes = Array(text.utf8)
        let links = (facets ?? []).compactMap { facet -> (range: Range<Int>, uri: String)? in
            guard let uri = facet.features.lazy.compactMap({ feature -> String? in if case .link(let uri) = feature { uri } else { nil } }).first,
                facet.index.byteStart >= 0, facet.index.byteStart < facet.index.byteEnd, facet.index.byteEnd <= bytes.count
            else { return nil }
            return (facet.index.byteStart..<facet.index.byteEnd, uri)
        }.sorted { $0.range.lowerBound > $1.range.lowerBound }
        var end = Int.max
        for link in links where link.range.upperBound <= end {
            end = link.range.lowerBound
            guard let shown = String(validating: bytes[link.range], as: UTF8.self), shown != link.uri,
                String(validating: bytes[..<link.range.lowerBound], as: UTF8.self) != nil
            else { continue }
            bytes.replaceSubrange(link.range, with: Array(link.uri.utf8))
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
