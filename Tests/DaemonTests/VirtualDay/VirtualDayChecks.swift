import BotClock
import BotCore
import Consent
import Daemon
import Foundation
import ScriptedNetwork
import Stores

/// What a day must show, whatever its faults and restarts, each a sentence naming what went wrong: every slot posted at
/// its minute exactly (or, due while the bot was down, as its poster began, within the grace), its post made on the
/// network then (later only by the delays its own create met), or skipped saying why;
/// nothing posted or answered twice; the records equal to the network; the loop guard's limits kept; likes only of
/// others' posts, once; the originals of posts that went out unchecked looked up within the hour.
struct VirtualDayChecks {
    let outcome: VirtualDay.Outcome
    var world: ScriptedWorld { outcome.world }
    var persona: ScriptedPersona { outcome.persona }
    var settings: VirtualDay.Outcome { outcome }

    /// Every problem found; none on a good day.
    func problems() async throws -> [String] {
        var problems: [String] = []
        if outcome.stuck { problems.append("the day got stuck: nothing ready, nothing asleep on the clock") }
        problems += try await slots()
        problems += try await nothingTwiceAndRecordsMatch()
        problems += try await loopGuard()
        problems += try await likes()
        problems += try await consent()
        return problems
    }

    /// When `date` is, for messages.
    func time(_ date: Date) -> String {
        let local = LocalTime(of: date, in: VirtualDay.timeZone)
        return "\(local.day) \(local.clockTime):\(String(format: "%02d", Int(date.timeIntervalSince1970) % 60))"
    }

    /// Each slot: posted at its minute exactly while a poster ran, as the next poster began when it came due while the
    /// bot was down (within the grace), skipped saying why otherwise; never left being posted.
    func slots() async throws -> [String] {
        var problems: [String] = []
        let stores = outcome.stores
        let grace = outcome.settings.missedSlotGrace
        for day in [VirtualDay.day, "2026-11-24"] {
            guard let slots = try await stores.plans.slots(of: day) else {
                if day == VirtualDay.day { problems.append("no plan was stored for \(day)") }
                continue
            }
            for slot in slots {
                let due = LocalTime.date(of: slot.minute, on: day, in: VirtualDay.timeZone)!
                let label = "slot \(LocalTime.clockTime(slot.minute)) of \(day)"
                // The run whose poster was going when the slot came due, or the next one to begin.
                let running = outcome.runs.first { $0.posterBegan <= due && due < $0.stoppedAt }
                let next = outcome.runs.first { $0.posterBegan > due }
                switch slot.state {
                case .posted:
                    guard let postedAt = slot.postedAt else {
                        problems.append("\(label) posted without a time")
                        continue
                    }
                    problems += madeInTime(slot, day: day, due: due, startedAt: postedAt, label: label)
                    if running != nil {
                        if postedAt != due {
                            problems.append("\(label) posted at \(time(postedAt)), not at its minute (\(postedAt.timeIntervalSince(due)) s late)")
                        }
                    } else if let next, next.posterBegan.timeIntervalSince(due) <= grace {
                        if postedAt != next.posterBegan && postedAt != due {
                            problems.append(
                                "\(label), due while the bot was down, posted at \(time(postedAt)), not as the poster began at \(time(next.posterBegan))"
                            )
                        }
                    } else {
                        problems.append("\(label) posted at \(time(postedAt)) though no poster ran within the grace of its minute")
                    }
                case .skipped:
                    let reason = slot.reason ?? ""
                    if reason.isEmpty { problems.append("\(label) skipped without a reason") }
                    if running != nil, reason.hasPrefix("missed") { problems.append("\(label) skipped as missed while a poster ran: \(reason)") }
                case .posting:
                    problems.append("\(label) left being posted at the end of the day")
                case .planned:
                    if due < VirtualDay.end.addingTimeInterval(-60) { problems.append("\(label) never handled") }
                }
                if slot.postedUnchecked, let postedAt = slot.postedAt, postedAt < VirtualDay.end.addingTimeInterval(-4_200) {
                    guard let checkedAt = slot.originalCheckedAt else {
                        problems.append("\(label) posted unchecked and never looked up")
                        continue
                    }
                    // Within the hour; or, where the network did not answer look-ups (refused them for a while, failed),
                    // within one pass (10 minutes) of its answering again.
                    let answeredAgain =
                        world.calls.filter { $0.operation == "postExists" && !$0.carriedOut && $0.at < checkedAt }
                        .map { $0.fault == .refused ? $0.at.addingTimeInterval(3_600) : $0.at }.max() ?? .distantPast
                    let deadline = max(postedAt.addingTimeInterval(3_600), answeredAgain.addingTimeInterval(600 + 60))
                    if checkedAt > deadline { problems.append("\(label) posted unchecked, looked up only at \(time(checkedAt))") }
                }
                if slot.state == .posted, !slot.postedUnchecked, let source = slot.sourcePostID,
                    let deletedAt = world.posts[id: source]?.deletedAt, deletedAt < due.addingTimeInterval(-Double(300))
                {
                    problems.append("\(label) posted a copy of \(source), deleted at \(time(deletedAt)), as checked")
                }
            }
        }
        return problems
    }

    /// The lateness that matters, by when the post was made on the network (not when its task began): made the moment
    /// its task began when its create met no fault, and never more than three minutes after when faults delayed it (a
    /// hang of 30 s, a rate limit's wait of up to 90 s, a read back and a second try).
    func madeInTime(_ slot: PlanSlot, day: String, due: Date, startedAt: Date, label: String) -> [String] {
        let purpose = "post:slot \(day) \(slot.minute)"
        guard let id = slot.botPostID, let made = world.posts[id: id]?.createdAt else { return [] }  // the records' check says why
        let faulted = world.calls.contains { $0.key == purpose && $0.fault != nil }
        let late = made.timeIntervalSince(startedAt)
        if late < 0 { return ["\(label) made at \(time(made)), before its post task began at \(time(startedAt))"] }
        if !faulted && late != 0 { return ["\(label) made at \(time(made)), \(late) s after its post task began, though its create met no fault"] }
        if late > 180 { return ["\(label) made at \(time(made)), \(Int(late)) s after its post task began at \(time(startedAt))"] }
        return []
    }

    /// One post per slot and one answer per mention on the network, each the one recorded, and every one recorded.
    func nothingTwiceAndRecordsMatch() async throws -> [String] {
        var problems: [String] = []
        let made = Dictionary(grouping: world.botPosts, by: { $0.madeFor ?? "" })
        for (purpose, posts) in made where posts.count > 1 {
            problems.append("\(purpose) made \(posts.count) times on the network: \(posts.map(\.id))")
        }
        for text in world.repeatsRefused {
            problems.append("asked to post \"\(text)\" again within the network's repeat window: refused as a duplicate")
        }
        // No text twice from the slots, whether or not the network would refuse it (Misskey posts whatever it is sent).
        let slotPosts = world.botPosts.filter { ($0.madeFor ?? "").hasPrefix("post:") }
        for (text, posts) in Dictionary(grouping: slotPosts, by: \.text) where posts.count > 1 {
            problems.append("\"\(text)\" posted \(posts.count) times, for \(posts.compactMap(\.madeFor).sorted().joined(separator: ", "))")
        }
        var recorded: [String: PostID] = [:]
        for day in [VirtualDay.day, "2026-11-24"] {
            for slot in try await outcome.stores.plans.slots(of: day) ?? [] where slot.state == .posted {
                let purpose = "post:slot \(day) \(slot.minute)"
                guard let id = slot.botPostID else {
                    problems.append("\(purpose) recorded posted without its post's id")
                    continue
                }
                recorded[purpose] = id
                guard let post = world.posts[id: id], post.madeFor == purpose else {
                    problems.append("\(purpose) recorded as \(id), which the network does not have for it")
                    continue
                }
                if let source = slot.sourcePostID,
                    let original = persona.history.first(where: { PostID($0.id) == source }) ?? world.posts[id: source],
                    post.text != original.text
                {
                    problems.append("\(purpose) posted \"\(post.text)\", not its original \(source)'s text")
                }
            }
        }
        for mention in try await outcome.stores.mentions.handledMentions() where mention.state == .replied {
            let purpose = "reply:\(mention.mentionPostID)"
            guard let id = mention.replyPostID else {
                problems.append("\(purpose) recorded answered without its answer's id")
                continue
            }
            recorded[purpose] = id
            if world.posts[id: id]?.madeFor != purpose { problems.append("\(purpose) recorded as \(id), which the network does not have for it") }
        }
        for (purpose, posts) in made where recorded[purpose] == nil {
            problems.append("\(purpose) is on the network (\(posts.map(\.id))) but not recorded")
        }
        return problems
    }

    /// Who is answered, and how often: friends within the limits; never the bot itself, a repost, a stranger, someone
    /// whose profile says `#nobot`, or a mention from before the first start.
    func loopGuard() async throws -> [String] {
        var problems: [String] = []
        let handled = try await outcome.stores.mentions.handledMentions()
        let answered = handled.filter { $0.state == .replied }
        let posts = world.posts
        for mention in answered {
            guard let post = posts[id: mention.mentionPostID] else {
                problems.append("answered \(mention.mentionPostID), which is no mention")
                continue
            }
            let who = world.user(post.authorID)?.handle ?? post.authorID
            if post.authorID == world.bot.id { problems.append("answered the bot's own post \(post.id)") }
            if post.isRepost { problems.append("answered the repost \(post.id)") }
            if post.authorID == persona.stranger.id { problems.append("answered the stranger @\(who), whom the person never answered") }
            if post.authorID == persona.noBots.id { problems.append("answered @\(who), whose profile says #nobot") }
            if post.createdAt < VirtualDay.dayStart { problems.append("answered \(post.id), from before the bot's first start") }
        }
        for (author, mentions) in Dictionary(grouping: answered, by: \.authorID) {
            let times = mentions.map(\.handledAt).sorted()
            for (index, time) in times.enumerated() {
                let inHour = times[index...].prefix { $0.timeIntervalSince(time) < 3_600 }.count
                if inHour > outcome.settings.replyLimitPerUser {
                    problems.append("answered user \(author) \(inHour) times within the hour from \(self.time(time))")
                }
            }
        }
        for (conversation, mentions) in Dictionary(grouping: answered, by: { posts[id: $0.mentionPostID]?.conversationID ?? -1 })
        where mentions.count > outcome.settings.maxThreadReplies {
            problems.append("answered \(mentions.count) times in conversation \(conversation)")
        }
        // Every friend's mention of the day is handled: answered, or skipped saying why.
        let handledIDs = Set(handled.filter { $0.state == .replied || $0.state == .skipped }.map(\.mentionPostID))
        for id in persona.mentionIDs {
            guard let post = posts[id], persona.friends.contains(where: { $0.id == post.authorID }), !post.isRepost,
                post.createdAt >= VirtualDay.dayStart, post.createdAt < VirtualDay.end.addingTimeInterval(-600)
            else { continue }
            if !handledIDs.contains(PostID(id)) { problems.append("the friend's mention \(id) of \(time(post.createdAt)) was never handled") }
        }
        for mention in handled where mention.state == .skipped && (mention.reason ?? "").isEmpty {
            problems.append("mention \(mention.mentionPostID) skipped without a reason")
        }
        return problems
    }

    /// Likes: only others' posts, never a repost, each once; the records equal to the network.
    func likes() async throws -> [String] {
        var problems: [String] = []
        let recorded = try await outcome.stores.likes.likes()
        let networkLikes = world.likes
        let posts = world.posts
        for like in recorded {
            guard let post = posts[id: like.postID] else {
                problems.append("liked \(like.postID), which is not on the network")
                continue
            }
            if post.authorID == world.human.id || post.authorID == world.bot.id {
                problems.append("liked \(post.id), a post of the person or the bot")
            }
            if post.isRepost { problems.append("liked the repost \(post.id)") }
        }
        if Set(recorded.map(\.postID)) != Set(networkLikes.keys.map { PostID($0) }) {
            problems.append("likes recorded \(recorded.map(\.postID).sorted()) differ from the network's \(networkLikes.keys.sorted())")
        }
        // Planned as posts are: each like made at a liked slot of its day's plan, at the slot's minute (within the grace, or the wait for a post),
        // never more than the person's busiest day of liking; every skipped slot says why.
        let busiest =
            Dictionary(grouping: try await outcome.stores.likes.personLikes()) { LocalTime(of: $0.likedAt, in: VirtualDay.timeZone).day }
            .values.map(\.count).max() ?? 0
        var planned: Set<PostID> = []
        for day in [VirtualDay.day, "2026-11-24"] {
            let slots = try await outcome.stores.likes.likeSlots(of: day) ?? []
            if slots.count > busiest { problems.append("\(slots.count) likes planned for \(day), more than the person's busiest day (\(busiest))") }
            for slot in slots {
                let due = LocalTime.date(of: slot.minute, on: day, in: VirtualDay.timeZone)!
                if slot.state == .liked, let post = slot.postID {
                    planned.insert(post)
                    // At its minute, or (a slot with nothing kept waits for a post) within the wait after it.
                    let latest = due.addingTimeInterval(max(outcome.settings.missedSlotGrace, Favoriter.Settings().waitForPost))
                    if let at = slot.doneAt, at < due || at > latest {
                        problems.append("like slot \(LocalTime.clockTime(slot.minute)) of \(day) liked at \(time(at))")
                    }
                }
                if slot.state == .skipped && (slot.reason ?? "").isEmpty {
                    problems.append("like slot \(LocalTime.clockTime(slot.minute)) of \(day) skipped without a reason")
                }
            }
        }
        if Set(recorded.map(\.postID)) != planned {
            problems.append("likes \(recorded.map(\.postID).sorted()) are not the liked slots' \(planned.sorted())")
        }
        return problems
    }

    /// Consent: nobody who asked the bot to stop is answered or liked after asking (nor the opt-out itself); the
    /// person's pause holds from when it was read until the resume was read, and only then; no post or answer on the
    /// network mentions anyone but the account answered.
    func consent() async throws -> [String] {
        var problems: [String] = []
        let handled = Dictionary(uniqueKeysWithValues: try await outcome.stores.mentions.handledMentions().map { ($0.mentionPostID, $0) })
        let optOuts = try await OptOutList(state: outcome.stores.state).all()
        let posts = world.posts
        for (author, id) in persona.optOutMentions {
            guard let asked = posts[id], let handledAt = handled[PostID(id)]?.handledAt else {
                if (posts[id]?.createdAt ?? .distantFuture) < VirtualDay.end.addingTimeInterval(-600) {
                    problems.append("the opt-out mention \(id) of @\(author.handle) was never handled")
                }
                continue
            }
            if handled[PostID(id)]?.state == .replied { problems.append("answered @\(author.handle)'s opt-out \(id)") }
            if !optOuts.contains(where: { $0.accountID == author.id }) {
                problems.append("@\(author.handle) asked the bot to stop at \(time(asked.createdAt)) and is not on the opt-out list")
            }
            for mention in handled.values where mention.authorID == AccountID(author.id) && mention.state == .replied && mention.handledAt > handledAt
            {
                problems.append(
                    "answered @\(author.handle) (\(mention.mentionPostID)) at \(time(mention.handledAt)), after they asked the bot to stop")
            }
            for like in try await outcome.stores.likes.likes() where like.authorID == AccountID(author.id) && like.likedAt > handledAt {
                problems.append("liked @\(author.handle)'s \(like.postID) at \(time(like.likedAt)), after they asked the bot to stop")
            }
        }
        if optOuts.contains(where: { $0.accountID == world.human.id }) { problems.append("the person is on the opt-out list") }
        // The pause: from when the command was read to when the resume was read.
        let pausedFrom = handled[PostID(persona.pauseMentionID)]?.handledAt
        let resumedAt = handled[PostID(persona.resumeMentionID)]?.handledAt
        if pausedFrom == nil, let pause = posts[persona.pauseMentionID], pause.createdAt < VirtualDay.end.addingTimeInterval(-600) {
            problems.append("the person's pause of \(time(pause.createdAt)) was never read")
        }
        for day in [VirtualDay.day, "2026-11-24"] {
            for slot in try await outcome.stores.plans.slots(of: day) ?? [] {
                let due = LocalTime.date(of: slot.minute, on: day, in: VirtualDay.timeZone)!
                let label = "slot \(LocalTime.clockTime(slot.minute)) of \(day)"
                let pausedAtDue = pausedFrom.map { $0 <= due && due < (resumedAt ?? .distantFuture) } ?? false
                if slot.state == .posted, let postedAt = slot.postedAt, let pausedFrom, pausedFrom <= postedAt,
                    postedAt < (resumedAt ?? .distantFuture)
                {
                    problems.append("\(label) posted at \(time(postedAt)) while the person had paused posting (from \(time(pausedFrom)))")
                }
                if slot.state == .skipped, (slot.reason ?? "").hasPrefix("paused by the person"), !pausedAtDue {
                    problems.append("\(label) skipped as paused, though no pause of the person's was in force at its minute")
                }
            }
        }
        // Nobody pinged who did not ask.
        for post in world.botPosts {
            // The product's finder and the checks' own: a form one misses, the other finds.
            let names = Set(ArchiveRules.mentionedNames(in: post.text)).union(MentionForms.names(in: post.text)).sorted()
            guard !names.isEmpty else { continue }
            guard let purpose = post.madeFor, purpose.hasPrefix("reply:"), let mentionID = Int64(purpose.dropFirst(6)),
                let mention = posts[mentionID],
                let answered = world.user(mention.authorID)?.handle.lowercased()
            else {
                problems.append("\(post.madeFor ?? "a post") mentions \(names) on the network: \"\(post.text)\"")
                continue
            }
            if names.contains(where: { $0 != answered }) {
                problems.append("the answer to @\(answered) (\(mentionID)) mentions \(names): \"\(post.text)\"")
            }
        }
        return problems
    }
}

extension Dictionary where Key == Int64 {
    /// The scripted world's entry a store's id names (the scripted world numbers its posts, as X does).
    subscript<Kind>(id id: NetworkIdentifier<Kind>) -> Value? { Int64(id.text).flatMap { self[$0] } }
}
