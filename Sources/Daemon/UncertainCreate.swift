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
    static func send(_ text: String, inReplyTo postID: String?, sentAt: Date, on network: any MirrorNetwork, for work: Work, logger: Logger,
                     what: String, _ create: () async throws -> String?) async throws -> String? {
        let firstLoss: String
        do {
            return try await create()
        } catch NetworkError.outcomeUnknown(let why) {
            firstLoss = why
        }
        let made: String?
        do {
            made = try await readBack(text, inReplyTo: postID, sentSince: sentAt, on: network, for: work, logger: logger, what: what)
        } catch let failure as NetworkError {
            // Not sent again: whether it was made stays unknown, and the reason says both halves.
            throw NetworkError.outcomeUnknown("the answer was lost (\(firstLoss)), and reading back whether it was made failed (\(failure))")
        }
        if let made {
            logger.notice("\(what): the answer was lost (\(firstLoss)); \(network.name) shows it was made: \(made)")
            return made
        }
        logger.notice("\(what): the answer was lost (\(firstLoss)); \(network.name) shows it was not made: sending it once more")
        do {
            return try await create()
        } catch NetworkError.outcomeUnknown(let why) {
            if let made = try await readBack(text, inReplyTo: postID, sentSince: sentAt, on: network, for: work, logger: logger, what: what) {
                logger.notice("\(what): the answer was lost again (\(why)); \(network.name) shows it was made: \(made)")
                return made
            }
            throw NetworkError.outcomeUnknown(
                "not posted: the answer was lost twice (\(why)) and \(network.name) shows neither was made; not sent a third time")
        }
    }

    /// The bot's post of `text` (any, when nil) answering `postID`, made since `sentSince` (nil: among its newest),
    /// read back from the network; a read that fails is tried again (three reads in all), since without it the outcome
    /// stays unknown.
    static func readBack(_ text: String?, inReplyTo postID: String?, sentSince: Date?, on network: any MirrorNetwork, for work: Work, logger: Logger,
                         what: String) async throws -> String? {
        for attempt in 1... {
            do {
                return try await network.ownRecentPost(text, inReplyTo: postID, sentSince: sentSince, for: work)
            } catch NetworkError.unavailable(let why) where attempt < 3 {
                logger.notice("\(what): reading back the bot's posts failed (\(why)); reading again")
            }
        }
        return nil
    }
}
