public import BotCore
public import PostText
public import Tokenizer

/// One of the person's posts a remix may draw from.
public struct RemixSource: Sendable, Equatable {
    /// The post's id.
    public var id: PostID
    /// What it says.
    public var text: String

    /// A source from its parts.
    public init(id: PostID, text: String) {
        self.id = id
        self.text = text
    }
}

/// A new post written from the person's posts, and where its words came from.
public struct Remix: Sendable, Equatable {
    /// The post.
    public var text: String
    /// The source posts it was put together from, in the order their runs appear in it (at least two), and the source
    /// of its longest run.
    public var sourceIDs: [PostID]
    /// The source that gave its longest run of morphemes.
    public var mainSourceID: PostID
    /// The longest run of consecutive morphemes it shares with one source post, as a share of its morphemes (0 to 1).
    public var overlap: Double
    /// How many morphemes it has.
    public var morphemes: Int
}

/// Why no remix could be written, for the line that says so.
public struct RemixRefusal: Error, Equatable, CustomStringConvertible {
    /// How many source posts there were.
    public var sources: Int
    /// Candidates whose longest run shared with one source was above the limit.
    public var tooClose = 0
    /// Candidates whose runs all came from one source.
    public var oneSource = 0
    /// Candidates longer than the network allows.
    public var tooLong = 0
    /// Candidates identical to a source, or empty.
    public var copies = 0
    /// Candidates the caller's rule refused (a blocked word, a remix posted lately).
    public var refused = 0

    /// A refusal of `sources` posts, before any candidate.
    public init(sources: Int) { self.sources = sources }

    /// The line: what was tried and why each candidate failed.
    public var description: String {
        guard sources >= 2 else { return "a remix needs at least two of the person's posts, and \(sources) could be drawn" }
        let reasons = [
            (tooClose, "too close to one post"), (oneSource, "from one post only"), (tooLong, "too long for the network"),
            (copies, "a copy or empty"), (refused, "blocked or posted lately"),
        ].filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
        return "no remix of \(sources) posts passed (\(reasons.joined(separator: ", ")))"
    }
}

/// Writes new posts from the person's own: a Markov chain of order `order` over the MeCab morphemes of the source posts
/// (a link, an @mention or a #hashtag is one token, so it appears whole and only as the person wrote it), run from the
/// start of a post to its end. A candidate is rejected when any run of consecutive morphemes it shares with one source
/// post is more than `maxOverlap` of its morphemes, when its runs come from fewer than two source posts, when it is a
/// source's text again, or when it is longer than the network takes.
public struct Remixer: Sendable {
    /// The chain's order: how many morphemes choose the next (`REMIX_ORDER`).
    public let order: Int
    /// The largest share of a remix one run shared with one source may cover (`REMIX_MAX_OVERLAP`).
    public let maxOverlap: Double
    /// The network's length rule.
    public let length: PostLength
    /// Candidates written before giving up.
    public let attempts: Int
    /// The chance that the walk, where the chain leaves one choice, takes the next morpheme from the chain of order 1
    /// (`script/bench-remix` on the generated person: slots filled 30% with none, 99% with 0.2, 100% with 0.5, the
    /// remixes' likelihood under the person's held-out posts nearer the ceiling the less it backs off).
    public let backoff: Double
    private let tokenizer: any MorphemeTokenizer

    /// The longest candidate, in morphemes, before it is abandoned.
    static let maxMorphemes = 200

    /// A remixer that cuts texts with `tokenizer`.
    public init(
        tokenizer: any MorphemeTokenizer, order: Int = 2, maxOverlap: Double = 0.6, length: PostLength = .characters(500),
        attempts: Int = 200, backoff: Double = 0.3
    ) {
        self.backoff = backoff
        self.tokenizer = tokenizer
        self.order = max(1, order)
        self.maxOverlap = maxOverlap
        self.length = length
        self.attempts = attempts
    }

    /// A remix of `sources` that `accepts` (a rule of the caller's: no blocked word, not posted lately), or why none
    /// passed; a text the tokenizer refuses is left out of the sources.
    public func remix(
        of sources: [RemixSource], using generator: inout some RandomNumberGenerator,
        accepting accepts: (String) -> Bool = { _ in true }
    ) -> Result<Remix, RemixRefusal> {
        let corpus = Corpus(sources: sources, tokenizer: tokenizer, order: order)
        var refusal = RemixRefusal(sources: corpus.sourceIDs.count)
        guard corpus.sourceIDs.count >= 2 else { return .failure(refusal) }
        for _ in 0..<attempts {
            guard let tokens = corpus.walk(backoff: backoff, using: &generator) else {
                refusal.tooLong += 1
                continue
            }
            let text = corpus.text(of: tokens)
            guard !tokens.isEmpty, !corpus.texts.contains(text) else {
                refusal.copies += 1
                continue
            }
            guard length.fits(text) else {
                refusal.tooLong += 1
                continue
            }
            let runs = corpus.runs(in: tokens)
            let overlap = Double(runs.longest.count) / Double(tokens.count)
            guard overlap <= maxOverlap else {
                refusal.tooClose += 1
                continue
            }
            guard runs.sources.count >= 2 else {
                refusal.oneSource += 1
                continue
            }
            guard accepts(text) else {
                refusal.refused += 1
                continue
            }
            // The sources are the cover's, and the longest run's (which the cover may have split).
            let sources = runs.sources.contains(runs.longest.source) ? runs.sources : runs.sources + [runs.longest.source]
            return .success(
                Remix(
                    text: text, sourceIDs: sources.map { corpus.sourceIDs[$0] },
                    mainSourceID: corpus.sourceIDs[runs.longest.source], overlap: overlap, morphemes: tokens.count))
        }
        return .failure(refusal)
    }

    /// The longest run of consecutive morphemes `text` shares with one of `sources`, as a share of the morphemes of
    /// `text` (what the limit is checked against); 0 for a text with no morphemes.
    public func overlap(of text: String, with sources: [RemixSource]) -> Double {
        let corpus = Corpus(sources: sources, tokenizer: tokenizer, order: order)
        let tokens = corpus.tokens(of: text)
        guard !tokens.isEmpty else { return 0 }
        return Double(corpus.runs(in: tokens).longest.count) / Double(tokens.count)
    }
}

/// The source posts cut into tokens (a morpheme with the white space before it, or a whole link, mention or hashtag),
/// each token numbered, and the chain: for each `order` tokens, every token that followed them in a source.
struct Corpus {
    /// The token that starts and ends every post.
    static let boundary: Int32 = 0

    private(set) var vocabulary: [String] = [""]
    private var numbers: [String: Int32] = [:]
    /// Each source's tokens, without boundaries.
    private(set) var posts: [[Int32]] = []
    /// The ids of the sources in `posts`.
    private(set) var sourceIDs: [PostID] = []
    /// The sources' texts, as they would be written again from their tokens.
    private(set) var texts: Set<String> = []
    /// Where each token occurs: (post, position).
    private var occurrences: [Int32: [(post: Int, position: Int)]] = [:]
    private var chain: [[Int32]: [Int32]] = [:]
    /// The chain of order 1 (every token that followed each token), for where the walk backs off.
    private var shortChain: [Int32: [Int32]] = [:]
    private let order: Int
    private let tokenizer: any MorphemeTokenizer

    init(sources: [RemixSource], tokenizer: any MorphemeTokenizer, order: Int) {
        self.order = order
        self.tokenizer = tokenizer
        for source in sources {
            guard let pieces = try? RemixTokens.pieces(of: source.text, tokenizer: tokenizer), !pieces.isEmpty else { continue }
            let post = pieces.map { number($0) }
            let index = posts.count
            posts.append(post)
            sourceIDs.append(source.id)
            texts.insert(text(of: post))
            for (position, token) in post.enumerated() { occurrences[token, default: []].append((index, position)) }
            let padded = Array(repeating: Self.boundary, count: order) + post + [Self.boundary]
            for end in order..<padded.count { chain[Array(padded[(end - order)..<end]), default: []].append(padded[end]) }
            for end in order..<padded.count { shortChain[padded[end - 1], default: []].append(padded[end]) }
        }
    }

    private mutating func number(_ piece: String) -> Int32 {
        if let known = numbers[piece] { return known }
        let new = Int32(vocabulary.count)
        vocabulary.append(piece)
        numbers[piece] = new
        return new
    }

    /// The tokens of `text` as numbered here; a token no source has is numbered apart (it matches nothing).
    func tokens(of text: String) -> [Int32] {
        let pieces = (try? RemixTokens.pieces(of: text, tokenizer: tokenizer)) ?? []
        return pieces.map { numbers[$0] ?? -1 }
    }

    /// A walk of the chain from a post's start to its end; nil when it runs past `Remixer.maxMorphemes`.
    func walk(backoff: Double, using generator: inout some RandomNumberGenerator) -> [Int32]? {
        var state = Array(repeating: Self.boundary, count: order)
        var tokens: [Int32] = []
        while tokens.count <= Remixer.maxMorphemes {
            guard var followers = chain[state], !followers.isEmpty else { return tokens }
            // Where the state has one follower (a run of one post going on), the walk may take the next token from any
            // post where the last token was seen, with probability `backoff`: a point where posts can meet.
            if order > 1, !tokens.isEmpty, followers.allSatisfy({ $0 == followers[0] }), Double.random(in: 0..<1, using: &generator) < backoff,
                let wider = shortChain[state[order - 1]]
            {
                followers = wider
            }
            let next = followers[Int.random(in: 0..<followers.count, using: &generator)]
            if next == Self.boundary { return tokens }
            tokens.append(next)
            state.removeFirst()
            state.append(next)
        }
        return nil
    }

    /// The text the tokens write: their pieces one after the other, without white space before the first.
    func text(of tokens: [Int32]) -> String {
        var text = tokens.map { $0 >= 0 ? vocabulary[Int($0)] : "" }.joined()
        while text.first?.isWhitespace == true { text.removeFirst() }
        return text
    }

    /// The runs `tokens` shares with the sources: the longest (its source and length), and the sources of a cover of
    /// `tokens` by runs taken greedily from the start, each the longest shared with one source there.
    func runs(in tokens: [Int32]) -> (longest: (source: Int, count: Int), sources: [Int]) {
        var longest = (source: 0, count: 0)
        var runAt: [(source: Int, count: Int)] = []
        for start in tokens.indices {
            var best = (source: -1, count: 0)
            for (post, position) in occurrences[tokens[start]] ?? [] {
                let source = posts[post]
                var count = 0
                while start + count < tokens.count, position + count < source.count, source[position + count] == tokens[start + count] { count += 1 }
                if count > best.count { best = (post, count) }
            }
            runAt.append(best)
            if best.count > longest.count { longest = best }
        }
        var sources: [Int] = []
        var start = 0
        while start < tokens.count {
            let run = runAt[start]
            if run.source >= 0, !sources.contains(run.source) { sources.append(run.source) }
            start += max(1, run.count)
        }
        return (longest, sources)
    }
}

/// How a post's text is cut for a remix: links, @mentions and #hashtags whole, everything else into MeCab morphemes,
/// each piece carrying the white space before it.
enum RemixTokens {
    /// The text's pieces, in order; written one after the other they give the text back, less its trailing white space.
    static func pieces(of text: String, tokenizer: any MorphemeTokenizer) throws -> [String] {
        var pieces: [String] = []
        var pendingSpace = ""
        func addPlain(_ run: Substring) throws {
            guard !run.isEmpty else { return }
            let morphemes = try tokenizer.morphemes(in: String(run))
            for (index, morpheme) in morphemes.enumerated() {
                pieces.append((index == 0 ? pendingSpace : "") + morpheme.spaceBefore + morpheme.surface)
            }
            if !morphemes.isEmpty { pendingSpace = "" }
            pendingSpace += String(run.reversed().prefix { $0.isWhitespace }.reversed())
            if morphemes.isEmpty { pendingSpace = String(run.filter(\.isWhitespace)) }
        }
        var rest = Substring(text)
        while let match = rest.firstMatch(of: atom) {
            try addPlain(rest[..<match.range.lowerBound])
            pieces.append(pendingSpace + rest[match.range])
            pendingSpace = ""
            rest = rest[match.range.upperBound...]
        }
        try addPlain(rest)
        return pieces
    }

    /// A link, an @mention (with its instance, if any) or a #hashtag.
    nonisolated(unsafe) static let atom = #/https?://[^\s]+|[@＠][A-Za-z0-9_]+(?:@[A-Za-z0-9.\-]+[A-Za-z0-9])?|[#＃][\p{L}\p{N}\p{M}_ー]+/#
}
