import BotClock
import BotCore
import Foundation
import Logging
import SocialNetwork

/// What the poster and the replier do when a create's answer is lost (a dropped connection, a timeout, a 5xx after
/// sending): the outcome is read back, not guessed. The bot's own newest posts are read (on X, five owned reads,
/// $0.005): the post is there → its id is recorded as made; it is not → it is sent once more (a second lost answer
/// is read back too; not made then, it is thrown as not posted, and the caller records the slot or reply skipped).
/// The one place that rule is written.
enum UncertainCreate {
    /// Sends `text` with `create` (first sent at `sentAt`), resolving a lost answer by reading back the bot's posts
    /// since then (answers to `postID`).
    static func send(
        _ text: String, inReplyTo postID: String?, sentAt: Date, on network: any MirrorNetwork, for work: Work, clock: any BotClock, logger: Logger,
        what: String, _ create: () async throws -> String?
    ) async throws -> String? {
        let firstLoss: String
        do {
            return try await create()
        } catch NetworkError.outcomeUnknown(let why) {
            firstLoss = why
        }
        // Said when it happens: the read-back may wait a while for a network that cannot answer now.
        logger.notice("\(what): the answer was lost (\(firstLoss)); reading back whether it was made")
        let made: String?
        do {
            made = try await readBack(text, inReplyTo: postID, sentSince: sentAt, on: network, for: work, clock: clock, logger: logger, what: what)
        } catch let failure as NetworkError {
            // Not sent again: whether it was made stays unknown, and the reason says both halves.
            throw NetworkError.outcomeUnknown("the answer was lost (\(firstLoss)), and reading back whether it was made failed (\(failure))")
        }
        if let made {
            logger.notice("\(what): \(network.name) shows it was made: \(made)")
            return made
        }
        logger.notice("\(what): \(network.name) shows it was not made: sending it once more")
        do {
            return try await create()
        } catch NetworkError.outcomeUnknown(let why) {
            if let made = try await readBack(
                text, inReplyTo: postID, sentSince: sentAt, on: network, for: work, clock: clock, logger: logger, what: what)
            {
                logger.notice("\(what): the answer was lost again (\(why)); \(network.name) shows it was made: \(made)")
                return made
            }
            throw NetworkError.outcomeUnknown(
                "not posted: the answer was lost twice (\(why)) and \(network.name) shows neither was made; not sent a third time")
        }
    }

    /// How long, on the bot's clock, a read-back waits out a network that cannot answer now (an outage, a refusal
    /// that says when it ends) before the outcome is left unknown: a post made but never read back is a post the store
    /// does not know of (its original's deletion would not reach it).
    static let patience: TimeInterval = 75 * 60
    /// When a refusal that does not say when it ends is asked again: the hour after which pollers check a refusal.
    static let usualRecheck: TimeInterval = 3_600

    /// The bot's post of `text` (any, when nil) answering `postID`, made since `sentSince` (nil: among its newest),
    /// read back from the network. A read that fails is tried again, since without it the outcome stays unknown: at
    /// once twice, then after a wait that doubles from a minute (an outage), or once the refusal is due its check (when
    /// it says, else the usual hour), for at most `patience` on `clock`; a refusal for longer is thrown at once.
    static func readBack(
        _ text: String?, inReplyTo postID: String?, sentSince: Date?, on network: any MirrorNetwork, for work: Work, clock: any BotClock,
        logger: Logger, what: String, patience: TimeInterval = patience
    ) async throws -> String? {
        let giveUpAt = clock.now().addingTimeInterval(patience)
        var backoff: TimeInterval = 60
        for attempt in 1... {
            do {
                return try await network.ownRecentPost(text, inReplyTo: postID, sentSince: sentSince, for: work)
            } catch let failure as NetworkError {
                let next: Date
                switch failure {
                case .unavailable where attempt < 3:
                    next = clock.now()
                case .unavailable:
                    next = clock.now().addingTimeInterval(backoff)
                    backoff = min(backoff * 2, 900)
                case .refused(_, let recheckAt):
                    next = max(recheckAt ?? clock.now().addingTimeInterval(Self.usualRecheck), clock.now()).addingTimeInterval(1)
                default:
                    throw failure
                }
                guard next <= giveUpAt else { throw failure }
                let when = next <= clock.now() ? "again" : "again at \(next.formatted(.iso8601))"
                logger.notice("\(what): reading back the bot's posts failed (\(failure)); reading \(when)")
                try await clock.sleep(until: next)
            }
        }
        return nil
    }
}
