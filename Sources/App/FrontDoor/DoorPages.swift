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

    static let english = DoorText(
        language: "en", title: "mirror_bot",
        intro:
            "A bot account that posts as you post: your own past posts, at your kind of hours. It mirrors only someone who signed in as themselves, and stops when they say so.",
        signInHeading: "Sign in as yourself", network: "Network", server: "Your server", serverHint: "such as",
        signIn: "Sign in", signedInAs: "Signed in as", mirrorNotYet: "Your mirror is not set up yet.", signOut: "Sign out",
        refusedHeading: "That did not work", back: "Back to the start")

    static let japanese = DoorText(
        language: "ja", title: "mirror_bot", intro: "あなたの過去の投稿を、あなたらしい時間に投稿するボットです。本人としてサインインした人だけをミラーし、本人が望めば止まります。",
        signInHeading: "本人としてサインイン", network: "ネットワーク", server: "サーバー", serverHint: "例:",
        signIn: "サインイン", signedInAs: "サインイン中:", mirrorNotYet: "ミラーはまだ設定されていません。", signOut: "サインアウト",
        refusedHeading: "うまくいきませんでした", back: "最初に戻る")

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

    static func page(_ text: DoorText, _ body: String) -> String {
        """
        <!doctype html>
        <html lang="\(text.language)"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escaped(text.title))</title>
        <style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:0 auto;padding:1rem;line-height:1.5;color:#111;background:#fff}
        label{display:block;margin-top:.75rem;font-weight:600}input,select,button{font:inherit;padding:.5rem;width:100%;box-sizing:border-box;margin-top:.25rem}
        button{margin-top:1rem;background:#1d4ed8;color:#fff;border:0;border-radius:.25rem;cursor:pointer}button:focus,input:focus,select:focus{outline:3px solid #f59e0b}
        .hint{color:#444;font-size:.9rem}</style></head>
        <body><main>\(body)</main></body></html>
        """
    }

    /// The start: what it is, and a form to sign in as the person on each network that allows it here.
    static func start(_ text: DoorText, csrf: String, networks: [(key: String, name: String, example: String?)]) -> String {
        let options = networks.map { "<option value=\"\(escaped($0.key))\">\(escaped($0.name))</option>" }.joined()
        let examples = networks.compactMap { network in network.example.map { "\(network.name): \($0)" } }.joined(separator: ", ")
        return page(
            text,
            """
            <h1>\(escaped(text.title))</h1><p>\(escaped(text.intro))</p>
            <h2>\(escaped(text.signInHeading))</h2>
            <form method="post" action="/sign-in">
            <input type="hidden" name="csrf" value="\(escaped(csrf))">
            <label for="network">\(escaped(text.network))</label><select id="network" name="network">\(options)</select>
            <label for="server">\(escaped(text.server))</label><input id="server" name="server" autocomplete="url" aria-describedby="server-hint" required>
            <p class="hint" id="server-hint">\(escaped(text.serverHint + " " + examples))</p>
            <button type="submit">\(escaped(text.signIn))</button>
            </form>
            """)
    }

    /// The person's page.
    static func person(_ text: DoorText, csrf: String, person: DoorSession.Person) -> String {
        page(
            text,
            """
            <h1>\(escaped(text.title))</h1>
            <p>\(escaped(text.signedInAs)) <strong>@\(escaped(person.handle))</strong> (\(escaped(person.networkName)))</p>
            <p>\(escaped(text.mirrorNotYet))</p>
            <form method="post" action="/sign-out"><input type="hidden" name="csrf" value="\(escaped(csrf))">
            <button type="submit">\(escaped(text.signOut))</button></form>
            """)
    }

    /// A refusal in a sentence, with the way back.
    static func refused(_ text: DoorText, _ reason: String) -> String {
        page(text, "<h1>\(escaped(text.refusedHeading))</h1><p role=\"alert\">\(escaped(reason))</p><p><a href=\"/\">\(escaped(text.back))</a></p>")
    }
}
