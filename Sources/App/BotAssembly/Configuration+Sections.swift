import BotConfiguration
import Classifier
import Consent
public import Daemon
import Foundation
public import Training

// The sections of the configuration each part receives: the composition root reads the environment once and hands
// each module only what is its own.
extension Configuration {
    /// How likes are decided (`FAVORITE_RATE_THRESHOLD`, `CLASSIFIER`).
    public var likeSettings: LikeSettings {
        let models: [ClassifierModel] =
            switch behaviour.classifier {
            case .auto: [.original, .binary]
            case .original: [.original]
            case .binary: [.binary]
            }
        return LikeSettings(threshold: behaviour.favoriteRateThreshold, calibrates: behaviour.calibratesFavoriteThreshold, models: models)
    }

    /// What the daemon is told: its section, with the network's defaults for links and the style of posts.
    public var daemonSettings: DaemonSettings {
        let section = behaviour
        return DaemonSettings(
            timeZone: section.timeZone, maxPostsPerDay: section.maxPostsPerDay, repostAfterDays: section.repostAfterDays,
            postMentions: section.postMentions, postLinks: postLinks, replyFallback: section.replyFallback, likes: section.likes,
            checksOriginals: section.checksOriginals, missedSlotGrace: Double(section.missedSlotGraceMinutes * 60),
            replyLimitPerUser: section.replyLimitPerUser, maxThreadReplies: section.maxThreadReplies,
            mentionsPoll: Double(section.mentionsPollSeconds), timelinePoll: Double(section.timelinePollSeconds),
            learnPoll: Double(section.learnPollSeconds), likeDecision: likeSettings,
            optOutWords: WordList(consent.optOutWords ?? OptOutRequest.defaultWords), blockedWords: WordList(consent.blockedWords),
            blockedAccounts: AccountSet(consent.blockedAccounts, accountID: networkModule.accountID(typed:)), postStyle: postStyle,
            remixOrder: section.remixOrder,
            remixMaxOverlap: section.remixMaxOverlap)
    }
}
