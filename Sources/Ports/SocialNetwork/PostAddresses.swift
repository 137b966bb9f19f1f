import Foundation

/// Where the network shows a post, from its id: each network's module gives its own (where ids are a server's own,
/// the bot's server opens the bot's posts, its mentions and what it liked, and the person's server the person's).
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
}
