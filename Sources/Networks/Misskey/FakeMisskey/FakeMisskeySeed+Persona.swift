public import FakeKit
import Foundation

extension FakeMisskeySeed {
    /// The generated persona on a Misskey instance: the same people, the same posts at the same times (each shortened link the address it
    /// stands for), as notes with `aidx` ids of their times, replies, a renote for
    /// each repost, the person's likes as ❤ reactions, the same follows, and the bot that answers everything. Misskey's
    /// own: one in ten of the person's notes in MFM (`**…**`), and notes the bot must never copy: one in twelve
    /// followers-only, one in seventeen specified, one in nineteen behind a warning; the stranger's profile says #nobot.
    /// The person's token reads; the bot's reads, writes notes and reacts, and the bot has the bot flag. Tokens are the
    /// persona's access tokens; each note and account keeps its persona id for the demo's report.
    public init(persona: FakePersona, host: String = "misskey.example") {
        let seed = persona
        let tokens = persona.tokens
        func userID(_ personaID: String) -> String { "9xu" + personaID }
        var accounts: [Account] = []
        for user in seed.people {
            let permissions: Set<String> =
                user.id == persona.human.id
                ? ["read:account", "read:reactions"]
                : user.id == persona.bot.id ? ["read:account", "write:notes", "write:reactions"] : []
            var description = user.description ?? user.name
            if user.id == persona.stranger.id { description += " 自動アカウントからの返信はお断り #nobot" }
            accounts.append(
                Account(
                    id: userID(user.id), username: user.username, token: tokens[user.id], permissions: permissions,
                    isBot: user.id == persona.bot.id || user.id == persona.echoBot.id, description: description))
        }
        var notes: [Note] = []
        var noteIDs: [String: String] = [:]  // persona post id → note id
        var counter = 0
        var personNotes = 0
        func add(
            _ personaID: String, author: String, text: String?, at date: Date, reply: String? = nil, renote: String? = nil,
            visibility: String = "public", cw: String? = nil, visibleTo: [String] = []
        ) {
            counter += 1
            let id = FakeMisskeySeed.aidx(at: date, node: "pers", counter: counter)
            noteIDs[personaID] = id
            notes.append(
                Note(
                    id: id, userID: userID(author), text: text, cw: cw, visibility: visibility, replyID: reply.flatMap { noteIDs[$0] },
                    renoteID: renote, createdAt: date, visibleUserIDs: visibleTo))
        }
        for post in seed.posts.sorted(by: { $0.createdAt < $1.createdAt }) {
            let text = post.writtenText
            if post.repostOf != nil {
                // "RT @author: text": the author's note a minute before, and the person's renote of it.
                guard post.authorID == persona.human.id, let match = text.firstMatch(of: /^RT @([A-Za-z0-9_]+): (.*)$/),
                    let author = seed.people.first(where: { $0.username.lowercased() == String(match.1).lowercased() })
                else { continue }
                add("\(post.id)-original", author: author.id, text: String(match.2), at: post.createdAt.addingTimeInterval(-60))
                add(post.id, author: post.authorID, text: nil, at: post.createdAt, renote: noteIDs["\(post.id)-original"])
                continue
            }
            guard post.authorID == persona.human.id, post.inReplyToPostID == nil else {
                add(post.id, author: post.authorID, text: text, at: post.createdAt, reply: post.inReplyToPostID)
                continue
            }
            personNotes += 1
            let friend = persona.friends.first.map { userID($0.id) } ?? ""
            switch personNotes {
            case let n where n % 12 == 0: add(post.id, author: post.authorID, text: text, at: post.createdAt, visibility: "followers")
            case let n where n % 17 == 0:
                add(post.id, author: post.authorID, text: text, at: post.createdAt, visibility: "specified", visibleTo: [friend])
            case let n where n % 19 == 0: add(post.id, author: post.authorID, text: text, at: post.createdAt, cw: "ネタバレ")
            case let n where n % 10 == 0: add(post.id, author: post.authorID, text: "**\(text)**", at: post.createdAt, visibility: "home")
            default: add(post.id, author: post.authorID, text: text, at: post.createdAt, visibility: personNotes % 2 == 0 ? "home" : "public")
            }
        }
        let reactions = Dictionary(
            uniqueKeysWithValues: seed.likes.map { user, liked in
                (userID(user), liked.compactMap { noteIDs[$0] }.map { (noteID: $0, reaction: "❤") })
            })
        self.init(
            now: seed.now, host: host, accounts: accounts, notes: notes, reactions: reactions,
            follows: Dictionary(uniqueKeysWithValues: seed.follows.map { (userID($0.key), $0.value.map(userID)) }))
        autoRepliers = seed.autoRepliers.map(userID)
        personaNoteIDs = Dictionary(uniqueKeysWithValues: noteIDs.map { ($0.value, $0.key) })
        personaUserIDs = Dictionary(uniqueKeysWithValues: seed.people.map { (userID($0.id), $0.id) })
    }
}
