public import BotClock
import BotCore
public import Consent
public import Foundation
public import Logging
public import Picking
import Schedule
public import ServiceLifecycle
public import SocialNetwork
public import Stores

/// Answers mentions of the bot like the human: with a reply the human once sent to that same person.
///
/// It polls the bot's mentions with a stored `since_id`, so it reads only what is new; where the network pushes
/// mentions (Mastodon's streaming), it listens instead and polls only to catch up when the stream was down. On its very first start it
/// records the newest mention and answers nothing older (the original's "don't talk to anyone initially"). It
/// never answers the bot's own posts or reposts, answers one person at most `limitPerUserPerHour` times an hour
/// and a conversation at most `maxThreadReplies` times, so two bots cannot talk forever, and waits a random
/// 5–60 seconds before answering, as a person would. Each mention is handled once, across restarts.
///
/// Consent: nobody on the opt-out list or in `BLOCKED_ACCOUNTS` is answered; a mention asking the bot to stop
/// (`OPT_OUT_WORDS`) or from a profile saying `#nobot` puts its author on the list, and is not answered either. Mentions
/// from the person's own account (`humanUserID`, by id) that are commands (`OwnerCommand`) pause or resume the bot or
/// forget a post, confirmed with one reply; while everything is paused nothing else is answered.
public struct Replier: Service {
    /// How the replier behaves.
    public struct Settings: Sendable {
        /// Time between polls of the mentions.
        public var pollInterval: TimeInterval
        /// Answers to one person per hour (`REPLY_LIMIT_PER_USER`, default 3).
        public var limitPerUserPerHour: Int
        /// Answers in one conversation (`MAX_THREAD_REPLIES`, default 5).
        public var maxThreadReplies: Int
        /// The pause before answering, in seconds.
        public var delay: ClosedRange<Double>
        /// Log what would be answered without answering (`--dry-run`).
        public var dryRun: Bool

        /// Settings. Polling every 60 s uses 15 of the 300 mention reads X allows per 15 minutes.
        public init(
            pollInterval: TimeInterval = 60, limitPerUserPerHour: Int = 3, maxThreadReplies: Int = 5,
            delay: ClosedRange<Double> = 5...60, dryRun: Bool = false
        ) {
            self.pollInterval = pollInterval
            self.limitPerUserPerHour = limitPerUserPerHour
            self.maxThreadReplies = maxThreadReplies
            self.delay = delay
            self.dryRun = dryRun
        }
    }

    static let sinceIDKey = "mentions.since_id"

    let clock: any BotClock
    let mentions: any MentionLog
    let state: any BotState
    let picker: ReplyPicker
    let network: any MirrorNetwork
    let botUserID: String
    let settings: Settings
    let logger: Logger
    let seed: UInt64?
    let contact: ContactRules
    let owner: OwnerCommands?

    /// A replier for the bot `botUserID`; `owner` (nil: no commands) takes the person's commands, `contact` says whom
    /// not to answer.
    public init(
        clock: any BotClock, mentions: any MentionLog, state: any BotState, picker: ReplyPicker, network: any MirrorNetwork, botUserID: String,
        settings: Settings = Settings(), contact: ContactRules? = nil, owner: OwnerCommands? = nil, logger: Logger, seed: UInt64? = nil
    ) {
        self.clock = clock
        self.mentions = mentions
        self.state = state
        self.picker = picker
        self.network = network
        self.botUserID = botUserID
        self.settings = settings
        self.logger = logger
        self.seed = seed
        self.contact = contact ?? ContactRules(state: state)
        self.owner = owner
    }

    /// Polls and answers until cancelled or the group's graceful shutdown; an answer in flight is finished.
    public func run() async throws {
        var fresh = SplitMix64()
        let base = seed ?? fresh.next()
        let stream = network.capabilities.streamsMentions ? MentionStreamState() : nil
        try await PollingLoop.run("Replier", on: network.name, clock: clock, logger: logger, interval: .seconds(settings.pollInterval)) { number in
            if number == 0 { try await recoverInterrupted() }
            var generator = SplitMix64(seed: base &+ UInt64(number))
            if let stream { return try await streamRound(stream, using: &generator) }
            try await pollOnce(using: &generator)
            return .seconds(settings.pollInterval)
        }
    }

    /// Settles the answers the last run left mid-send (a crash, a SIGKILL): the network is asked whether each was made
    /// (one read of the bot's newest posts, looking for an answer to that mention). Made, it is recorded as replied;
    /// not made, the mention is left pending, answered when read again if still fresh; the read failing, it is skipped.
    /// Never answered twice.
    func recoverInterrupted() async throws {
        for mentionID in try await mentions.interrupted() {
            let made: String?
            do {
                // When it was sent is not kept: among the bot's newest posts.
                made = try await UncertainCreate.readBack(
                    nil, inReplyTo: mentionID.text, sentSince: nil, on: network, for: .replies, clock: clock, logger: logger,
                    what: "the answer to \(mentionID) interrupted last run")
            } catch let error as NetworkError {
                try await mentions.finish(mentionID: mentionID, state: .skipped, reason: MentionState.interruptedReason)
                logger.notice("answer to \(mentionID) interrupted last run, and reading back failed (\(error)); not sent again")
                continue
            }
            if let made {
                try await mentions.finish(
                    mentionID: mentionID, state: .replied, replyPostID: PostID(made),
                    reason: "interrupted last run; \(network.name) shows the answer was made")
                logger.notice("answer to \(mentionID) interrupted last run; \(network.name) shows it was made: \(made)")
            } else {
                try await mentions.finish(
                    mentionID: mentionID, state: .pending,
                    reason: "interrupted last run before the answer was made; answered if still fresh")
                logger.notice("answer to \(mentionID) interrupted last run; \(network.name) shows it was not made: pending, answered if still fresh")
            }
        }
    }

    /// One poll: reads the mentions newer than the stored `since_id` and answers them, oldest first.
    func pollOnce(using generator: inout SplitMix64) async throws {
        let cursor = SinceCursor(state: state, key: Self.sinceIDKey)
        guard case .after(let sinceID) = try await cursor.position() else {
            // First start: remember where mentions stand now and answer nothing older.
            let newest = try await cursor.start(at: network.mentions(of: botUserID, since: nil, perPage: 5, for: .replies))
            logger.info("first start: mentions up to \(newest) are not answered; answering from now on")
            return
        }
        var mentions: [NetworkPost] = []
        for try await page in network.mentions(of: botUserID, since: sinceID, perPage: 100, for: .replies) { mentions += page.posts }
        for mention in SinceCursor.oldestFirst(mentions) { try await answer(mention, cursor: cursor, seed: generator.next()) }
    }

    /// Answers `mention` (or records why not), then stores that the mentions up to it are handled. A shutdown during
    /// the pause before answering leaves the mention pending and the cursor where it was (the next start answers it
    /// while fresh); once sending, the answer is finished and recorded whatever arrives meanwhile.
    func answer(_ mention: NetworkPost, cursor: SinceCursor, seed: UInt64) async throws {
        try await handle(mention, seed: seed)
        try await cursor.advance(to: mention.positionInList)
    }

    /// How old a mention left pending by a stop may be and still be answered after the restart (bot time).
    static let pendingFreshness: TimeInterval = 600

    /// Answers one mention, or records why not.
    func handle(_ mention: NetworkPost, seed: UInt64) async throws {
        let mentionID = PostID(mention.id)
        guard let authorText = mention.authorID else { return try await recordWithoutAuthor(mention) }
        let authorID = AccountID(authorText)
        // Mentions are read without their authors' handles (on X each would be a billed user read): the handle comes
        // from the human's past replies to them, else the log names the id.
        var handle = mention.authorHandle
        if handle == nil, authorText != botUserID { handle = try await picker.handle(ofUser: authorID) }
        let who = handle.map { "@" + $0 } ?? "user \(authorText)"
        if authorText == botUserID || mention.isRepost {
            logger.debug("no reply to \(mention.id): \(authorText == botUserID ? "the bot's own post" : "a repost")")
            return
        }
        let conversationID = mention.conversationID.map { PostID($0) }
        if let owner, authorText == owner.humanUserID, let command = OwnerCommand.parse(ReplyPicker.removingLeadingMentions(mention.text)) {
            guard try await mentions.begin(mentionID: mentionID, authorID: authorID, conversationID: conversationID, at: clock.now()) else { return }
            return try await owner.obey(
                command, mention: mention, mentionID: mentionID, on: network, mentions: mentions, clock: clock, logger: logger)
        }
        // Whom not to answer is read before the mention is claimed: between the claim and the answer on the network
        // nothing waits but the pause (the hourly limit counts claims).
        let refusal = try await consentRefusal(of: mention, authorID: authorID, handle: handle, who: who)
        let wasPending = try await mentions.outcome(of: mentionID)?.state == .pending
        guard try await mentions.begin(mentionID: mentionID, authorID: authorID, conversationID: conversationID, at: clock.now()) else { return }
        func skip(_ reason: String) async throws {
            try await mentions.finish(mentionID: mentionID, state: .skipped, reason: reason)
            logger.info("no reply to \(who) (\(mention.id)): \(reason)")
            DaemonMetrics.notReplied(reason: reason)
        }
        if wasPending, let createdAt = mention.createdAt, clock.now().timeIntervalSince(createdAt) > Self.pendingFreshness {
            return try await skip(
                "the bot stopped during its pause before answering, and the mention is now "
                    + "\(Int(clock.now().timeIntervalSince(createdAt) / 60)) minutes old (a pending answer goes out within \(Int(Self.pendingFreshness / 60)))"
            )
        }
        let sending = Sending()
        do {
            if let refusal { return try await skip(refusal) }
            try await answer(
                mention, mentionID: mentionID, authorID: authorID, conversationID: conversationID, handle: handle, who: who,
                seed: seed, sending: sending, skip: skip)
        } catch  where Task.isCancelled && !sending.started {
            // Stopped before anything was sent: pending, for the next start (written whatever the cancellation).
            try await DetachedWork.start {
                try await mentions.finish(
                    mentionID: mentionID, state: .pending, reason: "the bot stopped during its pause before answering; nothing was sent")
            }.value
            logger.info("answer to \(who) (\(mention.id)) left pending: the bot is stopping; answered after a restart if still fresh")
            throw CancellationError()
        }
    }

    /// Records a mention whose author the network did not name as skipped, saying so: it cannot be answered (no
    /// one to answer, no limits to count), and is never read as new again.
    private func recordWithoutAuthor(_ mention: NetworkPost) async throws {
        let reason = "\(network.name) did not say who wrote it, so it cannot be answered"
        let mentionID = PostID(mention.id)
        let conversationID = mention.conversationID.map { PostID($0) }
        guard try await mentions.begin(mentionID: mentionID, authorID: "", conversationID: conversationID, at: clock.now()) else { return }
        try await mentions.finish(mentionID: mentionID, state: .skipped, reason: reason)
        logger.notice("no reply to \(mention.id): \(reason)")
        DaemonMetrics.notReplied(reason: reason)
    }

    /// Whether the answer's sending began (from then on it is finished, not cancelled).
    final class Sending: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        /// Began.
        var started: Bool { lock.withLock { value } }
        /// Marks it begun.
        func start() { lock.withLock { value = true } }
    }

    /// Why `mention` is not to be answered for consent's sake, nil when it may be: its author is blocked or opted out,
    /// asks for an opt-out now (`#nobot` in their profile, one of `OPT_OUT_WORDS`: put on the list), or the person
    /// paused everything.
    private func consentRefusal(of mention: NetworkPost, authorID: AccountID, handle: String?, who: String) async throws -> String? {
        let authorText = authorID.text
        if let refusal = try await contact.refusal(id: authorText, handle: handle) { return refusal }
        // An opt-out an older release kept under the id it gave the account.
        for former in network.formerAccountIDs(of: authorText) {
            if let refusal = try await contact.refusal(id: former, handle: nil) { return refusal }
        }
        if mention.authorAsksNoBots {
            try await contact.optOuts.add(OptOut(accountID: authorText, handle: handle, reason: "#nobot in their profile", at: clock.now()))
            logger.notice("\(who) is on the opt-out list: their profile says #nobot; never answered or liked")
            return "their profile says #nobot (on the opt-out list now)"
        }
        if authorText != owner?.humanUserID, let word = contact.request.match(ReplyPicker.removingLeadingMentions(mention.text)) {
            try await contact.optOuts.add(
                OptOut(
                    accountID: authorText, handle: handle, reason: "asked the bot to stop (\"\(word)\", mention \(mention.id))",
                    at: clock.now()))
            logger.notice("\(who) asked the bot to stop (\"\(word)\"): on the opt-out list, never answered or liked again; not answered")
            return "asked the bot to stop (\"\(word)\"): on the opt-out list now, and not answered"
        }
        if let paused = try await owner?.control.current(), paused.pause == .ended {
            return "the person ended the mirror at \(paused.since.formatted(.iso8601)): nobody is answered until they sign in again"
        }
        if let paused = try await owner?.control.current(), paused.pause == .signInLapsed {
            return "the person's sign-in lapsed at \(paused.since.formatted(.iso8601)): nobody is answered until they sign in again"
        }
        if let paused = try await owner?.control.current(), paused.pause == .everything {
            return
                "the person paused everything at \(paused.since.formatted(.iso8601)) (a mention of the bot from their account; \"resume\" or 「再開」 ends it)"
        }
        return nil
    }

    /// The answer itself, after the mention is claimed: the limits, the pick, the pause, the send.
    private func answer(
        _ mention: NetworkPost, mentionID: PostID, authorID: AccountID, conversationID: PostID?, handle: String?, who: String, seed: UInt64,
        sending: Sending, skip: (String) async throws -> Void
    ) async throws {
        // The row just begun counts itself; the limits compare the answers before it. A row's time is when its
        // mention was taken up, and its answer goes out up to the longest pause later: counting that much further
        // back keeps any hour of answers as they reach the network within the limit.
        let window = 3_600 + settings.delay.upperBound
        if try await mentions.answers(to: authorID, since: clock.now().addingTimeInterval(-window)) - 1 >= settings.limitPerUserPerHour {
            return try await skip("already answered \(who) \(settings.limitPerUserPerHour) times in the last hour")
        }
        if let conversationID, try await mentions.answers(inConversation: conversationID) - 1 >= settings.maxThreadReplies {
            return try await skip("already answered \(settings.maxThreadReplies) times in this conversation")
        }
        var generator = SplitMix64(seed: seed)
        var paused = false
        // What the network would refuse as a repeat: the past replies already sent within its window.
        var repeats: Set<PostID> = []
        if let window = network.capabilities.refusesRepeatsWithin {
            repeats = try await mentions.answerSources(since: clock.now().addingTimeInterval(-window))
        }
        let outcome: DuplicateRetry.Outcome<ReplyPicker.Pick>
        do {
            outcome = try await DuplicateRetry.send(
                attempts: 3,
                pick: { refused in
                    try await picker.pick(forAuthor: authorID, handle: handle, excluding: refused.union(repeats), using: &generator)
                }, sourceID: \.source.postID,
                send: { pick in
                    let origin = pick.isFallback ? "a past reply of the human to someone else" : "a past reply of the human to \(who)"
                    if settings.dryRun { return try await skip("dry run: would have answered with \(origin): \(pick.text)") }
                    if !paused {
                        try await clock.sleep(for: .milliseconds(Int64(Double.random(in: settings.delay, using: &generator) * 1000)))
                        paused = true
                    }
                    // From here the answer is sent and recorded in a task of its own: a shutdown arriving now lets it
                    // finish (within the shutdown's grace).
                    sending.start()
                    let (network, mentions, logger, sentAt) = (network, mentions, logger, clock.now())
                    try await InFlight.finish {
                        let created = try await UncertainCreate.send(
                            pick.text, inReplyTo: mention.id, sentAt: sentAt, on: network, for: .replies, clock: clock, logger: logger,
                            what: "the answer to \(who) (\(mention.id))"
                        ) {
                            try await network.reply(pick.text, warning: pick.source.contentWarning, to: mention.id, for: .replies)
                        }
                        try await mentions.finish(
                            mentionID: mentionID, state: .replied, replyPostID: created.map { PostID($0) },
                            sourcePostID: pick.source.postID, reason: origin)
                        logger.info("replied to \(who) (\(mention.id)) -> post \(created ?? "?") (\(origin))")
                        DaemonMetrics.replied()
                    }
                })
        } catch let error as NetworkError {
            return try await skip(error.description)
        }
        switch outcome {
        case .sent: return
        case .nothingToPick(let refused):
            try await skip(try await picker.reasonForNoPick(forAuthor: authorID, excluding: refused, repeats: repeats))
        case .allRefused: try await skip("\(network.name) refused 3 past replies (duplicates, or too long)")
        }
    }
}
