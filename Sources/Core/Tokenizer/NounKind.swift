/// The subtype of an IPAdic noun (the second field of `名詞,<subtype>,...`), and which subtypes are kept.
///
/// Dropped, because they occur in posts about anything and would only add noise to the counts:
/// - 数 (numbers: 1, 二, 100): times, counts and dates, never a topic;
/// - 非自立 (dependent nouns: こと, もの, ん, よう): grammar, not content;
/// - 代名詞 (pronouns: これ, 私, あなた);
/// - 接尾 (suffixes: さん, ちゃん, 的, 円, 時): they attach to a real word, which is kept;
/// - 特殊 (special, such as そう in そうだ).
/// Kept: 一般, 固有名詞, サ変接続, 形容動詞語幹, ナイ形容詞語幹, 副詞可能 (今日, 最近: they do mark kinds of posts),
/// 接続詞的, 動詞非自立的, 引用文字列, and anything a dictionary adds.
struct NounKind {
    private static let nounPrefix = Array("名詞,".utf8)
    private static let droppedSubtypes: Set<[UInt8]> = Set(["数", "非自立", "代名詞", "接尾", "特殊"].map { Array($0.utf8) })

    /// The subtype's UTF-8 bytes.
    let subtype: [UInt8]

    /// The noun kind of a MeCab feature string, or nil when the morpheme is not a noun.
    init?(feature: UnsafePointer<CChar>) {
        var index = 0
        for byte in Self.nounPrefix {
            guard UInt8(bitPattern: feature[index]) == byte else { return nil }
            index += 1
        }
        var subtype: [UInt8] = []
        while feature[index] != 0 && feature[index] != CChar(UInt8(ascii: ",")) {
            subtype.append(UInt8(bitPattern: feature[index]))
            index += 1
        }
        self.subtype = subtype
    }

    /// Whether nouns of this kind are learned.
    var isInformative: Bool { !Self.droppedSubtypes.contains(subtype) }

    /// Surfaces dropped whatever their kind: those with no letter or digit (lone symbols and emoji, which MeCab
    /// often tags as unknown nouns), pure numbers, and a single kana or Latin letter (ー, w for laughter), which
    /// is a fragment more often than a word.
    static func isInformativeSurface(_ surface: String) -> Bool {
        var letters = 0
        var digits = 0
        var count = 0
        var onlyKanaOrLatin = true
        for scalar in surface.unicodeScalars {
            count += 1
            let properties = scalar.properties
            if properties.numericType != nil { digits += 1 } else if properties.isAlphabetic { letters += 1 }
            let value = scalar.value
            let isKana = (0x3040...0x30FF).contains(value) || (0x31F0...0x31FF).contains(value)
            let isLatin = scalar.isASCII && properties.isAlphabetic
            if !isKana && !isLatin { onlyKanaOrLatin = false }
        }
        if letters == 0 { return false }  // symbols only, or digits only
        if count == 1 && onlyKanaOrLatin { return false }
        return true
    }
}
