import BotClock
import BotConfiguration
import FakeX
import Foundation
import Logging
import Picking
import Stores
import TestSupport
import Testing
import XAPI
import XNetwork

@testable import Daemon

/// The bot's pollers against errors that repeat: backing off from the very first round, and not asking again what X
/// refused for good until the refusal's hourly recheck. Each case runs the replier (a poll every 60 s) on a manual
/// clock and counts the requests fake X received.
@Suite("Polling when X keeps failing or refusing", .serialized)
struct PollingRefusalTests {
    static let start = Date(timeIntervalSince1970: 1_717_945_200)
    static let bot = AccountCredentials(consumerKey: "bk", consumerSecret: "bs", accessToken: "200-t", accessTokenSecret: "bts")

    /// Runs the replier against a fake X prepared by `prepare`, hands `body` the clock, the server and the log lines.
    static func withReplier(
        budget: Double? = nil, spentEarlier: Double = 0, _ prepare: (FakeXServer) async -> Void,
        _ body: (ManualBotClock, FakeXServer, LogRecorder) async throws -> Void
    ) async throws {
        let seed = FakeXSeed(
            now: start, users: [.init(id: "200", username: "mirror_bot"), .init(id: "300", username: "friend")],
            accounts: [.init(userID: "200", consumerKey: "bk", consumerSecret: "bs", accessToken: "200-t", accessTokenSecret: "bts")])
        let server = FakeXServer(seed: seed, logger: Logger(label: "polling", factory: { _ in SwiftLogNoOpLogHandler() }))
        await prepare(server)
        try await server.withRunning { url in
            try await TestServers.withIsolatedDatabase(.sqlite) { database async throws in
                let clock = ManualBotClock(now: start)
                let recorder = LogRecorder()
                // One attempt a call: the client's own retries have their tests; here every round is one request.
                let meter = UsageMeter()
                meter.setSpentElsewhere(spentEarlier, onBillingDay: UsageMeter.billingDay(of: start))
                let client = XClient(
                    configuration: .init(baseURL: url, credentials: [.bot: bot], retry: .init(maxAttempts: 1)), clock: clock,
                    usage: meter, budget: budget.map { DailyBudget(limit: $0, meter: meter, logger: recorder.logger()) },
                    logger: recorder.logger())
                let state = database.state
                try await state.setValue("0", of: Replier.sinceIDKey)
                let replier = Replier(
                    clock: clock, mentions: database.mentions, state: state,
                    picker: ReplyPicker(
                        archive: database.archive(timeZone: .gmt, rowLimit: 10),
                        fallback: .none),
                    network: XMirrorNetwork(client: client), botUserID: "200", settings: .init(pollInterval: 60, delay: 0...0),
                    logger: recorder.logger(), seed: 1)
                let running = Task { try await replier.run() }
                do {
                    try await body(clock, server, recorder)
                } catch {
                    running.cancel()
                    throw error
                }
                running.cancel()
                _ = try? await running.value
            }
        }
    }

    /// Waits for the replier's next sleep and returns how long it asked for.
    static func nextWait(_ clock: ManualBotClock) async throws -> Duration? {
        try await clock.waitForSleepers()
        return clock.sleepRequests.last
    }

    static func mentionReads(_ server: FakeXServer) async -> Int { await server.requestCounts()[GetMentions.name] ?? 0 }

    @Test("503s from the very first round: it waits 60, 120, 240 s (not zero), and back to 60 s once X answers")
    func backsOffFromTheFirstRound() async throws {
        try await Self.withReplier({ await $0.add(fault: FakeXFault(kind: .serviceUnavailable, count: 3, endpoint: GetMentions.name)) }) {
            clock, server, recorder in
            var waits: [Duration] = []
            for _ in 0..<4 {
                waits.append(try #require(try await Self.nextWait(clock)))
                clock.advanceToNextSleeper()
            }
            #expect(waits == [.seconds(60), .seconds(120), .seconds(240), .seconds(60)])
            #expect(await Self.mentionReads(server) == 4)
            #expect(recorder.lines(containing: "Replier could not reach X").count == 3)
        }
    }

    enum Refusal: String, CaseIterable, Sendable {
        case revokedToken = "401, a revoked token"
        case forbidden = "403, not permitted"
        case creditsSpent = "402, credits spent"
        case usageCapped = "429, usage cap spent"
    }

    @Test(
        "A refusal stops the calls with one log line and is checked once an hour: 3 requests in 2 hours, not 120",
        arguments: Refusal.allCases)
    func refusalsAreCheckedHourly(_ refusal: Refusal) async throws {
        try await Self.withReplier({ server in
            switch refusal {
            case .revokedToken: await server.revoke(accessToken: "200-t")
            case .forbidden: await server.add(fault: FakeXFault(kind: .forbidden, count: 1_000, endpoint: GetMentions.name))
            case .creditsSpent: await server.setCredits(0)
            case .usageCapped: await server.add(fault: FakeXFault(kind: .usageCapped, count: 1_000))
            }
        }) { clock, server, recorder in
            for hour in 0..<2 {
                let wait1 = try await Self.nextWait(clock)
                #expect(wait1 == .seconds(3_600), "hour \(hour)")
                #expect(await Self.mentionReads(server) == hour + 1)
                clock.advanceToNextSleeper()
            }
            let wait2 = try await Self.nextWait(clock)
            #expect(wait2 == .seconds(3_600))
            #expect(await Self.mentionReads(server) == 3)
            let lines = recorder.lines(containing: "X refused")
            #expect(lines.count == 1, "\(recorder.lines)")
            #expect(recorder.lines(containing: "could not reach X").isEmpty)
        }
    }

    @Test("When X accepts again at the hourly check, polling goes back to every 60 s and the log says so")
    func recovers() async throws {
        try await Self.withReplier({ await $0.setCredits(0) }) { clock, server, recorder in
            let wait3 = try await Self.nextWait(clock)
            #expect(wait3 == .seconds(3_600))
            await server.setCredits(nil)
            clock.advanceToNextSleeper()
            let wait4 = try await Self.nextWait(clock)
            #expect(wait4 == .seconds(60))
            #expect(await Self.mentionReads(server) == 2)
            #expect(recorder.lines(containing: "X accepts every call as the bot again").count == 1)
        }
    }

    @Test("When replies' share of the day's budget is spent the mention poll asks X nothing, logged once; at 00:00 UTC it resumes")
    func budgetShedsAndResumes() async throws {
        // $0.90 of a $1.00 budget spent earlier today (15:00 UTC): replies stop at 90%.
        try await Self.withReplier(budget: 1.0, spentEarlier: 0.9, { _ in }) { clock, server, recorder in
            for _ in 0..<30 {
                let wait5 = try await Self.nextWait(clock)
                #expect(wait5 == .seconds(60))
                clock.advanceToNextSleeper()
            }
            #expect(await Self.mentionReads(server) == 0)
            #expect(
                recorder.lines(containing: "budget: replies stopped for the rest of the UTC day 2024-06-09: $0.900 of X_DAILY_BUDGET $1.00 spent")
                    .count == 1,
                "\(recorder.lines)")
            // Past midnight UTC the spend starts from zero: the poll reads again, and the log says so once.
            _ = try await Self.nextWait(clock)
            clock.advance(to: Date(timeIntervalSince1970: 1_717_977_601))  // 2024-06-10 00:00:01 UTC
            let wait6 = try await Self.nextWait(clock)
            #expect(wait6 == .seconds(60))
            #expect(await Self.mentionReads(server) == 1)
            #expect(recorder.lines(containing: "budget: a new UTC day (2024-06-10); resuming replies").count == 1)
        }
    }
}
