import SocialNetwork

/// What the poster and the replier do when the network refuses a post as a duplicate of a recent one: pick another,
/// up to a number of attempts. The one place that rule is written.
enum DuplicateRetry {
    /// How the attempts ended.
    enum Outcome<Pick> {
        /// `send` went through with this pick (or chose to do nothing, as a dry run does).
        case sent(Pick)
        /// Nothing left to pick, once the ones in `refused` were left out.
        case nothingToPick(refused: Set<Int64>)
        /// Every attempt was refused as a duplicate.
        case allRefused
    }

    /// Picks (leaving out the ones refused so far, by `sourceID`) and sends, up to `attempts` times while the network
    /// refuses as duplicates, telling `refusedAsDuplicate` each time. Every other error of `send` is thrown.
    static func send<Pick>(attempts: Int, pick: (_ refused: Set<Int64>) async throws -> Pick?, sourceID: (Pick) -> Int64,
                           send: (Pick) async throws -> Void, refusedAsDuplicate: (Pick) -> Void = { _ in }) async throws -> Outcome<Pick> {
        var refused = Set<Int64>()
        for _ in 0..<max(1, attempts) {
            guard let chosen = try await pick(refused) else { return .nothingToPick(refused: refused) }
            do {
                try await send(chosen)
                return .sent(chosen)
            } catch NetworkError.duplicate {
                refused.insert(sourceID(chosen))
                refusedAsDuplicate(chosen)
            }
        }
        return .allRefused
    }
}
