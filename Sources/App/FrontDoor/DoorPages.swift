import Foundation

/// The front door's words, in the browser's language: Japanese when it asks for it first, else English.
struct DoorText: Sendable {
    let language: String
    let title: String
    let intro: String
    let signInHeading: String
    let network: String
    let server: String
    let serverHint: String
    let signIn: String
    let signedInAs: String
    let mirrorNotYet: String
    let signOut: String
    let refusedHeading: String
    let back: String
    let noFleet: String
    let signUpClosed: String
    let byInvitation: String
    let invitationReady: String
    let invitationNotOpen: String
    let invitationField: String
    let invitationUse: String
    let visibility: String
    let importingHeading: String
    let importingFor: String
    let importingCount: String
    let importingHint: String
    let visibilityQuiet: String
    let visibilityPublic: String
    let visibilityFollowers: String
    let blocked: String
    let blockedHint: String
    let botHeading: String
    let botIntro: String
    let signInBot: String
    let botIs: String
    let createHeading: String
    let timeZone: String
    let style: String
    let styleCopy: String
    let styleRemix: String
    let likes: String
    let agree: String
    let create: String
    let yourMirror: String
    let pausedBecause: String
    let running: String
    let waiting: String
    let start: String
    let pause: String
    let deleteHeading: String
    let deleteIntro: String
    let deleteConfirm: String
    let delete: String
    let deletedHeading: String
    let consentRecorded: String
    let latelyHeading: String
    let nothingYet: String
    let didPost: String
    let didRemix: String
    let didSkip: String
    let didAnswer: String
    let didNotAnswer: String
    let didLike: String
    let seeIt: String
    let download: String
    let archiveHeading: String
    let archiveIntro: String
    let archiveFile: String
    let archiveUpload: String
    let importedHeading: String
    let previewLink: String
    let choicesHeading: String
    let choicesHint: String
    let choicesSave: String
    let previewHeading: String
    let previewIntro: String
    let previewHours: String
    let previewPlanned: String
    let previewPosts: String
    let previewFrom: String
    let previewNothing: String
    let previewReplies: String
    let previewLikes: String
    let previewEmpty: String

    static let english = DoorText(
        language: "en", title: "mirror_bot",
        intro:
            "A bot account that posts as you post: your own past posts, at your kind of hours. It mirrors only someone who signed in as themselves, and stops when they say so.",
        signInHeading: "Sign in as yourself", network: "Network", server: "Your server (or handle)", serverHint: "such as",
        signIn: "Sign in", signedInAs: "Signed in as", mirrorNotYet: "Your mirror is not set up yet.", signOut: "Sign out",
        refusedHeading: "That did not work", back: "Back to the start",
        noFleet: "This door signs people in, but its operator has not connected it to a fleet yet: no mirror can be made here for now.",
        signUpClosed: "This door makes no new mirrors for now, by its operator's choice. Those who have one still see, pause and delete it here.",
        byInvitation:
            "This door makes mirrors by invitation: open the link you were given, or paste it below. Those who have a mirror sign in to see it.",
        invitationReady: "Your invitation is ready: sign in as yourself, then with the bot's account, to make your mirror.",
        invitationNotOpen: "This invitation was used already, withdrawn, or has expired: ask whoever gave it to you for another.",
        invitationField: "Your invitation (its link or its code)", invitationUse: "Use my invitation",
        visibility: "Who sees its posts", importingHeading: "Importing your archive", importingFor: "Importing for {seconds} s:",
        importingCount: "your mirror's archive holds {count} posts so far.",
        importingHint: "This page looks again every 2 seconds and shows what was imported once it is done. You may leave it: the import goes on.",
        visibilityQuiet: "Anyone, on its profile (not in the public timelines)",
        visibilityPublic: "Anyone, in the public timelines too", visibilityFollowers: "Its followers only",
        blocked: "Words it never posts or answers with (optional)",
        blockedHint: "Separated by commas, up to 100: a post or answer with one of them is never sent, another is picked.",
        botHeading: "Next: the bot's account",
        botIntro:
            "Sign in the account your mirror will post as: a bot account of your own, not your personal one. Mark it as a bot on its profile.",
        signInBot: "Sign in the bot's account", botIs: "The bot's account:", createHeading: "Make your mirror",
        timeZone: "Your time zone (the hours it posts at)", style: "What it posts",
        styleCopy: "Your own past posts, as you wrote them", styleRemix: "New posts made from your words", likes: "Like what you would like",
        agree: "I agree that my posts and likes are learned, and that the bot posts as described. I can pause or delete it at any time here.",
        create: "Make my mirror (it starts paused)", yourMirror: "Your mirror posts as", pausedBecause: "Paused:",
        running: "Running: a process of the fleet runs it now.", waiting: "Started: waiting for a process of the fleet to take it up.",
        start: "Start", pause: "Pause", deleteHeading: "Delete everything",
        deleteIntro:
            "Deletes your mirror and everything it keeps of you: your archive, the word counts, its plans and likes, and both accounts' sign-ins as kept here. The bot's posts stay on the network. Where the network lets the door, both sign-ins are taken back there too; the receipt says if they were not (then remove the app there). You are signed out.",
        deleteConfirm: "Yes, delete my mirror and everything it keeps", delete: "Delete", deletedHeading: "Deleted",
        consentRecorded: "Your consent as recorded:", latelyHeading: "What it did lately", nothingYet: "Nothing yet: it posts at your kind of hours.",
        didPost: "Posted your post", didRemix: "Posted (a remix, or a post no longer in your archive)", didSkip: "Did not post",
        didAnswer: "Answered a mention", didNotAnswer: "Did not answer a mention", didLike: "Liked a post", seeIt: "see it",
        download: "Download everything it keeps of you (JSON)", archiveHeading: "Bring your past posts",
        archiveIntro:
            "Upload the archive {network} lets you download ({files}, or the .zip they came in): your mirror learns every post in it, beyond what it can read on the network. Nothing is stored from a file it cannot read, or from someone else's archive.",
        archiveFile: "Your archive", archiveUpload: "Upload and import", importedHeading: "Archive imported",
        previewLink: "See what it would post", choicesHeading: "Your choices",
        choicesHint: "Saved, your mirror starts again with them within a minute; your consent record says what you now agree to.",
        choicesSave: "Save my choices", previewHeading: "What your mirror would do",
        previewIntro: "Drawn from what it has learned of you, as it would draw it: nothing is sent. The same all day.",
        previewHours: "Your hours, and today's plan", previewPlanned: "planned", previewPosts: "What it would post",
        previewFrom: "from your posts:", previewNothing: "nothing then:", previewReplies: "How it would answer the people you answer most",
        previewLikes: "Likes:", previewEmpty: "It has learned nothing of you yet: upload your archive, or start it to learn your newest posts.")

    static let japanese = DoorText(
        language: "ja", title: "mirror_bot", intro: "あなたの過去の投稿を、あなたらしい時間に投稿するボットです。本人としてサインインした人だけをミラーし、本人が望めば止まります。",
        signInHeading: "本人としてサインイン", network: "ネットワーク", server: "サーバー(またはハンドル)", serverHint: "例:",
        signIn: "サインイン", signedInAs: "サインイン中:", mirrorNotYet: "ミラーはまだ設定されていません。", signOut: "サインアウト",
        refusedHeading: "うまくいきませんでした", back: "最初に戻る",
        noFleet: "このページではサインインできますが、運営者がまだフリートにつないでいないため、ミラーは作れません。",
        signUpClosed: "運営者の判断で、いまは新しいミラーを作れません。すでにミラーがある人は、ここで確認・停止・削除できます。",
        byInvitation: "ここでは招待された人がミラーを作れます。受け取ったリンクを開くか、下に貼り付けてください。すでにミラーがある人はサインインして確認できます。",
        invitationReady: "招待を受け付けました。本人として、次にボットのアカウントでサインインして、ミラーを作ってください。",
        invitationNotOpen: "この招待はすでに使われたか、取り消されたか、期限が切れています。招待をくれた人に新しいものを頼んでください。",
        invitationField: "招待(リンクまたはコード)", invitationUse: "招待を使う",
        visibility: "投稿を見られる人", importingHeading: "アーカイブを取り込み中", importingFor: "取り込み開始から {seconds} 秒:",
        importingCount: "ミラーのアーカイブにはいま {count} 件の投稿があります。",
        importingHint: "このページは2秒ごとに更新され、終わると取り込んだ内容を表示します。離れても取り込みは続きます。",
        visibilityQuiet: "誰でも(プロフィールで。公開タイムラインには出ません)", visibilityPublic: "誰でも(公開タイムラインにも)",
        visibilityFollowers: "フォロワーのみ", blocked: "投稿や返信に使わない言葉(任意)",
        blockedHint: "カンマ区切りで100語まで。どれかを含む投稿や返信は送らず、別のものを選びます。",
        botHeading: "次に、ボットのアカウント", botIntro: "ミラーが投稿するアカウントでサインインしてください。あなた自身のではなく、ボット用のアカウントです。プロフィールでボットと明示してください。",
        signInBot: "ボットのアカウントでサインイン", botIs: "ボットのアカウント:", createHeading: "ミラーを作る",
        timeZone: "タイムゾーン(投稿する時間の基準)", style: "投稿する内容", styleCopy: "あなたの過去の投稿をそのまま", styleRemix: "あなたの言葉から作った新しい投稿",
        likes: "あなたが好きそうな投稿にいいね", agree: "私の投稿といいねが学習され、ボットが上のとおり投稿することに同意します。ここでいつでも停止・削除できます。",
        create: "ミラーを作る(停止した状態で作られます)", yourMirror: "ミラーの投稿先:", pausedBecause: "停止中:",
        running: "動作中:フリートのプロセスが動かしています。", waiting: "開始済み:フリートのプロセスが引き受けるのを待っています。",
        start: "開始", pause: "停止", deleteHeading: "すべて削除",
        deleteIntro:
            "ミラーと、ミラーが保持するあなたのすべて(アーカイブ、単語の数、予定、いいね、ここに保管した両アカウントのサインイン)を削除し、サインアウトします。ボットの投稿はネットワークに残ります。ネットワークが許す場合は両方のサインインの連携もそこで解除します。解除できなかった場合は受領書に書かれます(そのときはネットワーク側でアプリを解除してください)。",
        deleteConfirm: "はい、ミラーと保持されているすべてを削除します", delete: "削除", deletedHeading: "削除しました", consentRecorded: "記録された同意:",
        latelyHeading: "最近の動き", nothingYet: "まだありません。あなたらしい時間に投稿します。", didPost: "あなたの投稿を投稿", didRemix: "投稿(リミックス、またはアーカイブにない投稿)",
        didSkip: "投稿せず", didAnswer: "メンションに返信", didNotAnswer: "メンションに返信せず", didLike: "いいね", seeIt: "見る",
        download: "保持されているあなたのデータをすべてダウンロード(JSON)", archiveHeading: "過去の投稿を取り込む",
        archiveIntro:
            "{network}からダウンロードしたアーカイブ({files}、またはそれが入った.zip)をアップロードすると、ネットワークで読める範囲を超えて、すべての投稿を学習します。読めないファイルや他の人のアーカイブからは何も保存しません。",
        archiveFile: "アーカイブ", archiveUpload: "アップロードして取り込む", importedHeading: "アーカイブを取り込みました",
        previewLink: "投稿の見本を見る", choicesHeading: "設定", choicesHint: "保存すると、1分以内にこの設定でミラーが動き直します。同意の記録も更新されます。",
        choicesSave: "設定を保存", previewHeading: "ミラーがすること", previewIntro: "学習した内容から、実際と同じように選んでいます。何も送信しません。同じ日のあいだは同じ見本です。",
        previewHours: "あなたの投稿時間と今日の予定", previewPlanned: "予定", previewPosts: "投稿の見本", previewFrom: "元の投稿:", previewNothing: "この時間は投稿なし:",
        previewReplies: "よく返信する相手への返信", previewLikes: "いいね:", previewEmpty: "まだ何も学習していません。アーカイブをアップロードするか、開始すると最新の投稿を学習します。")

    /// The words for `acceptLanguage` (`Accept-Language`): Japanese when it comes before English, else English.
    static func preferred(_ acceptLanguage: String?) -> DoorText {
        let tags = (acceptLanguage ?? "").split(separator: ",").map {
            $0.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        }
        for tag in tags {
            if tag.hasPrefix("ja") { return japanese }
            if tag.hasPrefix("en") { return english }
        }
        return english
    }
}

/// The front door's pages: server-rendered HTML, no script, every value escaped, readable at 360 px.
enum DoorPages {
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "'", with: "&#39;")
    }

    static func page(_ text: DoorText, _ body: String, refreshEvery seconds: Int? = nil) -> String {
        """
        <!doctype html>
        <html lang="\(text.language)"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">\
        \(seconds.map { "<meta http-equiv=\"refresh\" content=\"\($0)\">" } ?? "")
        <title>\(escaped(text.title))</title>
        <style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:0 auto;padding:1rem;line-height:1.5;color:#111;background:#fff}
        label{display:block;margin-top:.75rem;font-weight:600}input,select,button,textarea{font:inherit;padding:.5rem;width:100%;box-sizing:border-box;margin-top:.25rem}
        button{margin-top:1rem;background:#1d4ed8;color:#fff;border:0;border-radius:.25rem;cursor:pointer}button:focus,input:focus,select:focus,textarea:focus{outline:3px solid #f59e0b}
        .hint{color:#444;font-size:.9rem}.check{font-weight:400}.check input{width:auto;margin-right:.5rem}fieldset{border:0;padding:0;margin-top:.75rem}
        legend{font-weight:600}.danger{background:#b91c1c}.quiet{background:#374151}.lately{padding-left:1.25rem}.lately li{margin:.25rem 0;overflow-wrap:anywhere}
        time{font-variant-numeric:tabular-nums;color:#444}.hours{width:100%;border-collapse:collapse;font-size:.9rem}
        .hours th{text-align:right;padding-right:.5rem;font-weight:400;font-variant-numeric:tabular-nums;width:2rem}.hours td:nth-child(2){width:50%}
        .bar{display:block;height:.8rem;background:#1d4ed8}.wide{overflow-x:auto}table.list{border-collapse:collapse;width:100%;font-size:.9rem}
        table.list td,table.list th{text-align:left;padding:.3rem .4rem;border-bottom:1px solid #ddd;vertical-align:top;overflow-wrap:break-word}
        button.small{width:auto;margin:0;padding:.3rem .7rem}.failed{color:#b91c1c;font-weight:600}</style></head>
        <body><main>\(body)</main></body></html>
        """
    }

    /// The start: what it is, and a form to sign in as the person on each network that allows it here.
    static func start(
        _ text: DoorText, csrf: String, networks: [(key: String, name: String, example: String?)], notice: String? = nil, asksInvitation: Bool = false
    ) -> String {
        let options = networks.map { "<option value=\"\(escaped($0.key))\">\(escaped($0.name))</option>" }.joined()
        let examples = networks.compactMap { network in network.example.map { "\(network.name): \($0)" } }.joined(separator: ", ")
        return page(
            text,
            """
            <h1>\(escaped(text.title))</h1><p>\(escaped(text.intro))</p>
            \(notice.map { "<p id=\"notice\" role=\"status\">\(escaped($0))</p>" } ?? "")\(asksInvitation ? invitationForm(text) : "")
            <h2>\(escaped(text.signInHeading))</h2>
            <form method="post" action="/sign-in">
            <input type="hidden" name="csrf" value="\(escaped(csrf))">
            <label for="network">\(escaped(text.network))</label><select id="network" name="network">\(options)</select>
            <label for="server">\(escaped(text.server))</label><input id="server" name="server" autocomplete="url" aria-describedby="server-hint">
            <p class="hint" id="server-hint">\(escaped(text.serverHint + " " + examples))</p>
            <button type="submit">\(escaped(text.signIn))</button>
            </form>
            """)
    }

    /// A form that posts to `action` with the session's CSRF token, `fields` inside it.
    static func form(_ action: String, csrf: String, _ fields: String) -> String {
        "<form method=\"post\" action=\"\(action)\"><input type=\"hidden\" name=\"csrf\" value=\"\(escaped(csrf))\">\(fields)</form>"
    }

    /// The person's page: who they are, and the next step of their mirror, or the mirror itself with its controls.
    static func person(
        _ text: DoorText, csrf: String, person: DoorAccount, bot: DoorAccount?, mirror: DoorMirror?, whyNoMirrors: String?,
        serverExample: String?, archiveFiles: String? = nil, asksInvitation: Bool = false, offersVisibility: Bool = false
    ) -> String {
        var body = """
            <h1>\(escaped(text.title))</h1>
            <p>\(escaped(text.signedInAs)) <strong>@\(escaped(person.handle))</strong> (\(escaped(person.networkName)))</p>
            """
        if let mirror {
            let state =
                mirror.pausedBecause.map { "\(text.pausedBecause) \($0)" } ?? (mirror.isRunning ? text.running : text.waiting)
            body += """
                <h2>\(escaped(text.yourMirror)) \(escaped(mirror.bot))</h2>
                <p role="status" id="mirror-state">\(escaped(state))</p>
                """
            if mirror.canPause {
                body += form("/mirror/pause", csrf: csrf, "<button type=\"submit\">\(escaped(text.pause))</button>")
            }
            if mirror.canStart {
                body += form("/mirror/start", csrf: csrf, "<button type=\"submit\">\(escaped(text.start))</button>")
            }
            body += "<p><a href=\"/mirror/preview\">\(escaped(text.previewLink))</a></p>"
            body += "<h2>\(escaped(text.latelyHeading))</h2>"
            if mirror.lately.isEmpty {
                body += "<p>\(escaped(text.nothingYet))</p>"
            } else {
                body += "<ol id=\"lately\" class=\"lately\">" + mirror.lately.map { lately(text, $0) }.joined() + "</ol>"
            }
            if let consent = mirror.consent { body += "<p class=\"hint\">\(escaped(text.consentRecorded)) \(escaped(consent))</p>" }
            let intro = text.archiveIntro.replacingOccurrences(of: "{network}", with: person.networkName)
                .replacingOccurrences(of: "{files}", with: archiveFiles ?? "its data files")
            if let choices = mirror.choices {
                body += "<h2>\(escaped(text.choicesHeading))</h2>"
                body += form(
                    "/mirror/choices", csrf: csrf,
                    "\(choiceFields(text, choices, offersVisibility: offersVisibility))<p class=\"hint\">\(escaped(text.choicesHint))</p><button type=\"submit\">\(escaped(text.choicesSave))</button>"
                )
            }
            body += "<h2>\(escaped(text.archiveHeading))</h2><p>\(escaped(intro))</p>"
            // The token comes first: the door reads it before it takes any of the file.
            body += """
                <form method="post" action="/mirror/archive" enctype="multipart/form-data">\
                <input type="hidden" name="csrf" value="\(escaped(csrf))">\
                <label for="archive">\(escaped(text.archiveFile))</label><input id="archive" name="archive" type="file" required>\
                <button type="submit">\(escaped(text.archiveUpload))</button></form>
                """
            body += "<p><a href=\"/mirror/download\" download>\(escaped(text.download))</a></p>"
            body += "<h2>\(escaped(text.deleteHeading))</h2><p>\(escaped(text.deleteIntro))</p>"
            body += form(
                "/mirror/delete", csrf: csrf,
                """
                <label class="check"><input type="checkbox" name="confirm" value="delete" required> \(escaped(text.deleteConfirm))</label>
                <button type="submit" class="danger">\(escaped(text.delete))</button>
                """)
        } else if let whyNoMirrors {
            body += "<p id=\"no-mirrors\">\(escaped(whyNoMirrors))</p>"
            if asksInvitation { body += invitationForm(text) }
        } else if let bot {
            body += """
                <p>\(escaped(text.botIs)) <strong>@\(escaped(bot.handle))</strong></p>
                <h2>\(escaped(text.createHeading))</h2>
                """
            body += form(
                "/mirror", csrf: csrf,
                """
                \(choiceFields(text, nil, offersVisibility: offersVisibility))
                <label class="check"><input type="checkbox" name="agree" value="yes" required> \(escaped(text.agree))</label>
                <button type="submit">\(escaped(text.create))</button>
                """)
        } else {
            body += "<h2>\(escaped(text.botHeading))</h2><p>\(escaped(text.botIntro))</p>"
            body += form(
                "/sign-in", csrf: csrf,
                """
                <input type="hidden" name="account" value="bot"><input type="hidden" name="network" value="\(escaped(person.network))">
                \(serverExample.map { example in
                    """
                    <label for="server">\(escaped(text.server))</label><input id="server" name="server" autocomplete="url" aria-describedby="server-hint" required>
                    <p class="hint" id="server-hint">\(escaped(text.serverHint + " " + example))</p>
                    """
                } ?? "")
                <button type="submit">\(escaped(text.signInBot))</button>
                """)
        }
        body += form("/sign-out", csrf: csrf, "<button type=\"submit\" class=\"quiet\">\(escaped(text.signOut))</button>")
        return page(text, body)
    }

    /// A form that brings an invitation (its link or its code) to the door: a `GET`, as its link is.
    static func invitationForm(_ text: DoorText) -> String {
        """
        <form method="get" action="/"><label for="invitation">\(escaped(text.invitationField))</label>\
        <input id="invitation" name="invitation" autocomplete="off" required><button type="submit">\(escaped(text.invitationUse))</button></form>
        """
    }

    /// The fields of the person's choices: their time zone, copies or remixes, who sees the posts (where the network's
    /// posts say so: `offersVisibility`), likes, blocked words; `current` chosen (else the defaults: the first zone,
    /// copies, unlisted, likes on, no blocked word).
    static func choiceFields(_ text: DoorText, _ current: MirrorChoices?, offersVisibility: Bool) -> String {
        let zones = MirrorChoices.timeZones.map { zone in
            "<option value=\"\(zone)\"\(zone == current?.timeZone ? " selected" : "")>\(zone)</option>"
        }.joined()
        let remix = current?.style == .remix
        let likes = current?.likes ?? true
        let chosen = current?.visibility ?? .unlisted
        let visibilities = [
            (MirrorChoices.Visibility.unlisted, text.visibilityQuiet), (.public, text.visibilityPublic), (.private, text.visibilityFollowers),
        ].map { visibility, label in
            "<label class=\"check\"><input type=\"radio\" name=\"visibility\" value=\"\(visibility.rawValue)\"\(visibility == chosen ? " checked" : "")> \(escaped(label))</label>"
        }.joined(separator: "\n")
        let blocked = (current?.blockedWords ?? []).joined(separator: ", ")
        return """
            <label for="tz">\(escaped(text.timeZone))</label><select id="tz" name="tz">\(zones)</select>
            <fieldset><legend>\(escaped(text.style))</legend>
            <label class="check"><input type="radio" name="style" value="copy"\(remix ? "" : " checked")> \(escaped(text.styleCopy))</label>
            <label class="check"><input type="radio" name="style" value="remix"\(remix ? " checked" : "")> \(escaped(text.styleRemix))</label></fieldset>
            \(offersVisibility ? "<fieldset><legend>\(escaped(text.visibility))</legend>\(visibilities)</fieldset>" : "")
            <label class="check"><input type="checkbox" name="likes" value="on"\(likes ? " checked" : "")> \(escaped(text.likes))</label>
            <label for="blocked">\(escaped(text.blocked))</label>\
            <textarea id="blocked" name="blocked" rows="2" aria-describedby="blocked-hint">\(escaped(blocked))</textarea>
            <p class="hint" id="blocked-hint">\(escaped(text.blockedHint))</p>
            """
    }

    /// One of the mirror's latest actions: when, what, the copied text, the reason, the link.
    static func lately(_ text: DoorText, _ action: DoorMirror.Action) -> String {
        let what =
            switch action.kind {
            case .posted: action.text == nil ? text.didRemix : text.didPost
            case .skipped: text.didSkip
            case .answered: text.didAnswer
            case .notAnswered: text.didNotAnswer
            case .liked: text.didLike
            }
        var item = "<li><time>\(escaped(action.at))</time> \(escaped(what))"
        if let copied = action.text { item += ": <q>\(escaped(copied))</q>" }
        if let reason = action.reason { item += " (\(escaped(DoorReasons.shown(reason, in: text))))" }
        if let link = action.link, let url = URL(string: link), ["https", "http"].contains(url.scheme?.lowercased() ?? "") {
            item += " <a href=\"\(escaped(link))\" rel=\"noreferrer noopener\">\(escaped(text.seeIt))</a>"
        }
        return item + "</li>"
    }

    /// `text` with only letters, digits, `-` and `_` (a file name's part).
    static func fileSafe(_ text: String) -> String {
        String(
            text.unicodeScalars.filter { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_") }.prefix(64).map(
                Character.init))
    }

    /// The receipt of a deletion: what went, and when.
    static func deleted(_ text: DoorText, _ deletion: DoorDeletion) -> String {
        let items = deletion.lines(language: text.language).map { "<li>\(escaped($0))</li>" }.joined()
        return page(
            text,
            """
            <h1>\(escaped(text.deletedHeading))</h1><p>\(escaped(deletion.at.formatted(.iso8601)))</p><ul id="receipt">\(items)</ul>
            <p><a href="/">\(escaped(text.back))</a></p>
            """)
    }

    /// An import still running: for how long, and how many posts the mirror's archive holds so far; the page looks again
    /// every 2 seconds by itself.
    static func importing(_ text: DoorText, seconds: Int, archived: Int?) -> String {
        let count = archived.map { text.importingCount.replacingOccurrences(of: "{count}", with: String($0)) } ?? ""
        return page(
            text,
            """
            <h1>\(escaped(text.importingHeading))</h1>
            <p role="status" id="importing">\(escaped(text.importingFor.replacingOccurrences(of: "{seconds}", with: String(seconds)))) \(escaped(count))</p>
            <p class="hint">\(escaped(text.importingHint))</p>
            """, refreshEvery: 2)
    }

    /// What an archive's import did, with the way back to the person's page.
    static func imported(_ text: DoorText, _ result: DoorImport) -> String {
        page(
            text,
            """
            <h1>\(escaped(text.importedHeading))</h1><p role="status" id="imported">\(escaped(result.summary))</p>
            <p><a href="/me">\(escaped(text.back))</a></p>
            """)
    }

    /// The preview: the person's hours beside today's plan (a bar an hour), the posts as they would go out with the
    /// posts they come from, the answers to the people they answer most, the likes.
    static func preview(_ text: DoorText, _ preview: DoorPreview) -> String {
        var body = "<h1>\(escaped(text.previewHeading))</h1><p class=\"hint\">\(escaped(text.previewIntro))</p>"
        guard preview.postsLearned > 0 else {
            return page(text, body + "<p id=\"preview-empty\">\(escaped(text.previewEmpty))</p><p><a href=\"/me\">\(escaped(text.back))</a></p>")
        }
        let most = max(1, preview.hours.max() ?? 1)
        let total = max(1, preview.hours.reduce(0, +))
        body += "<h2>\(escaped(text.previewHours)) (\(escaped(preview.day)), \(escaped(preview.timeZone)))</h2><table class=\"hours\" id=\"hours\">"
        for hour in 0..<24 {
            let planned = preview.planned.filter { $0 / 60 == hour }.map(clockTime)
            let share = Double(preview.hours[hour]) / Double(total) * 100
            body += String(format: "<tr><th scope=\"row\">%02d</th>", hour)
            body += "<td><span class=\"bar\" style=\"width:\(preview.hours[hour] * 100 / most)%\"></span></td>"
            body += String(format: "<td>%.0f%%</td>", share)
            body += "<td>\(planned.isEmpty ? "" : escaped(text.previewPlanned + " " + planned.joined(separator: " ")))</td></tr>"
        }
        body += "</table><h2>\(escaped(text.previewPosts))</h2><ol class=\"lately\" id=\"samples\">"
        for sample in preview.samples {
            body += "<li><time>\(escaped(sample.at))</time> "
            if let posted = sample.text {
                body += "<q>\(escaped(posted))</q>"
                if !sample.sources.isEmpty {
                    body +=
                        "<br><span class=\"hint\">\(escaped(text.previewFrom)) "
                        + sample.sources.map { "<q>\(escaped($0))</q>" }.joined(separator: " ")
                        + "</span>"
                }
            } else {
                body += "\(escaped(text.previewNothing)) \(escaped(DoorReasons.shown(sample.reason ?? "", in: text)))"
            }
            body += "</li>"
        }
        body += "</ol>"
        if !preview.replies.isEmpty {
            body += "<h2>\(escaped(text.previewReplies))</h2><ul class=\"lately\" id=\"replies\">"
            body += preview.replies.map { "<li>\(escaped($0.to)): <q>\(escaped($0.text))</q></li>" }.joined() + "</ul>"
        }
        if let likes = preview.likes { body += "<p id=\"likes\">\(escaped(text.previewLikes)) \(escaped(likes))</p>" }
        return page(text, body + "<p><a href=\"/me\">\(escaped(text.back))</a></p>")
    }

    /// `08:05` for a minute of the day.
    static func clockTime(_ minute: Int) -> String { String(format: "%02d:%02d", minute / 60, minute % 60) }

    /// A refusal in a sentence, with the way back.
    static func refused(_ text: DoorText, _ reason: String) -> String {
        page(text, "<h1>\(escaped(text.refusedHeading))</h1><p role=\"alert\">\(escaped(reason))</p><p><a href=\"/\">\(escaped(text.back))</a></p>")
    }
}
