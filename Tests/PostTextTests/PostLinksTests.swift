import PostText
import Testing

@Suite("What X posts as a link")
struct PostLinksTests {
    @Test(
        "URLs with a scheme, www. addresses and bare domains with a known top-level domain are links",
        arguments: [
            "見て https://example.com/a", "HTTP://EXAMPLE.COM", "see www.example.org", "example.com", "ブログ更新しました blog.example.jp/2026/11",
            "news.example.co.jp の記事", "(example.io)", "t.co/abc は短縮", "朝はexample.comを見る",
        ])
    func links(_ text: String) {
        #expect(PostLinks.containsLink(text), "\(text)")
    }

    @Test(
        "Plain text, handles, e-mail addresses, version numbers and file names are not links",
        arguments: [
            "今日はラーメンの日", "@example_com どうも", "mail me at hanako@example.com", "v1.0 が出た", "report.txt を送った",
            "node.js 便利", "3.14", "...com", "end.", "ドット.com",
        ])
    func notLinks(_ text: String) {
        #expect(!PostLinks.containsLink(text), "\(text)")
    }
}
