public import Foundation

/// Where the network shows a post, from its id. On Mastodon ids are the instance's own, so the bot's instance opens
/// the bot's posts, its mentions and what it liked, and the person's instance opens the person's statuses.
public struct PostAddresses: Sendable {
    /// The address of a post the bot's account sees by this id (its own posts, mentions, liked posts), if any.
    public var botSide: @Sendable (String) -> String?
    /// The address of one of the person's posts by its id (what a slot copied, the newest learned), if any.
    public var personSide: @Sendable (String) -> String?

    /// Links from their parts.
    public init(botSide: @escaping @Sendable (String) -> String?, personSide: @escaping @Sendable (String) -> String?) {
        self.botSide = botSide
        self.personSide = personSide
    }

    /// No links: ids are shown as text.
    public static let none = PostAddresses(botSide: { _ in nil }, personSide: { _ in nil })

    /// X: any post opens at `x.com/i/web/status/<id>`, whoever wrote it.
    public static let x: PostAddresses = {
        let link: @Sendable (String) -> String? = { "https://x.com/i/web/status/" + $0 }
        return PostAddresses(botSide: link, personSide: link)
    }()

    /// Mastodon: the web app of the instance that gave the id opens `/statuses/<id>` (a path of its web app, which
    /// shows the status under its author's handle), local or not.
    public static func mastodon(botInstance: URL, personInstance: URL) -> PostAddresses {
        PostAddresses(botSide: statusPage(on: botInstance), personSide: statusPage(on: personInstance))
    }

    private static func statusPage(on instance: URL) -> @Sendable (String) -> String? {
        var base = instance.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return { [base] id in !id.isEmpty && id.allSatisfy(\.isASCII) && id.allSatisfy(\.isNumber) ? base + "/statuses/" + id : nil }
    }
}
