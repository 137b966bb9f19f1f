import Foundation

/// Why a mirror did not post or answer, in Japanese, for a person who reads the door in Japanese: the reasons the
/// mirror records (in English, as its log says them) matched by their wording, their times, counts and names carried
/// over. A reason not listed here is shown as it was recorded.
enum DoorReasons {
    /// A recorded reason's wording, and its Japanese with `$1`, `$2`… for what it carries.
    private static let japanese: [(pattern: String, text: String)] = [
        (#"^missed: the bot was not running at (\d\d:\d\d) \((\d+) minutes ago\)"#, "見送り: $1 にミラーが動いていませんでした($2 分前)"),
        (
            #"^missed: the clock jumped forward past (\d\d:\d\d) while the bot ran \(now (\d+) minutes past it\)"#,
            "見送り: 動作中に時計が $1 を飛び越えました(いま $2 分過ぎ)"
        ),
        (
            #"^paused by the person \(posting since (\S+) (\d\d:\d\d);"#,
            "あなたが投稿を一時停止しています($1 $2 から)。ボットに「再開」とメンションすると再開します"
        ),
        (
            #"^paused by the person \(everything since (\S+) (\d\d:\d\d);"#,
            "あなたがすべてを一時停止しています($1 $2 から)。ボットに「再開」とメンションすると再開します"
        ),
        (#"^the person ended the mirror at (\S+) (\d\d:\d\d)"#, "あなたが $1 $2 にミラーを終えました。もう一度サインインするまで投稿しません"),
        (
            #"^the person's sign-in lapsed at (\S+) (\d\d:\d\d)"#,
            "あなたのサインインが $1 $2 に期限切れになりました(ネットワーク側の期限で、あなたの撤回ではありません)。もう一度サインインするまで投稿しません"
        ),
        (#"^interrupted while posting; the post may or may not exist"#, "投稿の途中で中断されました。投稿されたか分からないため、もう一度は送りません"),
        (#"^interrupted before sending \(nothing was sent\)"#, "送る前に中断されました(何も送っていません)。その時刻は過ぎました"),
        (#"^interrupted while posting; (\S+) shows it was not made"#, "投稿の途中で中断されました。$1 に投稿はなく、その時刻は過ぎました"),
        (#"^(\S+) refused (\d+) picks \(duplicates, or too long\)"#, "$1 が候補 $2 件を断りました(重複、または長すぎ)"),
        (#"^(\S+) refused 3 past replies \(duplicates, or too long\)"#, "$1 が過去の返信 3 件を断りました(重複、または長すぎ)"),
        (
            #"^[Nn]othing to post( at (\d\d:\d\d))?: the archive has no postable"#,
            "投稿できるものがありません。アーカイブに今使える投稿がありません(空、最近投稿した、他の人へのメンション、使わない言葉など)"
        ),
        (#"^nothing to post: the remix lost its sources"#, "投稿できるものがありません。リミックスの元の投稿がなくなりました"),
        (#"^nothing to post: "#, "投稿できるものがありません(リミックスの条件に合うものがありません)"),
        (#"^no past reply of the human to this user"#, "この人へのあなたの過去の返信がありません"),
        (#"^already answered (.+) (\d+) times in the last hour"#, "この1時間に $1 へすでに $2 回返信しました"),
        (#"^already answered (\d+) times in this conversation"#, "この会話ですでに $1 回返信しました"),
        (
            #"^every past reply of the human to this user that is left contains a link"#,
            "この人への残りの過去の返信はどれもリンクを含みます(このネットワークではリンクを送りません)"
        ),
        (
            #"^every past reply of the human to this user that is left mentions someone else"#,
            "この人への残りの過去の返信はどれも、他の人へのメンション、使わない言葉を含むもの、または @名前 だけです"
        ),
        (#"^every past reply (that fits was already sent|to this user was refused)"#, "使える過去の返信は、今日すでに送ったか断られました(同じ返信は送れません)"),
        (#"^interrupted while answering; the answer may or may not exist"#, "返信の途中で中断されました。返信されたか分からないため、もう一度は送りません"),
        (#"^interrupted last run before the answer was made"#, "前回、返信の前に中断されました。新しいうちなら返信します"),
        (#"^asked the bot to stop"#, "ボットに止めるよう頼んだ人です"),
        (#"^#nobot in their profile"#, "プロフィールに #nobot がある人です"),
        (#"^today's budget leaves no room"#, "今日の予算に余裕がありません"),
    ]

    /// The patterns, compiled once.
    private static let compiled: [(NSRegularExpression, String)] = japanese.compactMap { entry in
        (try? NSRegularExpression(pattern: entry.pattern)).map { ($0, entry.text) }
    }

    /// `reason` in Japanese where its wording is known; as it was recorded otherwise.
    static func inJapanese(_ reason: String) -> String {
        let range = NSRange(reason.startIndex..., in: reason)
        for (expression, text) in compiled {
            guard let match = expression.firstMatch(in: reason, range: range) else { continue }
            var result = text
            for group in stride(from: match.numberOfRanges - 1, through: 1, by: -1) {
                let value = Range(match.range(at: group), in: reason).map { String(reason[$0]) } ?? ""
                result = result.replacingOccurrences(of: "$\(group)", with: value)
            }
            return result
        }
        return reason
    }

    /// `reason` in the page's language.
    static func shown(_ reason: String, in text: DoorText) -> String { text.language == "ja" ? inJapanese(reason) : reason }
}
