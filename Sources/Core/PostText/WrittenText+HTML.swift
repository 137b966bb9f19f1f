import Foundation

extension WrittenText {
    /// A status's text as its author wrote it, from the HTML Mastodon (and the rest of the fediverse) sends in the
    /// API and in an archive export: paragraphs become blank lines and `<br>` a line break; every other tag is
    /// dropped and its text kept, so a link becomes its text (Mastodon shortens a long address for display with
    /// hidden spans: the whole address is kept), a mention `@name` and a hashtag `#tag`; character references are
    /// decoded; runs of spaces and raw line breaks count as one space, as a browser shows them (except in `<pre>`);
    /// `<script>`, `<style>` and comments leave nothing. Anything that is not a tag (`1 < 2`, an unterminated `<a`)
    /// is kept as text. Never fails: the worst input gives back its characters.
    public static func from(html: String) -> String {
        var reader = HTMLReader(html)
        var text = PlainTextBuilder()
        var hiddenUntil: String?  // the closing tag that ends a script or style
        var preformatted = 0
        while let token = reader.next() {
            switch token {
            case .text(let raw):
                guard hiddenUntil == nil else { continue }
                text.append(decodingReferences(in: raw), preservingWhitespace: preformatted > 0)
            case .tag(let name, let closing, let selfClosing):
                if let hidden = hiddenUntil {
                    if closing && name == hidden { hiddenUntil = nil }
                    continue
                }
                switch name {
                case "br": text.lineBreak()
                case "p", "blockquote": text.breakBlock(lines: 2)
                case "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6": text.breakBlock(lines: 1)
                case "pre":
                    text.breakBlock(lines: 2)
                    if !selfClosing { preformatted = max(0, preformatted + (closing ? -1 : 1)) }
                case "script", "style": if !closing && !selfClosing { hiddenUntil = name }
                default: break
                }
            }
        }
        return text.result
    }

    /// `&amp;`, `&#39;`, `&#x1F600;` and the other references decoded; one that is not a reference (a bare `&`, an
    /// unknown name, no `;`) is kept as written; a number that names no character becomes U+FFFD.
    static func decodingReferences(in text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        var result = ""
        result.reserveCapacity(text.utf8.count)
        var index = text.startIndex
        while let ampersand = text[index...].firstIndex(of: "&") {
            result += text[index..<ampersand]
            let afterAmpersand = text.index(after: ampersand)
            // The longest reference is short: look for its `;` nearby only.
            let window = text[afterAmpersand...].prefix(12)
            if let semicolon = window.firstIndex(of: ";"), let decoded = character(named: text[afterAmpersand..<semicolon]) {
                result.append(decoded)
                index = text.index(after: semicolon)
            } else {
                result.append("&")
                index = afterAmpersand
            }
        }
        result += text[index...]
        return result
    }

    /// The character a reference's name (between `&` and `;`) stands for: `#123`, `#x1F600` or a named one.
    private static func character(named name: Substring) -> Character? {
        if name.first == "#" {
            let digits = name.dropFirst()
            let value: UInt32?
            if digits.first == "x" || digits.first == "X" {
                value = digits.count > 1 ? UInt32(digits.dropFirst(), radix: 16) : nil
            } else {
                value = digits.isEmpty ? nil : UInt32(digits, radix: 10)
            }
            guard let value else { return nil }
            return Character(Unicode.Scalar(value).flatMap { $0.value == 0 ? nil : $0 } ?? "\u{FFFD}")
        }
        return namedReferences[String(name)]
    }

    /// The named references that statuses carry: the five of XML, the non-breaking space, and the punctuation
    /// other servers' HTML may spell by name.
    private static let namedReferences: [String: Character] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{00A0}",
        "hellip": "…", "mdash": "—", "ndash": "–", "lsquo": "‘", "rsquo": "’", "ldquo": "“", "rdquo": "”",
        "laquo": "«", "raquo": "»", "middot": "·", "bull": "•", "copy": "©", "reg": "®", "trade": "™",
        "yen": "¥", "euro": "€", "pound": "£", "times": "×", "deg": "°", "shy": "\u{00AD}",
    ]
}

/// The pieces of an HTML fragment: text, and tags by lowercased name (attributes read past, quotes respected).
/// Comments and declarations are skipped; a `<` that starts no tag, or a tag never closed by `>`, is text; markup that
/// runs to the end unterminated makes the rest text. Linear in its input, whatever the input.
private struct HTMLReader {
    enum Token {
        case text(Substring)
        case tag(name: String, closing: Bool, selfClosing: Bool)
    }

    private let html: Substring
    private var index: Substring.Index
    /// Where markup was last found unterminated: no markup is looked for from there on (the rest is text), so that
    /// each `<` is looked at once and the reader stays linear in its input whatever it is given.
    private var plainFrom: Substring.Index?

    init(_ html: String) {
        self.html = html[...]
        index = self.html.startIndex
    }

    mutating func next() -> Token? {
        while index < html.endIndex {
            if html[index] == "<", case .found(let token, let end) = markup(at: index) {
                index = end
                if let token { return token }
                continue  // a comment or a declaration
            }
            // Text up to the next `<` that starts markup (a `<` that does not is part of the text).
            let start = index
            var end = html.endIndex
            var cursor = html.index(after: index)
            while plainFrom == nil, let next = html[cursor...].firstIndex(of: "<") {
                if case .found = markup(at: next) {
                    end = next
                    break
                }
                cursor = html.index(after: next)
            }
            index = end
            return .text(html[start..<end])
        }
        return nil
    }

    /// What starts at a `<`.
    enum Markup {
        /// Markup, and the index after it; the token is nil for a comment or a declaration, which leave nothing.
        case found(Token?, Substring.Index)
        /// Not markup (`1 < 2`, a tag name that is not one, a tag interrupted by another `<`).
        case text
    }

    /// The markup starting at `start` (a `<`). Markup that runs to the end of the input without its `>` (or `-->`)
    /// is text, and so is everything after it (`plainFrom`).
    private mutating func markup(at start: Substring.Index) -> Markup {
        if let plainFrom, start >= plainFrom { return .text }
        let rest = html[html.index(after: start)...]
        if rest.hasPrefix("!--") {
            guard let end = rest.range(of: "-->") else {
                plainFrom = start
                return .text
            }
            return .found(nil, end.upperBound)
        }
        if rest.first == "!" || rest.first == "?" {
            guard let end = rest.firstIndex(of: ">") else {
                plainFrom = start
                return .text
            }
            return .found(nil, html.index(after: end))
        }
        var cursor = rest.startIndex
        let closing = rest.first == "/"
        if closing { cursor = rest.index(after: cursor) }
        let nameStart = cursor
        while cursor < rest.endIndex, rest[cursor].isASCII, rest[cursor].isLetter || rest[cursor].isNumber { cursor = rest.index(after: cursor) }
        guard cursor > nameStart, rest[nameStart].isLetter else { return .text }
        let name = rest[nameStart..<cursor].lowercased()
        // Attributes, read past with their quotes, up to the `>`.
        var quote: Character?
        var previous: Character?
        while cursor < rest.endIndex {
            let character = rest[cursor]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == ">" {
                return .found(.tag(name: name, closing: closing, selfClosing: previous == "/"), rest.index(after: cursor))
            } else if character == "<" {
                return .text  // a tag never closed: text
            }
            previous = character
            cursor = rest.index(after: cursor)
        }
        plainFrom = start
        return .text
    }
}

/// Plain text as HTML shows it: whitespace collapsed, line breaks and blank lines between blocks, trimmed ends.
private struct PlainTextBuilder {
    private var text = ""
    private var pendingSpace = false
    private var pendingLines = 0

    /// Text, its spaces and raw line breaks collapsed to one space unless `preservingWhitespace`.
    mutating func append(_ piece: String, preservingWhitespace: Bool) {
        if preservingWhitespace {
            flush()
            text += piece
            return
        }
        for character in piece {
            if character == " " || character == "\n" || character == "\t" || character == "\r" || character == "\r\n" || character == "\u{0C}" {
                pendingSpace = true
            } else {
                flush()
                text.append(character)
            }
        }
    }

    /// A `<br>`: a line break, kept even when several follow each other.
    mutating func lineBreak() {
        pendingSpace = false
        if pendingLines > 0 { flush() }
        text.append("\n")
    }

    /// The edge of a block: the next text starts `lines` line breaks on (none at the very start).
    mutating func breakBlock(lines: Int) {
        pendingSpace = false
        pendingLines = max(pendingLines, lines)
    }

    /// What is pending before the next character: the block's line breaks, or one space within a line.
    private mutating func flush() {
        if pendingLines > 0 {
            if !text.isEmpty {
                let trailing = text.reversed().prefix { $0 == "\n" }.count
                text += String(repeating: "\n", count: max(0, pendingLines - trailing))
            }
            pendingLines = 0
            pendingSpace = false
        } else if pendingSpace {
            if let last = text.last, last != "\n" { text.append(" ") }
            pendingSpace = false
        }
    }

    /// The text, with no blank line or space at either end and none before a line break.
    var result: String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { (line: Substring) -> Substring in
            var line = line
            while line.last == " " { line = line.dropLast() }
            return line
        }
        return lines.joined(separator: "\n").trimmingCharacters(in: CharacterSet.whitespacesAndNewlines)
    }
}
