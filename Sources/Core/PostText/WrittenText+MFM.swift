import Foundation

extension WrittenText {
    /// The words of a Misskey note's MFM, its markup taken out (for the tokenizer; a copy keeps the MFM as written):
    /// functions `$[x2 text]` give their text, `**bold**`, `~~strike~~`, `<small>`, `<center>`, `<i>`, `<b>`, `<s>`
    /// and `<plain>` their content, custom emoji `:name:` nothing, quote marks at the start of a line go. Mentions,
    /// hashtags and links stay. Each kind of markup is one pass over the text (functions, nested, at most 16).
    public static func from(mfm text: String) -> String {
        var result = text
        // Functions, innermost first: `$[fn.arg=1 content]` → content (a function never closed stays as written).
        for _ in 0..<16 {
            let replaced = result.replacing(/\$\[[A-Za-z0-9_.,=\-]+ ([^\[\]]*)\]/) { $0.1 }
            if replaced == result { break }
            result = replaced
        }
        result = result.replacing(/<\/?(?:small|center|i|b|s|plain|sup|sub)>/, with: "")
        result = result.replacing(/\*\*\*?([^*\n]+?)\*\*\*?/) { $0.1 }
        result = result.replacing(/~~([^~\n]+?)~~/) { $0.1 }
        result = result.replacing(/__([^_\n]+?)__/) { $0.1 }
        result = result.replacing(/(^|[^A-Za-z0-9_]):[A-Za-z0-9_+\-]+:(?![A-Za-z0-9_])/) { $0.1 }
        result = result.replacing(/(?m)^> ?/, with: "")
        return result.replacing(/[ \t]{2,}/, with: " ").trimmingCharacters(in: .whitespaces)
    }
}
