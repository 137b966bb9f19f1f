public import BotClock
import BotCore
import Foundation
public import SocialNetwork
import Testing

/// A lease that lapsed an hour ago: under it (`WriteDeadline.$current.withValue(lapsedLease)`) every network write is
/// refused before it leaves, and reads go on.
public let lapsedLease = WriteDeadline(clock: SystemBotClock()) { Date().addingTimeInterval(-3_600) }

/// Whether `error` is a network write refused because the process's lease lapsed: unavailable, saying so.
public func isRefusedForTheLease(_ error: any Error) -> Bool {
    guard case NetworkError.unavailable(let why) = error else { return false }
    return why.hasPrefix("not sent: this process's lease on the bot lapsed")
}

/// Posts once as the bot on `network`; then, under `lapsedLease`, expects another post and the deletion of the first
/// refused for the lease, and a read of the first still answered. Returns the first post's id (the caller checks
/// that nothing more reached its server).
@discardableResult
public func expectWritesFencedOffByALapsedLease(on network: any MirrorNetwork) async throws -> String {
    let id = try #require(try await network.post("こんにちは", warning: nil, slot: "slot 2025-11-24 960", for: .posts))
    try await WriteDeadline.$current.withValue(lapsedLease) { () async throws in
        await #expect { try await network.post("こんばんは", warning: nil, slot: "slot 2025-11-24 961", for: .posts) } throws: { isRefusedForTheLease($0) }
        await #expect { try await network.deletePost(id, for: .posts) } throws: { isRefusedForTheLease($0) }
        #expect(try await network.postExists(id, as: .bot, for: .posts))
    }
    return id
}
