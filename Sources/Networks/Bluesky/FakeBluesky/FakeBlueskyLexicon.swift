import BlueskyAPI
import BotClock
import Foundation

/// The fake's check of a written record against its collection's lexicon (`app.bsky.feed.post`,
/// `app.bsky.actor.profile`, `app.bsky.feed.like`): what a PDS validating records refuses, and what the AppView
/// needs to show it right (facets on character boundaries, inside the text; a reply's refs to posts that exist).
enum FakeBlueskyLexicon {
    /// The limits of `app.bsky.feed.post#text` (maxGraphemes, maxLength in UTF-8 bytes) and of `langs`.
    static let maxGraphemes = 300, maxBytes = 3_000, maxLangs = 3

    /// What is wrong with `record` written at `rkey` of `collection`, or nil.
    static func problem(with record: JSONValue, in collection: String, rkey: String, world: isolated FakeBlueskyWorld) -> String? {
        guard record["$type"]?.stringValue == collection else {
            return "Invalid $type: expected \(collection), got \(record["$type"]?.stringValue ?? "none")"
        }
        switch collection {
        case PostRecord.type:
            guard TID(rkey) != nil else { return "Invalid record key: \(rkey) is not a TID" }
            return postProblem(record, world: world)
        case "app.bsky.feed.like":
            guard TID(rkey) != nil else { return "Invalid record key: \(rkey) is not a TID" }
            guard let uri = record["subject"]?["uri"]?.stringValue, let cid = record["subject"]?["cid"]?.stringValue else {
                return "Record/subject must be a strongRef"
            }
            return world.exists(StrongRef(uri: uri, cid: cid)) ? nil : "Record/subject: no such post \(uri)"
        case "app.bsky.actor.profile":
            guard rkey == "self" else { return "Invalid record key: a profile is at \"self\"" }
            if let description = record["description"]?.stringValue, description.count > 256 || description.utf8.count > 2_560 {
                return "Record/description must not be longer than 256 graphemes"
            }
            return labelsProblem(record)
        default:
            return nil
        }
    }

    private static func postProblem(_ value: JSONValue, world: isolated FakeBlueskyWorld) -> String? {
        guard let data = try? JSONEncoder().encode(value), let post = try? JSONDecoder().decode(PostRecord.self, from: data) else {
            return "Record must have the properties \"text\" and \"createdAt\""
        }
        if post.text.count > maxGraphemes { return "Record/text must not be longer than \(maxGraphemes) graphemes" }
        if post.text.utf8.count > maxBytes { return "Record/text must not be longer than \(maxBytes) characters" }
        if ISO8601Time.date(from: post.createdAt) == nil { return "Record/createdAt must be an valid atproto datetime (both RFC-3339 and ISO-8601)" }
        if (post.langs?.count ?? 0) > maxLangs { return "Record/langs must not have more than \(maxLangs) elements" }
        for lang in post.langs ?? [] where lang.isEmpty || lang.contains(" ") { return "Record/langs must be BCP-47 language tags" }
        for (number, facet) in (post.facets ?? []).enumerated() {
            if let problem = facetProblem(facet, in: post.text, world: world) { return "Record/facets/\(number): \(problem)" }
        }
        if let reply = post.reply {
            for (name, reference) in [("root", reply.root), ("parent", reply.parent)] where !world.exists(reference) {
                return "Record/reply/\(name): no post \(reference.uri) with cid \(reference.cid)"
            }
        }
        return labelsProblem(value)
    }

    private static func facetProblem(_ facet: Facet, in text: String, world: isolated FakeBlueskyWorld) -> String? {
        let bytes = Array(text.utf8)
        let (start, end) = (facet.index.byteStart, facet.index.byteEnd)
        guard start >= 0, start < end, end <= bytes.count else { return "byte range \(start)..<\(end) is outside the text's \(bytes.count) bytes" }
        // A boundary inside a character's bytes is not a character boundary: UTF-8 continuation bytes are 0b10xxxxxx.
        for boundary in [start, end] where boundary < bytes.count && bytes[boundary] & 0xC0 == 0x80 {
            return "byte \(boundary) is inside a character"
        }
        let covered = String(decoding: bytes[start..<end], as: UTF8.self)
        guard facet.features.count == 1 else { return facet.features.isEmpty ? "a facet needs a feature" : nil }
        switch facet.features[0] {
        case .link(let uri):
            guard URL(string: uri)?.scheme != nil else { return "link \(uri) is not a URI" }
            // The app shows the covered text as the link: the URI itself, or a shortened form of it ("example.com/a…").
            let shown = covered.hasSuffix("...") ? String(covered.dropLast(3)) : covered.hasSuffix("…") ? String(covered.dropLast()) : covered
            guard !shown.isEmpty, uri.contains(shown) else { return "a link covers \"\(covered)\", not its URI \(uri)" }
        case .mention(let did):
            guard world.accountExists(did) else { return "mention of \(did), which no account has" }
            guard covered.hasPrefix("@") else { return "a mention covers \"\(covered)\", not an @handle" }
        case .tag(let tag):
            guard tag.count <= 64, !tag.isEmpty, !tag.hasPrefix("#") else { return "tag \"\(tag)\" is not a tag's value" }
            guard covered == "#" + tag || covered == "＃" + tag else { return "a tag covers \"\(covered)\", not #\(tag)" }
        case .other:
            break
        }
        return nil
    }

    private static func labelsProblem(_ value: JSONValue) -> String? {
        guard let labels = value["labels"] else { return nil }
        guard labels["$type"]?.stringValue == SelfLabels.type else { return "Record/labels must be com.atproto.label.defs#selfLabels" }
        let values = FakeBlueskyWorld.selfLabels(of: value)
        if values.count > 10 { return "Record/labels/values must not have more than 10 elements" }
        if values.contains(where: { $0.isEmpty || $0.utf8.count > 128 }) { return "Record/labels/values/val must be 1 to 128 bytes" }
        return nil
    }
}
