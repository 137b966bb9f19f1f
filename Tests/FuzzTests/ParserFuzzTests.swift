import BlueskyAPI
import BlueskyNetwork
import BotAssembly
import BotConfiguration
import Foundation
import MastodonAPI
import MisskeyAPI
import PostText
import Testing

@testable import ArchiveImport
@testable import ExportFormats
@testable import MastodonNetwork
@testable import MisskeyNetwork
@testable import StatusPage
@testable import XNetwork

/// Every parser of outside input, fuzzed from its committed corpus: no input traps (a trap ends the test process),
/// and each keeps the promise it makes of what it accepts. See `Fuzzer` for the bounded CI mode and the long one.
@Suite("Fuzzing the parsers of outside input")
struct ParserFuzzTests {
    @Test("Status HTML to text: never longer than its input, no space at either end, a plain text given back as written")
    func html() throws {
        var fuzzer = try Fuzzer(
            "html",
            tokens: [
                "<p>", "</p>", "<br>", "<br/>", "<pre>", "</pre>", "<script>", "</script>", "<style>", "<!--",
                "-->", "<!", "<?", "<a href=\"", "\">", "</a>", "<span class=\"invisible\">", "&amp;", "&#x",
                "&#", "&nbsp;", "&lt;",
            ])
        fuzzer.run { bytes in
            let html = String(decoding: bytes, as: UTF8.self)
            let text = WrittenText.from(html: html)
            // Each line break stands for a tag of at least three characters, each reference for itself or more.
            #expect(text.unicodeScalars.count <= html.unicodeScalars.count, "\(html.debugDescription) → \(text.debugDescription)")
            #expect(text == text.trimmingCharacters(in: .whitespacesAndNewlines))
            if !html.contains("<"), !html.contains("&"), !html.contains(where: \.isWhitespace) { #expect(text == html) }
        }
    }

    @Test("Server-sent events: the same events however the bytes are split into chunks; none past the size limit")
    func serverSentEvents() throws {
        var fuzzer = try Fuzzer("sse", tokens: ["event:", "data:", "data: ", ":", "\n\n", "\r\r", "\r\n\r\n", "id:", "retry:"])
        fuzzer.run { bytes in
            var whole = ServerSentEvents()
            whole.append(Data(bytes))
            var expected: [ServerSentEvents.Event] = []
            while let event = whole.nextEvent() { expected.append(event) }
            // Chunk sizes drawn from the input itself, so that a finding replays from the input alone.
            var chunked = ServerSentEvents()
            var events: [ServerSentEvents.Event] = []
            var position = 0
            var step = 1
            while position < bytes.count {
                step = (step * 31 + Int(bytes[position])) % 7 + 1
                let end = min(bytes.count, position + step)
                chunked.append(Data(bytes[position..<end]))
                while let event = chunked.nextEvent() { events.append(event) }
                position = end
            }
            #expect(events == expected, "\(Data(bytes).base64EncodedString())")
            #expect(expected.allSatisfy { $0.data.utf8.count <= ServerSentEvents.longestEvent })
        }
    }

    @Test(".env files: a parsed name is a variable name; any value written by `auth --write-env` reads back as it was")
    func environmentFiles() throws {
        var fuzzer = try Fuzzer("envfile", tokens: ["export ", "=", "\"", "'", "\\", "\\n", " #", "#", "\r\n"])
        fuzzer.run { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            if let file = try? EnvironmentFile(parsing: text) {
                for name in file.variables.keys {
                    #expect(
                        !name.isEmpty && name.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }, "\(name.debugDescription)")
                }
                let written = EnvironmentFile.setting(file.variables.sorted { $0.key < $1.key }, in: "")
                #expect(try EnvironmentFile(parsing: written).variables == file.variables, "\(written.debugDescription)")
            }
            let written = EnvironmentFile.setting([("BOT_ACCESS_TOKEN", text)], in: "# kept\nOTHER=1\n")
            let read = try EnvironmentFile(parsing: written)
            #expect(read.variables == ["BOT_ACCESS_TOKEN": text, "OTHER": "1"], "\(written.debugDescription)")
        }
    }

    @Test("Action cursors: one accepted holds a time from 1970 to 9999 and a key of at most 200 bytes, and reads back from its own text")
    func actionCursors() throws {
        var fuzzer = try Fuzzer("cursor", tokens: ["o|", "n|", "|", "1e13", "253402300799", "253402300800", "-1", "0x1p60"])
        fuzzer.run { bytes in
            let raw = String(decoding: bytes, as: UTF8.self)
            let encoded = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            for text in [raw, encoded] {
                guard let cursor = ActionCursor(text) else { continue }
                #expect(ActionCursor.seconds.contains(cursor.position.at.timeIntervalSince1970), "\(raw.debugDescription)")
                #expect(!cursor.position.key.isEmpty && cursor.position.key.utf8.count <= ActionCursor.longestKey)
                #expect(ActionCursor(cursor.text) == cursor, "\(raw.debugDescription)")
            }
        }
    }

    @Test("Database and Redis URLs: one accepted has a port from 1 to 65535, and its redacted form never shows the password")
    func urls() throws {
        var fuzzer = try Fuzzer(
            "urls",
            tokens: [
                "postgres://", "postgresql://", "redis://", "rediss://", "@", ":", "[::1]", "%40", "?sslmode=",
                "verify-full", "/", "65535", "65536", "0",
            ])
        fuzzer.run { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            // A password that occurs once in the text, long enough not to be part of anything else, is never shown.
            func hidden(_ password: String?, in redacted: String) -> Bool {
                guard let password, !password.isEmpty else { return true }
                guard redacted.contains("***") else { return false }
                return password.count < 8 || text.components(separatedBy: password).count != 2 || !redacted.contains(password)
            }
            if let url = DatabaseURL(text) {
                #expect((1...65_535).contains(url.port), "\(text.debugDescription)")
                #expect(hidden(url.password, in: url.redacted), "\(text.debugDescription) → \(url.redacted)")
            }
            if let url = RedisURL(text) {
                #expect((1...65_535).contains(url.port), "\(text.debugDescription)")
                #expect(hidden(url.password, in: url.redacted), "\(text.debugDescription) → \(url.redacted)")
            }
        }
    }

    @Test("The configuration: any environment gives either one error naming each bad variable or values within their documented ranges")
    func configuration() throws {
        var fuzzer = try Fuzzer(
            "configuration",
            tokens: [
                "MAX_POSTS_PER_DAY=", "REPOST_AFTER_DAYS=", "MISSED_SLOT_GRACE=", "ARCHIVE_ROW_LIMIT=",
                "PORT=", "BIND=", "TZ=", "X_DAILY_BUDGET=", "STATUS_PASSWORD=", "NETWORK=",
                "X_API_BASE_URL=", "http://", "https://", "127.0.0.1", "localhost", "::1",
            ])
        fuzzer.run { bytes in
            var environment: [String: String] = [:]
            for line in String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline) {
                guard let equals = line.firstIndex(of: "=") else { continue }
                environment[String(line[..<equals])] = String(line[line.index(after: equals)...])
            }
            do {
                let configuration = try Configuration(environment: environment)
                let behaviour = configuration.behaviour
                #expect((0...1_440).contains(behaviour.maxPostsPerDay) && (0...36_500).contains(behaviour.repostAfterDays))
                #expect((0...1_440).contains(behaviour.missedSlotGraceMinutes) && (1...604_800).contains(behaviour.mentionsPollSeconds))
                #expect(behaviour.favoriteRateThreshold.isFinite)
                #expect((1...100_000_000).contains(configuration.storage.archiveRowLimit))
                if let port = configuration.statusPage.port { #expect((1...65_535).contains(port)) }
                if let password = configuration.statusPage.password { #expect(password.count >= 16) }
            } catch let error as ConfigurationError {
                #expect(!error.problems.isEmpty)
                #expect(error.problems.allSatisfy { environment.keys.contains($0.variable) || $0.isMissing }, "\(error)")
            }
        }
    }

    @Test("X export files: every tweet and like read, or one ImportError on one line naming the file; nothing else thrown")
    func exportFiles() throws {
        var fuzzer = try Fuzzer(
            "exportjs",
            tokens: [
                "window.YTD.tweets.part0 = ", "[", "]", "{", "}", ",", "\"tweet\": ", "\"id_str\": \"",
                "\"created_at\": \"", "Sat Aug 12 16:10:37 +0000 2023", "\"full_text\": \"", "RT @",
                "\"like\": ", "\"tweetId\": \"", "null", "true", "99999",
            ])
        let url = FileManager.default.temporaryDirectory.appending(path: "fuzz-\(UUID().uuidString).js")
        defer { try? FileManager.default.removeItem(at: url) }
        fuzzer.run { bytes in
            try Data(bytes).write(to: url)
            let file = ExportFiles.File(name: "tweets.js", url: url)
            do {
                try ExportParser.forEachTweet(in: file) { tweet, entry in
                    if let archived = try XExportFormat.archived(tweet, file: file.name, entry: entry) {
                        #expect((0...253_402_300_799).contains(archived.createdAt.timeIntervalSince1970))
                    }
                }
            } catch let error as ImportError {
                #expect(!error.description.contains("\n") && error.file == "tweets.js", "\(error)")
            }
            do {
                try ExportParser.forEachLike(in: file) { _, _ in }
            } catch let error as ImportError {
                #expect(!error.description.contains("\n"), "\(error)")
            }
        }
    }

    @Test("Mastodon outboxes: every status read, or one ImportError on one line; nothing else thrown")
    func outboxes() throws {
        var fuzzer = try Fuzzer(
            "outbox",
            tokens: [
                "\"orderedItems\": [", "\"type\": \"Create\"", "\"type\": \"Announce\"", "\"object\": {",
                "\"published\": \"", "2024-01-02T03:04:05Z", "\"content\": \"", "\"inReplyTo\": ",
                "\"summary\": ", "\"to\": [", "null", "[]", "{}",
            ])
        let url = FileManager.default.temporaryDirectory.appending(path: "fuzz-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        fuzzer.run { bytes in
            try Data(bytes).write(to: url)
            let file = ExportFiles.File(name: "outbox.json", url: url)
            do {
                let contents = try MastodonOutbox.contents(of: file)
                #expect(contents.boosts >= 0)
            } catch let error as ImportError {
                #expect(!error.description.contains("\n"), "\(error)")
            }
        }
    }

    @Test(
        "Bluesky's facets: any text gives facets in order, each a range of whole characters inside the text that covers its own link, @handle or #tag"
    )
    func richText() async throws {
        var fuzzer = try Fuzzer(
            "richtext", tokens: ["@", "#", "＃", "https://", "http://", ".", "-", "(", ")", "。", "、", " ", "\n", "é", "👩‍👩‍👧", "\u{301}"])
        var texts: [String] = []
        fuzzer.run { bytes in texts.append(String(decoding: bytes, as: UTF8.self)) }
        for text in texts {
            let facets = await RichText.facets(of: text) { "did:plc:" + $0 }
            let bytes = Array(text.utf8)
            var end = 0
            for facet in facets {
                let (start, stop) = (facet.index.byteStart, facet.index.byteEnd)
                #expect(start >= end && start < stop && stop <= bytes.count, "\(text.debugDescription): \(facets)")
                guard start >= end, start < stop, stop <= bytes.count else { break }
                end = stop
                #expect(![start, stop].contains { $0 < bytes.count && bytes[$0] & 0xC0 == 0x80 }, "\(text.debugDescription): inside a character")
                let covered = String(decoding: bytes[start..<stop], as: UTF8.self)
                switch facet.features.first {
                case .link(let uri)?: #expect(covered == uri)
                case .mention(let did)?: #expect("@" + did.dropFirst(8) == covered.lowercased())
                case .tag(let tag)?: #expect(covered.dropFirst() == tag)
                default: Issue.record("a facet without a feature of ours")
                }
            }
        }
    }

    @Test(
        "Bluesky's notifications and record keys: a decoded notification writes back to itself, and its post's id names its post again; most rounds decode"
    )
    func atprotoRecords() throws {
        var fuzzer = try Fuzzer(
            "atproto",
            tokens: [
                "\"", "{", "}", "[", "]", ",", ":", "null", "\"$type\"", "at://", "/app.bsky.feed.post/", "3jzfcijpj2z2a",
                "did:plc:", "\"reply\"", "\"facets\"", "-1", "99999999999",
            ])
        var decoded = 0
        var posts = 0
        fuzzer.run(generating: { JSONMutator.generate(&$0) }) { bytes in
            guard let notification = try? JSONDecoder().decode(BlueskyNotification.self, from: Data(bytes)) else { return }
            decoded += 1
            if notification.record != nil { posts += 1 }
            // What was read is what is written: decoding what it encodes to gives it back.
            let written = try JSONEncoder().encode(notification)
            #expect(try JSONDecoder().decode(BlueskyNotification.self, from: written) == notification, "\(String(decoding: written, as: UTF8.self))")
            if let parts = ATURI(notification.uri) {
                #expect(parts.description == notification.uri)
                if let id = BlueskyIDs.postID(of: notification.uri) {
                    #expect(parts.collection == PostRecord.type)
                    #expect(BlueskyIDs.uri(ofPost: id, by: parts.repo) == notification.uri, "\(notification.uri)")
                }
                if let tid = TID(parts.rkey) { #expect(TID(tid.description) == tid, "\(parts.rkey)") }
            } else {
                #expect(BlueskyIDs.postID(of: notification.uri) == nil)
            }
        }
        // Mutating inside the JSON's structure keeps most rounds decodable: a floor, so that the target cannot go on
        // fuzzing nothing but the decoder's syntax errors.
        let rounds = Fuzzer.iterations + fuzzer.corpus.count
        #expect(decoded * 4 >= rounds, "only \(decoded) of \(rounds) rounds decoded")
        #expect(posts * 15 >= rounds, "only \(posts) of \(rounds) rounds decoded a notification with a post")
    }

    @Test("Misskey's MFM to text: never longer than its input, no space at either end, text without markup given back as written")
    func mfm() throws {
        var fuzzer = try Fuzzer(
            "mfm",
            tokens: [
                "$[", "]", "x2 ", "spin.speed=2s ", "**", "***", "__", "~~", ":", ":igyo:", "<small>", "</small>",
                "<center>", "</center>", "> ", "\n", "@", "#",
            ])
        fuzzer.run { bytes in
            let mfm = String(decoding: bytes, as: UTF8.self)
            let text = WrittenText.from(mfm: mfm)
            #expect(text.unicodeScalars.count <= mfm.unicodeScalars.count, "\(mfm.debugDescription) → \(text.debugDescription)")
            #expect(text == text.trimmingCharacters(in: .whitespaces))
            let markup: Set<Character> = ["$", "[", "]", "*", "_", "~", ":", "<", ">", " ", "\t"]
            if !mfm.contains(where: { markup.contains($0) }) { #expect(text == mfm) }
        }
    }

    @Test("Misskey notes exports: every note read, or one ImportError on one line; a kept note's number names its time; nothing else thrown")
    func misskeyNotes() throws {
        var fuzzer = try Fuzzer(
            "misskeynotes",
            tokens: [
                "[", "]", "{", "}", ",", "\"id\":", "\"text\":", "\"createdAt\":", "\"2025-11-01T00:00:00.000Z\"",
                "\"replyId\":", "\"renoteId\":", "\"visibility\":", "\"followers\"", "\"cw\":", "null", "\"9x1a2b3c4d5e6f7g\"",
            ])
        let url = FileManager.default.temporaryDirectory.appending(path: "fuzz-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        fuzzer.run { bytes in
            try Data(bytes).write(to: url)
            do {
                let contents = try MisskeyNotesExport.contents(of: ExportFiles.File(name: "notes-x.json", url: url), copyingWarnings: false)
                #expect(contents.notes.count + contents.renotes + contents.notCopied == contents.read)
                for kept in contents.notes {
                    #expect(!kept.note.id.isEmpty && !kept.note.id.contains(where: \.isWhitespace), "\(kept.note.id)")
                }
            } catch let error as ImportError {
                #expect(!error.description.contains("\n"), "\(error)")
            }
        }
    }

    @Test("The archive's dates: one accepted is in the years 1970 to 9999")
    func exportDates() throws {
        var fuzzer = try Fuzzer("dates", tokens: [" ", ":", "+", "-", "Feb", "29", "60", "9999", "10000", "1969", "+2400", "-9999"])
        fuzzer.run { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            if let date = ExportDate.parse(text) {
                // The years 1970 to 9999, give or take a day for the zone.
                #expect((-86_400 * 2...253_402_300_799 + 86_400 * 2).contains(date.timeIntervalSince1970), "\(text.debugDescription)")
            }
        }
    }

    @Test(
        "Basic auth headers: a header made of user:password gives the password back exactly; a header gives a password only when decoding it by hand gives the same"
    )
    func basicAuthHeaders() throws {
        var fuzzer = try Fuzzer(
            "basicauth",
            tokens: [
                "Basic ", "basic ", "BASIC ", " ", "\t", ":", "=", "==", "Og==", "YTpi", "dXNlcjpwYXNz", "+", "/",
                "-", "_", "\u{3000}",
            ])
        var given = 0
        // Half the rounds change the credentials inside a corpus header and write it again (its base64 valid), half its bytes.
        fuzzer.run(generating: { fuzzer in
            let header = fuzzer.pick(fuzzer.corpus)
            guard fuzzer.below(2) == 0, let inside = Self.passwordDecodedByHand(in: String(decoding: header, as: UTF8.self)) else {
                return fuzzer.mutated(header)
            }
            // The password changed as text three times in four (so that it stays UTF-8), the whole as bytes otherwise.
            let credentials =
                fuzzer.below(4) == 0
                ? fuzzer.mutated(Array(("user:" + inside).utf8))
                : Array(("user:" + String(decoding: fuzzer.mutated(Array(inside.utf8)), as: UTF8.self)).utf8)
            // Mostly as clients write it, sometimes not.
            let scheme =
                fuzzer.below(8) == 0
                ? fuzzer.pick(["Basic\t", "Basic", "Bearer ", "Basic\u{301} "]) : fuzzer.pick(["Basic ", "basic ", "BASIC ", "Basic  ", "bAsIc "])
            let end = fuzzer.below(8) == 0 ? fuzzer.pick(["=", "\n", "A", "==="]) : fuzzer.pick(["", " ", "\t", "\u{3000}"])
            return Array((scheme + Data(credentials).base64EncodedString() + end).utf8)
        }) { bytes in
            let header = String(decoding: bytes, as: UTF8.self)
            let password = BasicAuthentication.password(in: header)
            if header.count < 4_096 { #expect(password == Self.passwordDecodedByHand(in: header), "\(header.debugDescription)") }
            if let password {
                given += 1
                #expect(
                    BasicAuthentication.equalInConstantTime(password, password) && !BasicAuthentication.equalInConstantTime(password, password + "x"))
            }
            // The input as the user name and password a client sends: the first colon ends the name (RFC 7617).
            let text = header.unicodeScalars
            let colon = text.firstIndex(of: ":")
            let secret = colon.map { String(text[text.index(after: $0)...]) } ?? header
            let user = colon.map { String(text[..<$0]) } ?? ""
            let made = "Basic " + Data((user + ":" + secret).utf8).base64EncodedString()
            if made.utf8.count < 4_096 {
                #expect(BasicAuthentication.password(in: made) == secret, "\(user.debugDescription):\(secret.debugDescription)")
                #expect(Self.passwordDecodedByHand(in: made) == secret)
            }
        }
        let rounds = Fuzzer.iterations + fuzzer.corpus.count
        #expect(given * 8 >= rounds, "only \(given) of \(rounds) headers gave a password")
    }

    /// The password of a basic auth header decoded without Foundation's base64: `basic ` in any case, spaces and tabs
    /// around the base64 (RFC 4648's: padded, nothing after the padding, unused bits zero), UTF-8 text whose first colon
    /// ends the user name.
    static func passwordDecodedByHand(in header: String) -> String? {
        var scalars = Array(header.unicodeScalars)
        guard scalars.count > 6, String(String.UnicodeScalarView(scalars[..<6])).lowercased() == "basic " else { return nil }
        scalars.removeFirst(6)
        let space = { (scalar: Unicode.Scalar) in scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator }
        while let first = scalars.first, space(first) { scalars.removeFirst() }
        while let last = scalars.last, space(last) { scalars.removeLast() }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".unicodeScalars)
        guard scalars.count.isMultiple(of: 4) else { return nil }
        let padding = scalars.reversed().prefix { $0 == "=" }.count
        guard padding <= 2 else { return nil }
        var bytes: [UInt8] = []
        var buffer = 0
        var bits = 0
        for scalar in scalars.dropLast(padding) {
            guard let value = alphabet.firstIndex(of: scalar) else { return nil }
            buffer = (buffer << 6 | value) & 0xFFFF
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: buffer >> bits))
            }
        }
        guard buffer & ((1 << bits) - 1) == 0, let text = String(validating: bytes, as: UTF8.self) else { return nil }
        let view = text.unicodeScalars
        guard let colon = view.firstIndex(of: ":") else { return nil }
        return String(view[view.index(after: colon)...])
    }
}
