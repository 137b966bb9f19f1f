import Testing

@testable import Tokenizer

@Suite("Tokenizing posts with MeCab")
struct PostTokenizerTests {
    static let tokenizer: PostTokenizer = try! PostTokenizer()

    func nouns(_ text: String) throws -> [String] { try Self.tokenizer.nouns(in: text) }

    @Test("Japanese text gives its content nouns, each once, in order")
    func japanese() throws {
        #expect(try nouns("今日は東京で寿司を食べた") == ["今日", "東京", "寿司"])
        #expect(try nouns("猫と猫と犬") == ["猫", "犬"])
        #expect(try nouns("") == [])
        #expect(try nouns("   \n\t") == [])
    }

    @Test("URLs, @mentions and a leading RT header are not words of the post")
    func urlsMentionsAndRetweets() throws {
        #expect(try nouns("RT @friend_01: @someone 猫がかわいい https://t.co/AbC123 見て http://example.com/a?b=c") == ["猫"])
        #expect(try nouns("@alice @bob_2 ラーメン") == ["ラーメン"])
        let english = try nouns("I love Swift and Redis https://swift.org @swiftlang")
        #expect(english.contains("Swift"))
        #expect(english.contains("Redis"))
        #expect(!english.contains { $0.contains("swift.org") || $0.contains("swiftlang") || $0.contains("http") })
    }

    @Test("HTML entities from the API are decoded before tokenizing")
    func htmlEntities() throws {
        #expect(try nouns("&lt;速報&gt; カレー&amp;ライス") == ["速報", "カレー", "ライス"])
        #expect(HTMLEntities.decode("a &amp;amp; b &#12354; &#x3042; &unknown; &") == "a &amp; b あ あ &unknown; &")
    }

    @Test("NFKC: full-width Latin and half-width katakana become the usual forms")
    func nfkc() throws {
        #expect(try nouns("ＳＷＩＦＴ") == ["SWIFT"])
        #expect(try nouns("ｶﾚｰが好き") == ["カレー", "好き"])  // 好き is a 形容動詞語幹 noun, kept
        #expect(try nouns("＠ｆｒｉｅｎｄ 寿司") == ["寿司"])
        #expect(PostTextNormalizer.needsNFKC("ｶﾚｰ"))
        #expect(PostTextNormalizer.needsNFKC("か\u{3099}"))
        #expect(!PostTextNormalizer.needsNFKC("今日は東京で寿司を食べた! ABC"))
    }

    @Test("Numbers, pronouns, dependent nouns, suffixes, symbols and lone kana are dropped")
    func noise() throws {
        #expect(try nouns("3時に2人で123円のパン") == ["パン"])
        #expect(try nouns("これは私のことです") == [])
        #expect(try nouns("田中さんの本") == ["田中", "本"])
        #expect(try nouns("★☆♪！？ 🍣🍣 ー w") == [])
        #expect(!NounKind.isInformativeSurface("ア"))
        #expect(!NounKind.isInformativeSurface("2024"))
        #expect(NounKind.isInformativeSurface("猫"))
        #expect(NounKind.isInformativeSurface("iPhone15"))
    }

    @Test("Concurrent tasks get the same nouns as one task")
    func concurrency() async throws {
        let texts = (0..<400).map { "今日は\($0 % 7 == 0 ? "東京" : "大阪")で\($0 % 3 == 0 ? "寿司" : "ラーメン")を食べた #グルメ https://t.co/\($0)" }
        let expected = try texts.map { try Self.tokenizer.nouns(in: $0) }
        let results = try await withThrowingTaskGroup(of: (Int, [[String]]).self) { group in
            for worker in 0..<8 {
                group.addTask {
                    (worker, try texts.map { try Self.tokenizer.nouns(in: $0) })
                }
            }
            var all: [[[String]]] = []
            for try await (_, nouns) in group { all.append(nouns) }
            return all
        }
        #expect(results.count == 8)
        for result in results { #expect(result == expected) }
    }

    @Test("A missing dictionary names the package to install")
    func missingDictionary() throws {
        let error = try #require(throws: TokenizerError.self) { try PostTokenizer(dictionaryDirectory: "/nonexistent/mecab-dic") }
        #expect(error.description.contains("apt-get install mecab-ipadic-utf8"))
        #expect(error.description.contains("/nonexistent/mecab-dic"))
    }
}
