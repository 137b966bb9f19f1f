import BlueskyAPI
import Foundation
import Testing

/// Facets in UTF-8 bytes, and record keys from what a record is for.
@Suite("Bluesky's rich text and record keys")
struct RichTextTests {
    @Test("Japanese text with a mention, a link and a tag: each facet's bytes cover exactly its text; an unknown handle stays plain text")
    func facetsInBytes() async throws {
        let text = "@friend.test さん、これ見て！https://example.com/こ?q=1 です #日本語 と @nobody.test。(https://a.example/x)"
        let facets = await RichText.facets(of: text) { handle in handle == "friend.test" ? "did:plc:friend" : nil }
        let bytes = Array(text.utf8)
        let covered = facets.map { String(decoding: bytes[$0.index.byteStart..<$0.index.byteEnd], as: UTF8.self) }
        #expect(covered == ["@friend.test", "https://example.com/", "#日本語", "https://a.example/x"])
        #expect(
            facets.map(\.features) == [
                [.mention(did: "did:plc:friend")], [.link(uri: "https://example.com/")], [.tag("日本語")],
                [.link(uri: "https://a.example/x")],
            ])
        // "@friend.test さん、これ見て！" is 12 + 1 + 8 × 3 bytes: the link starts at byte 37, not at character 21.
        #expect(facets[1].index == ByteSlice(byteStart: 37, byteEnd: 57))
    }

    @Test("Links lose trailing punctuation and an unbalanced parenthesis; e-mail addresses and numbers-only tags are not facets")
    func edges() async throws {
        let text = "mail me@example.com, see https://x.example/a_(b). #123 #ok! (https://y.example/z)"
        let facets = await RichText.facets(of: text) { _ in "did:plc:someone" }
        let bytes = Array(text.utf8)
        let covered = facets.map { String(decoding: bytes[$0.index.byteStart..<$0.index.byteEnd], as: UTF8.self) }
        #expect(covered == ["https://x.example/a_(b)", "#ok", "https://y.example/z"])
    }

    @Test("A TID is 13 characters that read back; one made for a purpose is the same each time and differs between purposes")
    func tids() {
        let date = Date(timeIntervalSince1970: 1_764_000_000.123456)
        let slot = TID(date: date, purpose: "slot 2025-11-24 16:00")
        #expect(TID(slot.description) == slot)
        #expect(slot.description.count == 13)
        #expect(abs(slot.date.timeIntervalSince(date)) < 0.000_002)
        #expect(TID(date: date, purpose: "slot 2025-11-24 16:00") == slot)
        #expect(TID(date: date, purpose: "slot 2025-11-24 16:01") != slot)
        // The protocol's own example key reads as a time in 2023.
        let example = TID("3jzfcijpj2z2a")
        #expect(example.map { Calendar(identifier: .gregorian).component(.year, from: $0.date) } == 2023)
        #expect(TID("3jzfcijpj2z2") == nil && TID("kjzfcijpj2z2a") == nil && TID("3jzfcijpj2z21") == nil)
    }
}
