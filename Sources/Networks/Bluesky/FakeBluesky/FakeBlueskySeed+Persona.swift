import BlueskyAPI
import BotClock
public import FakeKit
import Foundation

extension FakeBlueskySeed {
    /// The persona's person's app password.
    public static let personaPersonPassword = "demo-person-app-password"

    /// The generated persona on Bluesky: the same people (`hanako` is `hanako.bsky.example`, an underscore
    /// becoming a hyphen as handles want), the same posts at the same times as records their authors' apps would have
    /// written (each shortened link the address it stands for, a facet for each link and each
    /// `@handle`, `langs: ["ja"]`), replies with their root and parent, a repost for each repost, and the day's
    /// mentions of the bot. The bot logs in with `demo-bot-app-password` and carries the `bot` self-label, as does
    /// the account that answers everything; the person signs in with `demo-person-app-password` (nobody is mirrored
    /// who has not signed in as themselves), and the bot likes nothing on Bluesky anyway. Each account and post keeps
    /// its persona id for the demo's report.
    public init(persona: FakePersona, handleDomain: String = "bsky.example") async {
        let seed = persona
        func handle(_ user: FakePersona.Person) -> String { "\(user.username.lowercased().replacingOccurrences(of: "_", with: "-")).\(handleDomain)" }
        func did(_ userID: String) -> String { "did:plc:persona\(userID)" }
        var dids: [String: String] = [:]  // handle → DID
        var usernames: [String: FakePersona.Person] = [:]
        var accounts: [Account] = []
        for user in seed.people {
            dids[handle(user)] = did(user.id)
            usernames[user.username.lowercased()] = user
            let isBot = user.id == persona.bot.id || user.id == persona.echoBot.id
            accounts.append(
                Account(
                    did: did(user.id), handle: handle(user),
                    appPassword: user.id == persona.bot.id
                        ? "demo-bot-app-password"
                        : user.id == persona.human.id ? Self.personaPersonPassword : nil,
                    description: user.description ?? user.name, labels: isBot ? ["bot"] : [], personaID: user.id))
        }
        /// `@username` of the persona as `@handle` on Bluesky, for the persona's known accounts.
        func bluesky(_ text: String) -> String {
            text.replacing(/@([A-Za-z0-9_]+)/) { match in usernames[String(match.1).lowercased()].map { "@" + handle($0) } ?? String(match.0) }
        }
        var posts: [Post] = []
        var reposts: [Repost] = []
        var refs: [String: (ref: StrongRef, root: StrongRef)] = [:]  // persona post id → its post's ref and its thread's root
        var clock: UInt64 = 0
        func add(_ authorID: String, _ text: String, at date: Date, replyingTo parentID: String? = nil, personaID: String) async -> StrongRef? {
            // Bluesky holds at most 300 graphemes; a persona post longer than that was never written there.
            guard text.count <= 300 else { return nil }
            clock += 1
            let facets = await RichText.facets(of: text) { dids[$0] }
            let parent = parentID.flatMap { refs[$0] }
            let record = PostRecord(
                text: text, createdAt: ISO8601Time.string(from: date), langs: ["ja"], facets: facets.isEmpty ? nil : facets,
                reply: parent.map { ReplyRef(root: $0.root, parent: $0.ref) })
            let rkey = TID(date: date, clockID: clock).description
            posts.append(Post(authorDID: did(authorID), rkey: rkey, record: record, indexedAt: date, personaID: personaID))
            let ref = StrongRef(uri: ATURI(repo: did(authorID), collection: PostRecord.type, rkey: rkey).description, cid: Self.cid(of: record))
            refs[personaID] = (ref, parent?.root ?? ref)
            return ref
        }
        for post in seed.posts {
            let text = post.writtenText
            if post.repostOf != nil {
                // "RT @author: text": the author's post a minute before, and the person's repost of it. Another
                // account's old-style repost ("RT @") of the bot is no mention on Bluesky: left out.
                guard post.authorID == persona.human.id, let match = text.firstMatch(of: /^RT @([A-Za-z0-9_]+): (.*)$/),
                    let author = usernames[String(match.1).lowercased()],
                    let original = await add(
                        author.id, bluesky(String(match.2)), at: post.createdAt.addingTimeInterval(-60),
                        personaID: "\(post.id)-original")
                else { continue }
                reposts.append(Repost(byDID: did(post.authorID), uri: original.uri, at: post.createdAt))
                continue
            }
            _ = await add(post.authorID, bluesky(text), at: post.createdAt, replyingTo: post.inReplyToPostID, personaID: post.id)
        }
        self.init(now: seed.now, accounts: accounts, posts: posts, reposts: reposts)
    }
}
