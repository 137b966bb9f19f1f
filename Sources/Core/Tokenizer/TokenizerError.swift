/// Why text could not be tokenized, as sentences that say what to do.
public enum TokenizerError: Error, Equatable, CustomStringConvertible {
    /// No MeCab dictionary could be loaded.
    case dictionaryUnavailable(directory: String?, reason: String)
    /// The dictionary is not in UTF-8 (for example Debian's EUC-JP `mecab-ipadic` without `-utf8`).
    case dictionaryNotUTF8(charset: String)
    /// MeCab failed on a text.
    case parseFailed(reason: String)

    /// A readable sentence.
    public var description: String {
        switch self {
        case .dictionaryUnavailable(let directory, let reason):
            let place = directory.map { "from MECAB_DICDIR=\($0)" } ?? "(MeCab's default, from mecabrc)"
            return
                "Could not load the MeCab dictionary \(place): \(reason). Install it with `apt-get install mecab-ipadic-utf8`, or set MECAB_DICDIR to a UTF-8 dictionary's directory."
        case .dictionaryNotUTF8(let charset):
            return
                "The MeCab dictionary is in \(charset), not UTF-8. Install `mecab-ipadic-utf8` (`apt-get install mecab-ipadic-utf8`) or set MECAB_DICDIR to a UTF-8 dictionary."
        case .parseFailed(let reason):
            return "MeCab could not parse a text: \(reason)"
        }
    }
}
