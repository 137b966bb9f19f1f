import Foundation

/// A command the person gives their mirror by mentioning it from their own account (checked by account id, never by
/// name), in English or Japanese, case- and width-insensitively, with or without a final `.`, `!` or `。`:
///
/// | Command | Words |
/// |---|---|
/// | pause posting | `pause`, `pause posting`, `stop`, `stop posting`, `停止`, `一時停止`, `投稿停止` |
/// | pause everything (posts, answers, likes) | `pause all`, `pause everything`, `stop all`, `stop everything`, `全部停止`, `すべて停止`, `全停止` |
/// | resume | `resume`, `resume posting`, `resume all`, `resume everything`, `start`, `再開`, `全部再開`, `すべて再開` |
/// | forget a post | `forget <link>`, `忘れて <link>` (the link of the person's post) |
/// | end the mirror (consent withdrawn; what was learned deleted) | `stop mirroring me`, `end mirror`, `ミラー終了`, `ミラーを終了` |
/// | the same, named for what it deletes | `forget me`, `forget-me`, `私を忘れて`, `全部忘れて` |
public enum OwnerCommand: Sendable, Equatable {
    /// Pause the scheduled posts.
    case pausePosting
    /// Pause posts, answers and likes.
    case pauseEverything
    /// End the pause.
    case resume
    /// Forget one of the person's posts (its address or id, as written).
    case forget(String)
    /// End the mirror: the person withdraws their consent, and everything learned from them is deleted.
    case endMirror

    static let pausePostingWords: Set = ["pause", "pause posting", "stop", "stop posting", "停止", "一時停止", "投稿停止"]
    static let pauseEverythingWords: Set = ["pause all", "pause everything", "stop all", "stop everything", "全部停止", "すべて停止", "全停止"]
    static let resumeWords: Set = ["resume", "resume posting", "resume all", "resume everything", "start", "再開", "全部再開", "すべて再開"]
    static let forgetWords = ["forget", "忘れて"]
    static let endMirrorWords: Set = [
        "stop mirroring me", "stop mirroring", "end mirror", "end the mirror", "forget me", "forget-me",
        "ミラー終了", "ミラーを終了", "ミラーを終了して", "私を忘れて", "全部忘れて",
    ]

    /// The command `text` gives (the mention's text, its leading @names already removed), nil when it is no command.
    public static func parse(_ text: String) -> OwnerCommand? {
        var folded = WordList.folded(text).trimmingCharacters(in: .whitespacesAndNewlines)
        while let last = folded.last, ".!。！".contains(last) { folded.removeLast() }
        let words = folded.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        if pausePostingWords.contains(words) { return .pausePosting }
        if pauseEverythingWords.contains(words) { return .pauseEverything }
        if resumeWords.contains(words) { return .resume }
        if endMirrorWords.contains(words) { return .endMirror }
        for word in forgetWords where words.hasPrefix(word) {
            // The link as written (case kept: an address's path may need it).
            let original = text.trimmingCharacters(in: .whitespacesAndNewlines)
            let rest = original.dropFirst(word.count).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !rest.isEmpty, !rest.contains(where: \.isWhitespace) else { return nil }
            return .forget(rest)
        }
        return nil
    }

    /// What the command does, for logs and the confirmation.
    public var summary: String {
        switch self {
        case .pausePosting: "pause posting"
        case .pauseEverything: "pause everything"
        case .resume: "resume"
        case .forget(let link): "forget \(link)"
        case .endMirror: "end the mirror"
        }
    }
}

/// Whether a mention asks the bot to stop talking to its author (`OPT_OUT_WORDS`).
public struct OptOutRequest: Sendable {
    /// The words that ask (`OPT_OUT_WORDS`).
    public let words: WordList

    /// The default words: English and Japanese.
    public static let defaultWords = ["stop", "unsubscribe", "opt out", "opt-out", "#nobot", "#nobots", "やめて", "止めて", "停止", "配信停止"]

    /// A request matcher with `words`.
    public init(words: WordList = WordList(OptOutRequest.defaultWords)) { self.words = words }

    /// The word of the list `text` contains, nil when it asks nothing.
    public func match(_ text: String) -> String? { words.firstMatch(in: text) }
}
