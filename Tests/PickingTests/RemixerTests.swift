import BotCore
import PostText
import SeededRandom
import Testing
import Tokenizer

@testable import Remix

/// Remixes of the person's posts: new texts from their morphemes, never too close to one post, never a link, mention or
/// hashtag the person did not write, within the network's length.
@Suite("Remixed posts")
struct RemixerTests {
    static let tokenizer: PostTokenizer = try! PostTokenizer()

    /// Posts that share words, as a person's do: the chain can go from one to another where they meet.
    static let posts: [RemixSource] = [
        "今日は朝からラーメンを食べた。うまかった", "今日は雨なので家で本を読んでいる", "朝からコーヒーを飲んで仕事を始めた",
        "雨の日は家でコーヒーを飲むのが好き", "仕事が終わったらラーメンを食べに行こう", "本を読んでいると時間を忘れる",
        "週末は友達と映画を見に行こう #映画", "映画を見たあとはラーメンを食べたくなる", "今日は仕事が早く終わった",
        "コーヒーを飲みながら本を読むのが好き", "朝から雨で電車が遅れた", "電車で本を読んでいたら寝てしまった",
    ].enumerated().map { RemixSource(id: PostID($0.offset + 1), text: $0.element) }

    @Test("A text cut into pieces gives itself back; a link, a mention and a hashtag are one piece each")
    func piecesGiveTheTextBack() throws {
        let remixer = Remixer(tokenizer: Self.tokenizer)
        let text = "今日は #ラーメン を食べた https://example.com/a?b=1 @bob_2 and @carol@example.social, so good"
        let pieces = try RemixTokens.pieces(of: text, tokenizer: Self.tokenizer)
        #expect(pieces.joined() == text)
        #expect(
            pieces.contains(" #ラーメン") && pieces.contains(" https://example.com/a?b=1") && pieces.contains(" @bob_2")
                && pieces.contains(" @carol@example.social"), "\(pieces)")
        #expect(try RemixTokens.pieces(of: "  spaced  out\n次の行  ", tokenizer: Self.tokenizer).joined() == "  spaced  out\n次の行")
        let sources = [RemixSource(id: 1, text: text)]
        // The whole text is one run of one source: the overlap of the text with itself is all of it.
        #expect(remixer.overlap(of: text, with: sources) == 1)
        #expect(remixer.overlap(of: "今日は", with: sources) == 1)
        // A hashtag the source does not have, cut into its parts, shares nothing with "#ラーメン" as one piece.
        #expect(remixer.overlap(of: "#ラー", with: sources) == 0)
    }

    @Test("Every remix: not a copy, from at least two posts, no run shared with one post above the limit, within the length")
    func remixesKeepTheirRules() throws {
        var generator = SplitMix64(seed: 7)
        var made = 0
        for limit in [0.5, 0.6, 0.8] {
            let remixer = Remixer(tokenizer: Self.tokenizer, maxOverlap: limit, length: .xWeighted(280))
            for _ in 0..<30 {
                guard case .success(let remix) = remixer.remix(of: Self.posts, using: &generator) else { continue }
                made += 1
                #expect(!Self.posts.map(\.text).contains(remix.text))
                #expect(Set(remix.sourceIDs).count >= 2, "\(remix)")
                #expect(remix.sourceIDs.contains(remix.mainSourceID))
                // Measured again from the text alone, against each source on its own.
                let worst = Self.posts.map { remixer.overlap(of: remix.text, with: [$0]) }.max() ?? 1
                #expect(worst <= limit, "\(remix.text): \(worst)")
                #expect(abs(worst - remix.overlap) < 1e-9)
                #expect(PostLength.xWeighted(280).fits(remix.text))
                // A hashtag only as the person wrote it.
                if remix.text.contains("#") { #expect(remix.text.contains("#映画")) }
            }
        }
        #expect(made >= 30, "most attempts give a remix of these posts")
    }

    @Test("No remix from one post, nor from posts that never meet; the refusal says why")
    func refusals() throws {
        var generator = SplitMix64(seed: 1)
        let remixer = Remixer(tokenizer: Self.tokenizer, attempts: 20)
        let one = remixer.remix(of: [Self.posts[0]], using: &generator)
        #expect(one == .failure(RemixRefusal(sources: 1)))
        #expect("\(RemixRefusal(sources: 1))".contains("at least two"))
        let apart = remixer.remix(of: [RemixSource(id: 1, text: "猫が好き"), RemixSource(id: 2, text: "Dogs are great")], using: &generator)
        guard case .failure(let refusal) = apart else {
            Issue.record("a remix of two posts with nothing in common: \(apart)")
            return
        }
        #expect(refusal.copies == 20, "each walk gives one of the two posts back")
        #expect(refusal.description.hasPrefix("no remix of 2 posts passed (20 a copy or empty)"))
        // Too long for the network: every candidate of these posts is longer than 5 characters.
        let short = Remixer(tokenizer: Self.tokenizer, length: .characters(5), attempts: 20)
        guard case .failure(let tooLong) = short.remix(of: Self.posts, using: &generator) else {
            Issue.record("no post fits 5 characters")
            return
        }
        #expect(tooLong.tooLong + tooLong.copies + tooLong.tooClose + tooLong.oneSource == 20 && tooLong.tooLong > 0, "\(tooLong)")
    }

    @Test("X's weighted length: Japanese weighs 2, Latin 1, a link 23; Mastodon counts characters")
    func lengths() {
        #expect(PostLength.xWeighted(280).length(of: "abc") == 3)
        #expect(PostLength.xWeighted(280).length(of: "日本語") == 6)
        #expect(PostLength.xWeighted(280).length(of: "見て https://example.com/a/very/long/path/indeed") == 2 * 2 + 1 + 23)
        #expect(PostLength.xWeighted(280).fits(String(repeating: "あ", count: 140)))
        #expect(!PostLength.xWeighted(280).fits(String(repeating: "あ", count: 141)))
        #expect(PostLength.characters(500).length(of: "日本語") == 3)
    }
}
