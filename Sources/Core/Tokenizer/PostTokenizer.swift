public import Foundation

/// Turns a post's text into the words the favorite filter learns from: the distinct nouns (MeCab, IPAdic part of
/// speech 名詞) of the normalised text, minus the kinds of noun that say nothing about a post's topic.
///
/// Safe to call from concurrent tasks: each call borrows its own MeCab tagger. Calls are CPU work of tens of
/// microseconds and do not block on I/O, so they run on the caller's thread.
public final class PostTokenizer: NounTokenizer {
    private let model: MeCabModel

    /// Loads the dictionary from `dictionaryDirectory`, by default `MECAB_DICDIR`, else MeCab's default (mecabrc).
    public init(dictionaryDirectory: String? = ProcessInfo.processInfo.environment["MECAB_DICDIR"]) throws {
        let directory = dictionaryDirectory.flatMap { $0.isEmpty ? nil : $0 }
        model = try MeCabModel(dictionaryDirectory: directory)
    }

    /// The distinct nouns of `text` worth learning, in order of first appearance.
    public func nouns(in text: String) throws -> [String] {
        let normalized = PostTextNormalizer.normalize(text)
        var nouns: [String] = []
        var seen = Set<String>()
        try model.forEachMorpheme(in: normalized) { morpheme in
            guard let kind = NounKind(feature: morpheme.feature), kind.isInformative else { return }
            let surface = String(decoding: morpheme.surface, as: UTF8.self)
            guard NounKind.isInformativeSurface(surface), seen.insert(surface).inserted else { return }
            nouns.append(surface)
        }
        return nouns
    }
}

extension PostTokenizer: MorphemeTokenizer {
    /// Every morpheme of `text` as written (not normalised), each with the white space that came before it.
    public func morphemes(in text: String) throws -> [TextMorpheme] {
        var morphemes: [TextMorpheme] = []
        let bytes = Array(text.utf8)
        var end = 0
        try model.forEachMorpheme(in: text) { morpheme in
            let gap = end < morpheme.offset ? String(decoding: bytes[end..<morpheme.offset], as: UTF8.self) : ""
            morphemes.append(TextMorpheme(surface: String(decoding: morpheme.surface, as: UTF8.self), spaceBefore: gap))
            end = morpheme.offset + morpheme.surface.count
        }
        return morphemes
    }
}

/// A morpheme as written in a text, and the white space before it (empty between two Japanese words).
public struct TextMorpheme: Sendable, Hashable {
    /// The morpheme's characters.
    public var surface: String
    /// The white space between the previous morpheme and this one.
    public var spaceBefore: String

    /// A morpheme from its parts.
    public init(surface: String, spaceBefore: String = "") {
        self.surface = surface
        self.spaceBefore = spaceBefore
    }
}

/// What a remix needs of a tokenizer: a text cut into its morphemes, nothing dropped but white space (kept beside them).
public protocol MorphemeTokenizer: Sendable {
    /// Every morpheme of `text` as written, each with the white space that came before it.
    func morphemes(in text: String) throws -> [TextMorpheme]
}

/// What the favorite filter needs of a tokenizer: a text's nouns worth learning, or an error for a text it refuses.
public protocol NounTokenizer: Sendable {
    /// The distinct nouns of `text` worth learning, in order of first appearance.
    func nouns(in text: String) throws -> [String]
}
