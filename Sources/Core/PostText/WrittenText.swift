import Foundation

/// A post's text as its author wrote it, from the form X sends (in the API and in an archive export alike): each
/// t.co link replaced by the address it stands for, and the three characters X escapes (`&lt;`, `&gt;`, `&amp;`)
/// unescaped, so that posting it again posts what the person posted.
public enum WrittenText {
    /// A shortened link and the address it stands for.
    public typealias Link = (short: String, expanded: String)

    /// The text as written: `links` expanded, then `&lt;`, `&gt;` and `&amp;` unescaped (in that order, so that an
    /// escaped `&amp;lt;` becomes the `&lt;` its author typed).
    public static func from(escaped text: String, links: [Link] = []) -> String {
        var result = text
        for link in links where !link.short.isEmpty {
            result = result.replacingOccurrences(of: link.short, with: link.expanded)
        }
        return unescaped(result)
    }

    /// `&lt;`, `&gt;`, then `&amp;` unescaped.
    public static func unescaped(_ text: String) -> String {
        guard text.contains("&") else { return text }
        return text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
