import BotCore
public import FakeKit
import Foundation

extension FakeMastodonSeed {
    /// The generated persona on a Mastodon instance: the same people, the same posts at the same times and with
    /// the same ids (statuses in HTML as an instance writes them: paragraphs, mentions as links, each shortened link as
    /// the address it stands for), replies, a boost for each repost, the person's likes as favourites, the same
    /// follows, and the bot that answers everything. The person's token reads; the bot's reads, posts and
    /// favourites, and the bot account has the bot flag. Tokens are the persona's access tokens.
    public init(persona: FakePersona, domain: String = "mastodon.example") {
        let seed = persona
        let usernames = Dictionary(uniqueKeysWithValues: seed.people.map { ($0.username.lowercased(), $0.id) })
        let tokens = persona.tokens
        var accounts: [Account] = []
        for user in seed.people {
            let scopes: Set<String> =
                user.id == persona.human.id
                ? ["read"]
                : user.id == persona.bot.id ? ["read", "write:statuses", "write:favourites"] : ["read", "write"]
            accounts.append(
                Account(
                    id: user.id, username: user.username, token: tokens[user.id], scopes: scopes,
                    bot: user.id == persona.bot.id || user.id == persona.echoBot.id))
        }
        var statuses: [Status] = []
        for post in seed.posts {
            let text = post.writtenText
            if post.repostOf != nil {
                // "RT @author: text": the author's status and the boost of it (a mention by boost is not a mention).
                guard post.authorID == persona.human.id, let match = text.firstMatch(of: /^RT @([A-Za-z0-9_]+): (.*)$/),
                    let authorID = usernames[String(match.1).lowercased()], let boostID = UInt64(post.id)
                else { continue }
                let originalID = String(boostID - 1_000_000)
                statuses.append(
                    Status(
                        id: originalID, accountID: authorID, content: Self.html(String(match.2), usernames: usernames, domain: domain),
                        createdAt: post.createdAt.addingTimeInterval(-60)))
                statuses.append(Status(id: post.id, accountID: post.authorID, content: "", createdAt: post.createdAt, reblogOf: originalID))
                continue
            }
            let mentioned = text.matches(of: /@([A-Za-z0-9_]+)/).compactMap { usernames[String($0.1).lowercased()] }
            statuses.append(
                Status(
                    id: post.id, accountID: post.authorID, content: Self.html(text, usernames: usernames, domain: domain),
                    createdAt: post.createdAt, inReplyToID: post.inReplyToPostID, mentionIDs: Array(Set(mentioned))))
        }
        self.init(now: seed.now, domain: domain, accounts: accounts, statuses: statuses, favourites: seed.likes, follows: seed.follows)
        autoRepliers = seed.autoRepliers
    }

    /// Plain text as an instance writes it: escaped, paragraphs, line breaks, mentions of known accounts as h-card
    /// links, addresses as links whose scheme is hidden.
    static func html(_ text: String, usernames: [String: String], domain: String) -> String {
        var html = FakeMastodonWorld.html(fromPlain: text)
        html = html.replacing(/https?:\/\/([^\s<&]+)/) { match in
            "<a href=\"\(match.0)\" rel=\"nofollow noopener\" target=\"_blank\"><span class=\"invisible\">https://</span><span class=\"\">\(match.1)</span><span class=\"invisible\"></span></a>"
        }
        return html.replacing(/@([A-Za-z0-9_]+)/) { match in
            guard usernames[String(match.1).lowercased()] != nil else { return String(match.0) }
            return
                "<span class=\"h-card\" translate=\"no\"><a href=\"https://\(domain)/@\(match.1)\" class=\"u-url mention\">@<span>\(match.1)</span></a></span>"
        }
    }
}
