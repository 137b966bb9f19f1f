import BotClock
import Foundation
import Stores
import TestSupport
import Testing
import WordCounts

@testable import Daemon

/// The daemon's housekeeping: at start and once a day of bot time, what is no longer kept goes, in one log line.
@Suite("The housekeeper", .serialized)
struct HousekeeperTests {
    @Test(
        "An hour after start and again a day later: old records removed, the removal said in one line; nothing said when nothing went",
        arguments: StoreBackends.archives)
    func daily(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withStores(StoreBackends(archive: backend, counts: .sqlite)) { database, counts async throws in
            let start = Date(timeIntervalSince1970: 1_795_273_200)
            let mentions = database.mentions
            _ = try await mentions.begin(mentionID: 1, authorID: 9, conversationID: nil, at: start.addingTimeInterval(-91 * 86_400))
            try await mentions.finish(mentionID: 1, state: .replied, reason: "old")
            _ = try await mentions.begin(mentionID: 2, authorID: 9, conversationID: nil, at: start.addingTimeInterval(-89.5 * 86_400))
            try await mentions.finish(mentionID: 2, state: .replied, reason: "a day younger")
            let clock = ManualBotClock(now: start)
            let log = LogRecorder()
            let housekeeper = Housekeeper(clock: clock, retention: database.retention, policy: .init(), wordCounts: counts, logger: log.logger())
            let running = Task { try await housekeeper.run() }
            defer { running.cancel() }
            try await clock.waitForSleepers()
            #expect(clock.sleepRequests.last == .seconds(3_600) && log.lines.isEmpty, "nothing done at start")
            clock.advance(by: 3_600)
            try await clock.waitForSleepers()
            #expect(log.lines(containing: "housekeeping: removed 1 mention records").count == 1, "\(log.lines)")
            #expect(try await mentions.outcome(of: 1) == nil)
            #expect(clock.sleepRequests.last == .seconds(86_400))
            // A day later the younger one is past 90 days too.
            clock.advance(by: 86_400)
            try await clock.waitForSleepers()
            #expect(try await mentions.outcome(of: 2) == nil)
            #expect(log.lines(containing: "housekeeping: removed").count == 2)
            clock.advance(by: 86_400)
            try await clock.waitForSleepers()
            #expect(log.lines(containing: "housekeeping").count == 2, "nothing removed, nothing said")
            running.cancel()
            _ = try? await running.value
        }
    }
}
