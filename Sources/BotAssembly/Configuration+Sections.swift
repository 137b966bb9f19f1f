public import BotConfiguration
import Classifier
public import Daemon
import Foundation
public import Training

// The sections of the configuration each part receives: the composition root reads the environment once and hands
// each module only what is its own.
extension Configuration {
    /// How likes are decided (`FAVORITE_RATE_THRESHOLD`, `CLASSIFIER`).
    public var likeSettings: LikeSettings {
        let models: [ClassifierModel] = switch classifier {
        case .auto: [.original, .binary]
        case .original: [.original]
        case .binary: [.binary]
        }
        return LikeSettings(threshold: favoriteRateThreshold, calibrates: calibratesFavoriteThreshold, models: models)
    }

    /// What the daemon is told.
    public var daemonSettings: DaemonSettings {
        DaemonSettings(timeZone: timeZone, maxPostsPerDay: maxPostsPerDay, repostAfterDays: repostAfterDays, postMentions: postMentions,
                       postLinks: postLinks, replyFallback: replyFallback, likes: likes, checksOriginals: checksOriginals,
                       missedSlotGrace: Double(missedSlotGraceMinutes * 60), replyLimitPerUser: replyLimitPerUser, maxThreadReplies: maxThreadReplies,
                       mentionsPoll: Double(mentionsPollSeconds), timelinePoll: Double(timelinePollSeconds), learnPoll: Double(learnPollSeconds),
                       likeDecision: likeSettings)
    }
}
