import PostText
import Testing

/// Mastodon's status HTML to the text its author wrote: what the archive, the classifier and the reply pool keep.
@Suite("A status's HTML as the text its author wrote")
struct StatusHTMLTests {
    @Test("Paragraphs become a blank line and <br> a line break, Japanese text untouched")
    func paragraphsAndLineBreaks() {
        #expect(WrittenText.from(html: "<p>今日は雨。<br>明日は晴れるかな</p><p>次の段落です</p>") == "今日は雨。\n明日は晴れるかな\n\n次の段落です")
        #expect(WrittenText.from(html: "<p>one<br/>two<br />three<br><br>five</p>") == "one\ntwo\nthree\n\nfive")
        #expect(WrittenText.from(html: "<p></p><p>only</p><p> </p>") == "only")
        #expect(WrittenText.from(html: "<blockquote><p>quoted</p></blockquote><p>mine</p>") == "quoted\n\nmine")
        #expect(WrittenText.from(html: "<ul><li>one</li><li>two</li></ul>") == "one\ntwo")
    }

    @Test("A mention is its @name, a hashtag its #tag, a link its whole address (Mastodon's hidden spans included)")
    func mentionsHashtagsAndLinks() {
        let mention =
            #"<p><span class="h-card" translate="no"><a href="https://social.example/@friend" class="u-url mention">@<span>friend</span></a></span> こんにちは</p>"#
        #expect(WrittenText.from(html: mention) == "@friend こんにちは")
        let hashtag = #"<p>読んだ <a href="https://social.example/tags/swift" class="mention hashtag" rel="tag">#<span>swift</span></a></p>"#
        #expect(WrittenText.from(html: hashtag) == "読んだ #swift")
        let link =
            #"<p>記事 <a href="https://example.com/articles/2026/11/a-long-path" target="_blank" rel="nofollow noopener noreferrer" translate="no"><span class="invisible">https://</span><span class="ellipsis">example.com/articles/2026/11/a</span><span class="invisible">-long-path</span></a></p>"#
        #expect(WrittenText.from(html: link) == "記事 https://example.com/articles/2026/11/a-long-path")
        // An attribute value holding ">" does not end the tag.
        #expect(WrittenText.from(html: #"<a title="a > b" href="https://example.com">example.com</a>"#) == "example.com")
    }

    @Test("Character references are decoded; what is not one is kept as written")
    func references() {
        #expect(WrittenText.from(html: "<p>&lt;3 &amp; &quot;quoted&quot; it&#39;s &apos;ok&apos;</p>") == #"<3 & "quoted" it's 'ok'"#)
        #expect(WrittenText.from(html: "&#x1F600;&#128512; &hellip;&mdash;") == "😀😀 …—")
        #expect(WrittenText.from(html: "a&nbsp;b") == "a\u{00A0}b")
        #expect(WrittenText.from(html: "AT&T &bogus; &amp &#; &#xZZ; & end") == "AT&T &bogus; &amp &#; &#xZZ; & end")
        #expect(WrittenText.from(html: "&#0; &#x110000;") == "\u{FFFD} \u{FFFD}")
        // An escaped reference stays the reference its author typed.
        #expect(WrittenText.from(html: "&amp;lt;") == "&lt;")
    }

    @Test("Spaces and raw line breaks show as one space, as a browser shows them, except in <pre>")
    func whitespace() {
        #expect(WrittenText.from(html: "<p>a \n   b\t c</p>") == "a b c")
        #expect(WrittenText.from(html: "  <p>  padded  </p>  ") == "padded")
        #expect(WrittenText.from(html: "<p>line <br> next</p>") == "line\nnext")
        #expect(WrittenText.from(html: "<pre>keep  these\n  spaces</pre><p>after</p>") == "keep  these\n  spaces\n\nafter")
    }

    @Test("Anything that is not a tag stays text; scripts, styles and comments leave nothing")
    func malformedAndHidden() {
        #expect(WrittenText.from(html: "<p>1 < 2 and 3 > 2</p>") == "1 < 2 and 3 > 2")
        #expect(WrittenText.from(html: "<3 you") == "<3 you")
        #expect(WrittenText.from(html: "<p>broken <a href=\"x") == "broken <a href=\"x")
        #expect(WrittenText.from(html: "a <b>bold</B> <I>move</i>") == "a bold move")
        #expect(WrittenText.from(html: "<p>seen<!-- hidden --></p><script>alert(1)</script><style>p{}</style><p>also</p>") == "seen\n\nalso")
        #expect(WrittenText.from(html: "<!DOCTYPE html><p>doc</p>") == "doc")
        #expect(WrittenText.from(html: "") == "")
        #expect(WrittenText.from(html: "plain text, no tags") == "plain text, no tags")
        #expect(WrittenText.from(html: "<p>unclosed <!-- comment") == "unclosed <!-- comment")
    }

    @Test("Markup that runs to the end unterminated makes the rest text, so that hostile input reads in one pass: its characters come back")
    func hostileMarkup() {
        // What follows an unterminated comment, declaration or tag is text, tags included.
        #expect(WrittenText.from(html: "<p>a</p><!-- b <p>c</p>") == "a\n\n<!-- b <p>c</p>")
        #expect(WrittenText.from(html: "x <a \"y <b>z</b>") == "x <a \"y <b>z</b>")
        #expect(WrittenText.from(html: "x <! y < z") == "x <! y < z")
        #expect(WrittenText.from(html: "x <! y <p>z") == "x z")  // a declaration ends at the first `>`
        // Tens of thousands of each: every character is kept (the benchmark times a megabyte of each).
        for piece in ["<!--", "<!", "<a \"", "<a b", "< "] {
            let html = String(repeating: piece, count: 20_000)
            let text = WrittenText.from(html: html)
            #expect(text == html.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "  ", with: " "), "\(piece)")
        }
    }
}
