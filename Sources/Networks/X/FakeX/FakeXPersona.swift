public import FakeKit
import Foundation

/// The generated persona (`FakePersona`) as fake X serves it: its people as users, its posts as tweets, and OAuth 1.0a
/// credentials for the human's and the bot's apps.
public struct FakeXPersona: Sendable {
    /// What to generate.
    public typealias Options = FakePersona.Options

    /// The persona in no network's shape.
    public var persona: FakePersona
    /// The server's starting data.
    public var seed: FakeXSeed

    /// Generates the persona described by `options`.
    public init(_ options: Options) { self.init(FakePersona(options)) }

    /// Fake X's seed for `persona`.
    public init(_ persona: FakePersona) {
        self.persona = persona
        seed = FakeXSeed(persona: persona)
    }

    /// The person mirrored.
    public var human: FakeXSeed.User { .init(persona.human) }
    /// The bot account.
    public var bot: FakeXSeed.User { .init(persona.bot) }
    /// Friends the human has replied to (`echo_bot` among them).
    public var friends: [FakeXSeed.User] { persona.friends.map(FakeXSeed.User.init) }
    /// A user the human never talked to; mentions the bot during the day.
    public var stranger: FakeXSeed.User { .init(persona.stranger) }
    /// A bot that answers everything mentioning it; the human has replied to it.
    public var echoBot: FakeXSeed.User { .init(persona.echoBot) }
    /// Accounts the human and the bot follow.
    public var authors: [FakeXSeed.User] { persona.authors.map(FakeXSeed.User.init) }
    /// The topics the human likes most.
    public var likedTopics: [String] { persona.likedTopics }

    /// The human's credentials in the seed.
    public var humanAccount: FakeXSeed.Account { seed.accounts[0] }
    /// The bot's credentials in the seed.
    public var botAccount: FakeXSeed.Account { seed.accounts[1] }
}

extension FakeXSeed {
    /// The persona as fake X serves it: each post a tweet (its links as t.co links with their expanded URLs), the
    /// human's and the bot's apps with the persona's access tokens.
    public init(persona: FakePersona) {
        self.init(
            now: persona.now, users: persona.people.map(User.init),
            accounts: [
                .init(
                    userID: persona.human.id, consumerKey: "demo-human-app", consumerSecret: "demo-human-app-secret",
                    accessToken: persona.humanToken, accessTokenSecret: "demo-human-token-secret"),
                .init(
                    userID: persona.bot.id, consumerKey: "demo-bot-app", consumerSecret: "demo-bot-app-secret",
                    accessToken: persona.botToken, accessTokenSecret: "demo-bot-token-secret"),
            ],
            tweets: persona.posts.map(Tweet.init), likes: persona.likes, follows: persona.follows, autoRepliers: persona.autoRepliers)
    }
}

extension FakeXSeed.User {
    /// The persona's account as an X user.
    public init(_ person: FakePersona.Person) {
        self.init(id: person.id, username: person.username, name: person.name, description: person.description)
    }
}

extension FakeXSeed.Tweet {
    /// The persona's post as a tweet.
    public init(_ post: FakePersona.Post) {
        self.init(
            id: post.id, authorID: post.authorID, text: post.text, createdAt: post.createdAt, inReplyToTweetID: post.inReplyToPostID,
            inReplyToUserID: post.inReplyToAccountID, retweetOf: post.repostOf,
            urls: post.links.map { $0.map { Link(url: $0.shown, expandedURL: $0.address) } })
    }

    /// The text as its author wrote it, for a network that shows plain text: X's escapes (`&amp;`, `&lt;`, `&gt;`)
    /// undone, each t.co link the address it stands for.
    public var writtenText: String {
        let unescaped = text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
        return (urls ?? []).reduce(unescaped) { $0.replacingOccurrences(of: $1.url, with: $1.expandedURL) }
    }
}
