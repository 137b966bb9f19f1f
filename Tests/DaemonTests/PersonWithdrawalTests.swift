import BotClock
import BotCore
import Consent
import Foundation
import Logging
import Picking
import Schedule
import ServiceLifecycle
import SocialNetwork
import Stores
import Synchronization
import TestSupport
import Testing
import WordCounts
import XNetwork

@testable import Daemon

/// The person withdraws: everything stops at once, and everything learned from them goes, in every store.
@Suite("The person's withdrawal", .serialized)
struct PersonWithdrawalTests {
    static let now = Date(timeIntervalSince1970: 1_795_273_200)
    static var quiet: Logger { Logger(label: "withdrawal", factory: { _ in SwiftLogNoOpLogHandler() }) }

    static func consent(at date: Date = now) -> PersonConsent {
        PersonConsent(
            network: "X", personAccount: "100", personHandle: "human", signedInAt: date, how: "mirror_bot auth x --account human",
            botAccount: nil, agreedTo: [.learnPosts, .remixes], credentialDigest: "d")
    }

    /// Puts a row of the person's, or made from them, in every table `PersonRecords` names, word counts, and the state
    /// the end keeps (the consent, an opt-out, a network's refusals) beside state it does not (a cursor, a session).
    static func fill(_ database: any StoreSet, _ counts: any WordCountBackend) async throws {
        let archive = database.archive(timeZone: TimeZone(identifier: "UTC")!, rowLimit: 100)
        try await archive.insert([
            ArchivedPost(postID: 1, text: "ひとりごと", createdAt: now.addingTimeInterval(-86_400)),
            ArchivedPost(postID: 2, text: "@friend それな", replyUserID: 300, createdAt: now.addingTimeInterval(-80_000)),
        ])
        try await archive.recordBotPost(sourcePostID: 1, botPostID: 11, postedAt: now.addingTimeInterval(-3_600))
        _ = try await database.plans.storePlan(day: "2026-11-28", timeZone: "UTC", minutes: [60, 120], drawnAt: now)
        _ = try await database.mentions.begin(mentionID: 5, authorID: 300, conversationID: nil, at: now)
        try await database.mentions.finish(mentionID: 5, state: .replied, reason: "an answer")
        _ = try await database.likes.recordLike(postID: 20, authorID: 300, logRatio: 1, reason: "liked", at: now)
        _ = try await database.likes.recordPersonLikes([PersonLike(postID: 21, likedAt: now, isExact: true)])
        _ = try await database.likes.storeLikePlan(day: "2026-11-28", minutes: [90], drawnAt: now)
        try await database.likes.keepCandidates([
            LikeCandidate(postID: 22, authorID: nil, authorHandle: nil, logRatio: 1, reason: "kept", postedAt: now)
        ])
        try await database.examples.record([
            TrainingExample(postID: "21", text: "すき", author: nil, label: "favorite", source: "likes", learnedAt: now)
        ])
        try await counts.learn(["すき", "ラーメン"], as: .favorite)
        try await counts.markTrained("classifier")
        try await ConsentRecords(state: database.state).keep(consent())
        try await OptOutList(state: database.state).add(OptOut(accountID: "400", handle: "stranger", reason: "asked", at: now))
        try await database.state.setValue("{}", of: "x.refusals")
        try await database.state.setValue("5", of: "human.tweets.since_id")
        try await database.state.setValue("{\"did\":\"did:plc:x\"}", of: "bluesky.session.human")
    }

    @Test(
        "The end of a mirror: consent marked withdrawn, everything paused for good, every table of the person's emptied and every word-count key gone; the consent, opt-outs and refusals kept",
        arguments: StoreBackends.all)
    func forgetsEverything(_ backends: StoreBackends) async throws {
        try await TestServers.withStores(backends) { database, counts in
            try await Self.fill(database, counts)
            let before = try await database.retention.personRecords()
            for table in PersonRecords.tables + [PersonRecords.stateTable] {
                #expect((before[table] ?? 0) > 0, "\(table) holds nothing to forget: \(before)")
            }
            #expect(before[PersonRecords.stateTable] == 2, "the cursor and the session go; the consent, the opt-out and the refusals stay: \(before)")

            let withdrawal = PersonWithdrawal(state: database.state, retention: database.retention, wordCounts: counts, logger: Self.quiet)
            let forgotten = try await withdrawal.end(at: Self.now, how: "the person's words by mention 7")
            #expect(forgotten.rows == before)
            #expect(forgotten.wordCountKeys > 0)
            let after = try await database.retention.personRecords()
            #expect(after.values.allSatisfy { $0 == 0 } && Set(after.keys) == Set(before.keys), "left: \(after)")
            #expect(try await counts.removeAll() == 0, "no word-count key left")
            #expect(try await counts.isTrained("classifier") == false)
            #expect(try await database.archive.count() == 0)

            let consent = try #require(try await ConsentRecords(state: database.state).current())
            #expect(consent.withdrawnAt == Self.now && consent.withdrawal == "the person's words by mention 7" && consent.personAccount == "100")
            #expect(try await OwnerControl(state: database.state).current()?.pause == .ended)
            #expect(try await OptOutList(state: database.state).all().map(\.accountID) == ["400"])
            #expect(try await database.state.value(of: "x.refusals") == "{}")
            // "resume" does not lift the end; only a new sign-in does.
            #expect(try await OwnerControl(state: database.state).resume()?.pause == .ended)
            #expect(try await OwnerControl(state: database.state).ended())
            try await OwnerControl(state: database.state).signedInAgain()
            #expect(try await OwnerControl(state: database.state).current() == nil)
            // Withdrawn once: the first withdrawal is kept.
            #expect(try await ConsentRecords(state: database.state).withdraw(at: Self.now.addingTimeInterval(60), how: "again") == nil)
        }
    }

    @Test(
        "The consent watch, on the virtual clock: a grant that works changes nothing; a network that does not answer is asked again and ends nothing; a revoked grant ends the mirror at the next check, within the interval"
    )
    func watchEndsOnRevocation() async throws {
        try await TestServers.withStores(StoreBackends(archive: .memory, counts: .memory)) { database, counts in
            try await Self.fill(database, counts)
            enum Grant { case works, unreachable, revoked }
            let grant = Mutex(Grant.works)
            let checks = Mutex(0)
            let check = ConsentCheck(every: .seconds(1_800)) {
                checks.withLock { $0 += 1 }
                switch grant.withLock({ $0 }) {
                case .works: return VerifiedPerson(account: "100", handle: "human", credential: "HUMAN_ACCESS_TOKEN")
                case .unreachable: throw NetworkError.unavailable("503 from the fake")
                case .revoked: throw PersonSignInRefused("X refuses the person's tokens (HUMAN_ACCESS_TOKEN): 401")
                }
            }
            let clock = ManualBotClock(now: Self.now)
            let log = LogRecorder()
            let withdrawal = PersonWithdrawal(state: database.state, retention: database.retention, wordCounts: counts, logger: log.logger())
            let watch = ConsentWatch(clock: clock, check: check, withdrawal: withdrawal, networkName: "X", logger: log.logger())
            let group = ServiceGroup(configuration: .init(services: [watch], logger: Self.quiet))
            let running = Task { try await group.run() }
            defer { running.cancel() }
            try await clock.waitForSleepers()
            #expect(checks.withLock { $0 } == 0, "the start verified the consent: the first check is an interval later")
            clock.advance(by: 1_800)
            try await clock.waitForSleepers()
            let afterFirst = try await OwnerControl(state: database.state).current()
            #expect(checks.withLock { $0 } == 1 && afterFirst == nil)

            grant.withLock { $0 = .unreachable }
            clock.advance(by: 1_800)
            try await clock.waitForSleepers()
            let afterOutage = try await OwnerControl(state: database.state).current()
            #expect(checks.withLock { $0 } == 2 && afterOutage == nil, "an outage is no withdrawal")
            #expect(try await ConsentRecords(state: database.state).current()?.isWithdrawn == false)

            // Revoked 10 minutes after that check: the mirror ends at the next one, at most the interval later.
            let revokedAt = clock.now().addingTimeInterval(600)
            grant.withLock { $0 = .revoked }
            clock.advance(to: revokedAt)
            while try await OwnerControl(state: database.state).current() == nil {
                let wake = try #require(clock.advanceToNextSleeper(), "the watch sleeps while the mirror runs")
                #expect(wake.timeIntervalSince(revokedAt) <= 3_600, "no check within the hour after the revocation")
                try await clock.waitForSleepers()
            }
            let ended = try #require(try await ConsentRecords(state: database.state).current())
            let endedAt = try #require(ended.withdrawnAt)
            #expect(endedAt.timeIntervalSince(revokedAt) <= 1_800 + 1, "ended \(endedAt.timeIntervalSince(revokedAt)) s after the revocation")
            #expect(
                ended.withdrawal?.hasPrefix("their grant was revoked: X refuses the person's tokens") == true,
                "\(String(describing: ended.withdrawal))")
            #expect(try await database.archive.count() == 0)
            #expect(try await database.retention.personRecords().values.reduce(0, +) == 0)
            #expect(log.lines(containing: "the person ended the mirror").count == 1, "\(log.lines)")

            // Ended: nothing more is asked of the network; a post in flight at the end, recorded after it, is swept at
            // the next interval.
            let asked = checks.withLock { $0 }
            try await database.archive.recordBotPost(sourcePostID: 1, botPostID: 12, postedAt: clock.now())
            clock.advance(by: 1_800)
            try await clock.waitForSleepers()
            #expect(checks.withLock { $0 } == asked)
            #expect(try await database.retention.personRecords().values.reduce(0, +) == 0, "the late record is swept")
            #expect(log.lines(containing: "swept what was recorded after the end").count == 1, "\(log.lines)")

            // A post in flight as the bot stops, recorded after the last interval's sweep: the watch, which stops after
            // the services that post, sweeps it as it stops.
            try await database.archive.recordBotPost(sourcePostID: 2, botPostID: 13, postedAt: clock.now())
            await group.triggerGracefulShutdown()
            try await running.value
            #expect(try await database.retention.personRecords().values.reduce(0, +) == 0, "the record made as the bot stopped is swept")
            #expect(log.lines(containing: "swept what was recorded after the end").count == 2, "\(log.lines)")
        }
    }

    @Test(
        "A sign-in that lapses by the network's limit on its life is no withdrawal: the mirror pauses everything, keeps all it learned, asks the network nothing more, and the person's \"resume\" does not lift it; their new sign-in does"
    )
    func lapsedSignInPauses() async throws {
        try await TestServers.withStores(StoreBackends(archive: .memory, counts: .memory)) { database, counts in
            try await Self.fill(database, counts)
            let kept = try await database.retention.personRecords().values.reduce(0, +)
            let checks = Mutex(0)
            let check = ConsentCheck(every: .seconds(1_800)) {
                checks.withLock { $0 += 1 }
                throw PersonSignInLapsed("the person's OAuth sign-in on Bluesky lapsed: Refresh token expired")
            }
            let clock = ManualBotClock(now: Self.now)
            let log = LogRecorder()
            let withdrawal = PersonWithdrawal(state: database.state, retention: database.retention, wordCounts: counts, logger: log.logger())
            let watch = ConsentWatch(clock: clock, check: check, withdrawal: withdrawal, networkName: "Bluesky", logger: log.logger())
            let group = ServiceGroup(configuration: .init(services: [watch], logger: Self.quiet))
            let running = Task { try await group.run() }
            defer { running.cancel() }
            try await clock.waitForSleepers()
            clock.advance(by: 1_800)
            try await clock.waitForSleepers()
            let control = OwnerControl(state: database.state)
            let paused = try #require(try await control.current(), "the lapse pauses the mirror")
            #expect(paused.pause == .signInLapsed && paused.pause.stopsEverything && paused.since == Self.now.addingTimeInterval(1_800))
            #expect(try await ConsentRecords(state: database.state).current()?.isWithdrawn == false, "a lapse is not a withdrawal")
            #expect(try await database.retention.personRecords().values.reduce(0, +) == kept, "nothing learned is deleted")
            #expect(log.lines(containing: "Not a withdrawal: nothing learned is deleted").count == 1, "\(log.lines)")

            // Lapsed: the network is not asked again, interval after interval.
            for _ in 0..<3 {
                clock.advance(by: 1_800)
                try await clock.waitForSleepers()
            }
            #expect(checks.withLock { $0 } == 1, "a lapsed sign-in is asked once, not again")
            let resumed = try await control.resume()
            let stillPaused = try await control.current()
            #expect(resumed?.pause == .signInLapsed && stillPaused?.pause == .signInLapsed, "\"resume\" does not lift it")
            try await control.signedInAgain()
            #expect(try await control.current() == nil, "the person's new sign-in lifts it")
            await group.triggerGracefulShutdown()
            try await running.value
        }
    }

    @Test(
        "The person says \"stop mirroring me\" (or 「ミラー終了」) by mention: confirmed once, consent withdrawn, everything learned deleted; a stranger's words end nothing; \"resume\" afterwards is refused",
        arguments: [StoreBackends.ArchiveKind.postgres, .sqlite])
    func endedByMention(_ backend: StoreBackends.ArchiveKind) async throws {
        try await ReplierWorld.with(backend) { world in
            try await TestServers.withStores(StoreBackends(archive: .memory, counts: .sqlite)) { _, counts in
                try await world.state.setValue("0", of: Replier.sinceIDKey)
                try await ConsentRecords(state: world.state).keep(Self.consent(at: ReplierWorld.start))
                try await counts.learn(["すき"], as: .favorite)
                let control = OwnerControl(state: world.state)
                let withdrawal = PersonWithdrawal(
                    state: world.state, retention: world.database.retention, wordCounts: counts, logger: ReplierWorld.quiet)
                let replier = Replier(
                    clock: world.clock, mentions: world.mentions, state: world.state, picker: ReplyPicker(archive: world.archive, fallback: .none),
                    network: XMirrorNetwork(client: world.client), botUserID: "200", settings: .init(delay: 0...0),
                    owner: OwnerCommands(humanUserID: "100", control: control, forgetter: nil, timeZone: .gmt, withdrawal: withdrawal),
                    logger: ReplierWorld.quiet, seed: 7)
                var generator = SplitMix64(seed: 3)
                await world.server.add(tweets: [world.mention(1030, by: "400", "@mirror_bot stop mirroring me")])
                try await replier.pollOnce(using: &generator)
                #expect(try await control.current() == nil, "a stranger ends nothing")
                #expect(try await world.archive.count() == 11)

                await world.server.add(tweets: [world.mention(1031, by: "100", "@mirror_bot ミラー終了")])
                try await replier.pollOnce(using: &generator)
                #expect(try await control.current()?.pause == .ended)
                let consent = try #require(try await ConsentRecords(state: world.state).current())
                #expect(consent.isWithdrawn && consent.withdrawal?.contains("mention 1031") == true, "\(consent.summary)")
                #expect(try await world.archive.count() == 0)
                #expect(try await world.database.retention.personRecords().values.reduce(0, +) == 0)
                #expect(try await counts.removeAll() == 0)
                let confirmation = try #require(await world.server.posted().last)
                #expect(confirmation.inReplyToTweetID == "1031" && confirmation.text.contains("ミラーを終了しました"), "\(confirmation.text)")

                await world.server.add(tweets: [
                    world.mention(1032, by: "100", "@mirror_bot resume"), world.mention(1033, by: "300", "@mirror_bot 元気？"),
                ])
                try await replier.pollOnce(using: &generator)
                #expect(try await control.current()?.pause == .ended, "resume does not lift the end")
                let posted = await world.server.posted()
                #expect(posted.map(\.inReplyToTweetID) == ["1031", "1032"], "only the person's commands are answered: \(posted.map(\.text))")
                #expect(posted.last?.text.contains("only signing in again as yourself starts it") == true)
                #expect(try await world.mentions.outcome(of: 1033)?.reason?.contains("the person ended the mirror") == true)
            }
        }
    }
}
