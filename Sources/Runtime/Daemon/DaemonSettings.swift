public import BotCore
public import Consent
public import Foundation
public import Training

/// What `mirror_bot start` is told, as the daemon's own section of the configuration (the composition root fills it
/// from the environment): the person's zone, what may be posted and answered, how often each source is read, the
/// limits that stop loops, and how likes are decided.
public struct DaemonSettings: Sendable {
    /// The person's time zone (`TZ`), in which minutes of the day and calendar days are counted.
    public var timeZone: TimeZone
    /// Most posts the schedule plans for a day (`MAX_POSTS_PER_DAY`).
    public var maxPostsPerDay: Int
    /// Days before the bot may post the same post of the person again (`REPOST_AFTER_DAYS`).
    public var repostAfterDays: Int
    /// Whether posts that @-mention people may be copied (`POST_MENTIONS`).
    public var postMentions: Bool
    /// Whether posts and replies with a link may be copied (`POST_LINKS`, whose default is the network's).
    public var postLinks: Bool
    /// What to answer someone the person never replied to (`REPLY_FALLBACK`).
    public var replyFallback: ReplyFallback
    /// Whether the bot likes (`LIKES`).
    public var likes: LikesSetting
    /// Whether the person's original is looked up before its copy is posted (`CHECK_ORIGINALS`).
    public var checksOriginals: Bool
    /// A slot missed by more than this while the bot was down is skipped (`MISSED_SLOT_GRACE`).
    public var missedSlotGrace: TimeInterval
    /// Answers to one person per hour (`REPLY_LIMIT_PER_USER`).
    public var replyLimitPerUser: Int
    /// Answers in one conversation (`MAX_THREAD_REPLIES`).
    public var maxThreadReplies: Int
    /// Time between reads of the bot's mentions (`MENTIONS_POLL_SECONDS`).
    public var mentionsPoll: TimeInterval
    /// Time between reads of the bot's home timeline (`TIMELINE_POLL_SECONDS`).
    public var timelinePoll: TimeInterval
    /// Time between reads of the person's new posts, timeline and likes (`LEARN_POLL_SECONDS`).
    public var learnPoll: TimeInterval
    /// How likes are decided (`FAVORITE_RATE_THRESHOLD`, `CLASSIFIER`).
    public var likeDecision: LikeSettings
    /// The words in a mention that put its author on the opt-out list (`OPT_OUT_WORDS`).
    public var optOutWords: WordList
    /// Words never posted or answered with (`BLOCKED_WORDS`).
    public var blockedWords: WordList
    /// Accounts never answered or liked (`BLOCKED_ACCOUNTS`).
    public var blockedAccounts: AccountSet
    /// Copies of the person's posts or remixes of them (`POST_STYLE`, whose default is the network's).
    public var postStyle: PostStyle
    /// The remix chain's order (`REMIX_ORDER`).
    public var remixOrder: Int
    /// The largest share of a remix one run shared with one post may cover (`REMIX_MAX_OVERLAP`).
    public var remixMaxOverlap: Double

    /// Settings; the defaults are the documented ones.
    public init(
        timeZone: TimeZone = TimeZone(identifier: "UTC")!, maxPostsPerDay: Int = 50, repostAfterDays: Int = 30, postMentions: Bool = false,
        postLinks: Bool = false, replyFallback: ReplyFallback = .none, likes: LikesSetting = .auto, checksOriginals: Bool = true,
        missedSlotGrace: TimeInterval = 600, replyLimitPerUser: Int = 3, maxThreadReplies: Int = 5, mentionsPoll: TimeInterval = 60,
        timelinePoll: TimeInterval = 300, learnPoll: TimeInterval = 900, likeDecision: LikeSettings = LikeSettings(),
        optOutWords: WordList = WordList(OptOutRequest.defaultWords), blockedWords: WordList = WordList([]),
        blockedAccounts: AccountSet = AccountSet(), postStyle: PostStyle = .copy, remixOrder: Int = 2, remixMaxOverlap: Double = 0.6
    ) {
        self.timeZone = timeZone
        self.maxPostsPerDay = maxPostsPerDay
        self.repostAfterDays = repostAfterDays
        self.postMentions = postMentions
        self.postLinks = postLinks
        self.replyFallback = replyFallback
        self.likes = likes
        self.checksOriginals = checksOriginals
        self.missedSlotGrace = missedSlotGrace
        self.replyLimitPerUser = replyLimitPerUser
        self.maxThreadReplies = maxThreadReplies
        self.mentionsPoll = mentionsPoll
        self.timelinePoll = timelinePoll
        self.learnPoll = learnPoll
        self.likeDecision = likeDecision
        self.optOutWords = optOutWords
        self.blockedWords = blockedWords
        self.blockedAccounts = blockedAccounts
        self.postStyle = postStyle
        self.remixOrder = remixOrder
        self.remixMaxOverlap = remixMaxOverlap
    }
}
