import Foundation
import Testing

@testable import FrontDoor

@Suite("The front door's pages in the browser's language")
struct DoorPagesTests {
    @Test("A deletion's receipt in Japanese for a browser that asks for it first, in English otherwise, every value escaped")
    func receiptInEachLanguage() {
        let deletion = DoorDeletion(schema: "bot_7", keys: 12, networkName: "<Net>", at: Date(timeIntervalSince1970: 1_795_000_000))
        let japanese = DoorPages.deleted(DoorText.preferred("ja,en;q=0.8"), deletion)
        #expect(japanese.contains("lang=\"ja\"") && japanese.contains("Redis の単語の数のキー 12 個") && japanese.contains("スキーマ bot_7"))
        #expect(japanese.contains("&lt;Net&gt; で承認されたまま") && !japanese.contains("<Net>"))
        let english = DoorPages.deleted(DoorText.preferred("en-GB"), deletion)
        #expect(english.contains("12 word-count keys in Redis") && english.contains("still approved on &lt;Net&gt;"))
        #expect(deletion.lines(language: "ja").count == deletion.lines(language: "en").count)
    }
}
