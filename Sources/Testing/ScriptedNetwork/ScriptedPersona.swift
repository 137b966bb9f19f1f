public import Foundation

/// A person and their surroundings for a scripted day, generated from a seed: two months of their posts (at their
/// hours: mornings and late evenings), their replies to friends, what they liked on their timeline; and the day itself:
/// mentions from friends, a stranger, a bot that answers everything, someone whose profile says `#nobot`, the bot's own
/// post and a repost among them; posts on both home timelines; the person's new posts and deletions.
public struct ScriptedPersona: Sendable {
    /// The world of the day, everything scheduled.
    public let world: ScriptedWorld
    /// The person's posts before the day (what `train scheduler` or `import` stored).
    public let history: [ScriptedWorld.Post]
    /// The posts the person liked before the day, and those they saw and did not like (what `train classifier` learned).
    public let liked: [ScriptedWorld.Post]
    /// Seen and not liked before the day.
    public let seen: [ScriptedWorld.Post]
    /// When the day starts (00:00 in `timeZone`).
    public let dayStart: Date
    /// The person's zone.
    public let timeZone: TimeZone
    /// The friends (the person replied to each).
    public let friends: [ScriptedWorld.User]
    /// Someone the person never replied to.
    public let stranger: ScriptedWorld.User
    /// A bot that mentions the bot over and over in one conversation.
    public let chattyBot: ScriptedWorld.User
    /// Someone whose profile asks bots to stay away.
    public let noBots: ScriptedWorld.User
    /// The mentions of the day, by id.
    public let mentionIDs: [Int64]
    /// The mentions that ask the bot to stop: a friend's (`もうやめて`), a followed account's (`stop`, whose posts the
    /// bot may like), the stranger's (`停止`, the person's word for a pause, from someone else), by author.
    public let optOutMentions: [(author: ScriptedWorld.User, id: Int64)]
    /// The person's commands of the day from their own account: `停止` (pause posting), then `再開` (resume).
    public let pauseMentionID: Int64, resumeMentionID: Int64
    /// The person's posts deleted during the day, with when.
    public let deletions: [(id: Int64, at: Date)]

    /// Words the person's posts and the timelines are made of; the person likes posts about the first four.
    static let liked = ["ラーメン", "猫", "温泉", "桜"]
    static let other = ["会議", "電車", "天気", "仕事", "映画", "本", "散歩", "コーヒー", "雨", "夕焼け", "週末", "料理", "音楽", "駅", "公園", "海"]

    /// The persona of `seed`, its day starting at `dayStart` in `timeZone`.
    public init(seed: UInt64, dayStart: Date, timeZone: TimeZone) {
        var random = CallRandom(state: seed &* 0x9E37_79B9_7F4A_7C15 &+ 17)
        self.dayStart = dayStart
        self.timeZone = timeZone
        let human = ScriptedWorld.User(id: "100", handle: "hanako")
        let bot = ScriptedWorld.User(id: "200", handle: "hanako_mirror")
        let friends = [ScriptedWorld.User(id: "301", handle: "taro"), .init(id: "302", handle: "jiro"), .init(id: "303", handle: "saburo")]
        let stranger = ScriptedWorld.User(id: "400", handle: "stranger")
        let chatty = ScriptedWorld.User(id: "500", handle: "echo_bot")
        let noBots = ScriptedWorld.User(id: "600", handle: "quiet_one", asksNoBots: true)
        let followed = (1...6).map { ScriptedWorld.User(id: "70\($0)", handle: "neighbour\($0)") }
        let world = ScriptedWorld(human: human, bot: bot, others: friends + [stranger, chatty, noBots] + followed)
        self.world = world
        self.friends = friends
        self.stranger = stranger
        self.chattyBot = chatty
        self.noBots = noBots

        func minuteOfHabit() -> Int {
            // Mornings around 07:30, evenings around 22:00, a little at noon: the person's hours.
            let peak = [450, 450, 720, 1_320, 1_320, 1_380].randomElement(using: &random)!
            return (peak + Int.random(in: -45...45, using: &random) + 1_440) % 1_440
        }
        func words(_ count: Int, liking: Bool) -> [String] {
            (0..<count).map { _ in
                liking && Bool.random(using: &random) ? Self.liked.randomElement(using: &random)! : Self.other.randomElement(using: &random)!
            }
        }
        var history: [ScriptedWorld.Post] = []
        var serial = 0
        // Two months of the person's posts: 0 to 10 a day, quiet days included; some replies, a few with a link or a mention.
        for daysBefore in stride(from: 60, to: 0, by: -1) {
            let count = [0, 2, 4, 5, 6, 8, 10].randomElement(using: &random)!
            for _ in 0..<count {
                serial += 1
                let at = dayStart.addingTimeInterval(Double(-daysBefore * 86_400 + minuteOfHabit() * 60 + Int.random(in: 0..<60, using: &random)))
                let topic = words(2, liking: true)
                var text = "\(topic[0])と\(topic[1])の話 \(serial)"
                var replyTo: ScriptedWorld.User?
                // Replies to friends; to the chatty bot and to their own mirror too (people talk to bots), so that only
                // the loop guard and the own-post guard keep the bot from answering those.
                switch Int.random(in: 0..<22, using: &random) {
                case 0..<3: replyTo = friends.randomElement(using: &random)!
                case 3:
                    // A reply naming a third party: never sent to anyone but that third party.
                    replyTo = friends.randomElement(using: &random)!
                    text += " @\(replyTo == friends[2] ? friends[0].handle : friends[2].handle) も言ってた"
                case 4: replyTo = noBots
                case 5: text += " https://example.com/\(serial)"
                case 6: text = "@\(friends[0].handle) \(text)"
                case 7: replyTo = chatty
                case 8: replyTo = bot
                default: break
                }
                if let replyTo { text = "@\(replyTo.handle) それな、\(text)" }
                history.append(ScriptedWorld.Post(id: world.id(at: at), authorID: human.id, text: text, createdAt: at, replyToUserID: replyTo?.id))
            }
        }
        history.sort { $0.id < $1.id }
        // What the person saw on their timeline before the day, and liked (posts about what they like, mostly).
        var liked: [ScriptedWorld.Post] = []
        var seen: [ScriptedWorld.Post] = []
        for index in 0..<120 {
            let author = followed.randomElement(using: &random)!
            let at = dayStart.addingTimeInterval(Double(-30 * 86_400 + index * 20_000))
            let likes = index % 3 == 0
            let topic = likes ? [Self.liked.randomElement(using: &random)!, Self.other.randomElement(using: &random)!] : words(2, liking: false)
            let post = ScriptedWorld.Post(
                id: world.id(at: at), authorID: author.id, text: "\(topic[0])と\(topic[1]) \(index)", createdAt: at,
                onTimelinesOf: [.human])
            if likes { liked.append(post) } else { seen.append(post) }
        }
        world.add(history + liked + seen)
        for post in liked { world.addPersonsLike(post.id, at: post.createdAt.addingTimeInterval(600)) }
        self.history = history
        self.liked = liked
        self.seen = seen

        // The day.
        var day: [ScriptedWorld.Post] = []
        func at(_ minute: Int, _ second: Int = 0) -> Date { dayStart.addingTimeInterval(Double(minute * 60 + second)) }
        func mention(_ author: ScriptedWorld.User, _ minute: Int, _ text: String, conversation: Int64? = nil, repost: Bool = false)
            -> ScriptedWorld.Post
        {
            let date = at(minute, Int.random(in: 0..<60, using: &random))
            let id = world.id(at: date)
            return ScriptedWorld.Post(
                id: id, authorID: author.id, text: "@\(bot.handle) \(text)", createdAt: date, conversationID: conversation ?? id,
                isRepost: repost, mentionsBot: true)
        }
        // A mention from before the bot's first start: never answered.
        let before = dayStart.addingTimeInterval(-3_600)
        day.append(
            ScriptedWorld.Post(id: world.id(at: before), authorID: friends[0].id, text: "@\(bot.handle) 昨日の話", createdAt: before, mentionsBot: true))
        for friend in friends {
            for _ in 0..<Int.random(in: 2...4, using: &random) { day.append(mention(friend, Int.random(in: 420..<1_380, using: &random), "元気？")) }
        }
        day.append(mention(stranger, Int.random(in: 600..<1_200, using: &random), "はじめまして"))
        day.append(mention(stranger, Int.random(in: 600..<1_200, using: &random), "おーい"))
        day.append(mention(noBots, Int.random(in: 600..<1_200, using: &random), "ひとりごと"))
        // Consent: a friend asks the bot to stop, and so does a followed account (in English); the stranger says the
        // person's word for a pause; the person pauses posting from their account for two to four hours, then resumes.
        let friendStops = mention(friends[2], Int.random(in: 700..<1_000, using: &random), "もうやめて")
        let neighbourStops = mention(followed[0], Int.random(in: 300..<600, using: &random), "Stop, please.")
        let strangerStops = mention(stranger, Int.random(in: 420..<560, using: &random), "停止")
        day += [friendStops, neighbourStops, strangerStops]
        for _ in 0..<2 { day.append(mention(friends[2], Int.random(in: 1_000..<1_380, using: &random), "聞いてる？")) }
        self.optOutMentions = [(friends[2], friendStops.id), (followed[0], neighbourStops.id), (stranger, strangerStops.id)]
        let pauseMinute = Int.random(in: 600..<900, using: &random)
        let pause = mention(human, pauseMinute, "停止")
        let resume = mention(human, pauseMinute + Int.random(in: 120..<240, using: &random), "再開")
        day += [pause, resume]
        (self.pauseMentionID, self.resumeMentionID) = (pause.id, resume.id)
        day.append(mention(bot, Int.random(in: 600..<1_200, using: &random), "自分への言及"))
        day.append(mention(friends[1], Int.random(in: 600..<1_200, using: &random), "拡散", repost: true))
        // A bot that answers everything: a mention every four minutes for an hour and a half, in one conversation.
        let chattyStart = Int.random(in: 480..<1_200, using: &random)
        let first = mention(chatty, chattyStart, "こんにちは")
        day.append(first)
        for step in 1...22 { day.append(mention(chatty, chattyStart + step * 4, "こんにちは \(step)", conversation: first.conversationID)) }
        self.mentionIDs = day.map(\.id)
        // Both home timelines: the followed accounts post about every ten minutes; a few reposts; the person and the bot
        // show there too.
        for slot in stride(from: 0, to: 1_440, by: 10) where Int.random(in: 0..<3, using: &random) > 0 {
            let author = followed.randomElement(using: &random)!
            let date = at(slot, Int.random(in: 0..<60, using: &random))
            let likesIt = Int.random(in: 0..<4, using: &random) == 0
            let topic = likesIt ? [Self.liked.randomElement(using: &random)!, Self.other.randomElement(using: &random)!] : words(2, liking: false)
            var post = ScriptedWorld.Post(
                id: world.id(at: date), authorID: author.id, text: "\(topic[0])と\(topic[1])、\(slot)", createdAt: date,
                isRepost: slot % 170 == 0, onTimelinesOf: [.human, .bot])
            if slot % 250 == 0 { post.authorID = human.id }
            day.append(post)
            if likesIt && !post.isRepost { world.addPersonsLike(post.id, at: date.addingTimeInterval(900)) }
        }
        // The person's new posts during the day.
        for _ in 0..<Int.random(in: 2...5, using: &random) {
            serial += 1
            let date = at(minuteOfHabit())
            let topic = words(2, liking: true)
            day.append(ScriptedWorld.Post(id: world.id(at: date), authorID: human.id, text: "\(topic[0])と\(topic[1])の話 \(serial)", createdAt: date))
        }
        world.add(day)
        // The person deletes a few of their older posts during the day.
        var deletions: [(id: Int64, at: Date)] = []
        let originals = history.filter { $0.replyToUserID == nil }
        for _ in 0..<min(3, originals.count) {
            let post = originals.randomElement(using: &random)!
            let date = at(Int.random(in: 60..<1_380, using: &random))
            world.delete(post.id, at: date)
            deletions.append((post.id, date))
        }
        self.deletions = deletions
    }
}
