import BotCore
import SocialNetwork

/// What the poster and the replier do when the network refuses a post as a duplicate of a recent one, or cannot take
/// its text (longer than it allows): pick another, up to a number of attempts. The one place that rule is written.
enum DuplicateRetry {
    /// How the attempts ended.
    enum Outcome<Pick> {
        /// `send` went through with this pick (or chose to do nothing, as a dry run does).
        case sent(Pick)
        /// Nothing left to pick, once the ones in `refused` were left out.
        case nothingToPick(refused: Set<PostID>)
        /// Every attempt was refused (as a duplicate, or too long).
        case allRefused
    }

    /// Picks (leaving out the ones refused so far, by `sourceID`) and sends, up to `attempts` times while the network
    /// refuses the pick as a duplicate or too long, telling `refused` each time why. Every other error of `send` is
    /// thrown.
    static func send<Pick>(
        attempts: Int, pick: (_ refused: Set<PostID>) async throws -> Pick?, sourceID: (Pick) -> PostID,
        send: (Pick) async throws -> Void, refused: (Pick, _ why: String) -> Void = { _, _ in }
    ) async throws -> Outcome<Pick> {
        var refusedIDs = Set<PostID>()
        for _ in 0..<max(1, attempts) {
            guard let chosen = try await pick(refusedIDs) else { return .nothingToPick(refused: refusedIDs) }
            do {
                try await send(chosen)
                return .sent(chosen)
            } catch NetworkError.duplicate {
                refusedIDs.insert(sourceID(chosen))
                refused(chosen, "as a duplicate")
            } catch NetworkError.unpostable(let why) {
                refusedIDs.insert(sourceID(chosen))
                refused(chosen, why)
            }
        }
        return .allRefused
    }
}
