import AsyncHTTPClient
import BlueskyAPI
import BotAssembly
import BotClock
import BotConfiguration
import Consent
import FakeBluesky
import FakeMastodon
import FakeMisskey
import FakeX
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import SocialNetwork
import Stores
import TestSupport
import Testing

/// Nobody is mirrored who has not signed in as themselves, and a mirror ends when they say so: the real binary and
/// the real clients against each network's fake.
@Suite("The person's consent")
struct ConsentProcessTests {
    static var quiet: Logger { Logger(label: "consent", factory: { _ in SwiftLogNoOpLogHandler() }) }

    @Test(
        "On Bluesky: without the person's own sign-in, train, import and start refuse with one line saying how; auth bluesky --account human signs them in and records their consent; revoking their app password ends the mirror at the next check: nothing posted after but the post in flight, nothing of theirs kept; forget-me then finds nothing"
    )
    func bluesky() async throws {
        let server = FakeBlueskyServer(seed: BlueskyDayProcessTests.seed())
        try await server.withRunning { url in
            try await TestServers.withTemporaryFolder { folder in
                var signedIn = BlueskyDayProcessTests.environment(url, folder: folder)
                var handleOnly = signedIn
                handleOnly["HUMAN_BLUESKY_APP_PASSWORD"] = nil

                // A handle alone proves nothing: refused, with how to sign in, and nothing stored.
                for command in [["train", "scheduler"], ["import", "nothing.car"], ["start", "--speed", "1440", "--duration", "1h"]] {
                    let refused = try await MirrorBotProcess.run(command, environment: handleOnly)
                    #expect(refused.status != 0, "\(command) ran")
                    let lines = refused.standardError.split(separator: "\n").filter { $0.contains("Not mirroring") }
                    #expect(
                        lines.count == 1 && lines[0].contains("nobody is mirrored who has not signed in as themselves")
                            && lines[0].contains("`mirror_bot auth bluesky --account human`"), "\(command): \(refused.standardError.suffix(1_500))")
                }
                let doctor = try await MirrorBotProcess.run(["doctor"], environment: handleOnly)
                #expect(
                    doctor.standardOutput.contains("FAIL  person's consent: none: nobody is mirrored who has not signed in as themselves"),
                    "\(doctor.standardOutput)")
                #expect(await server.records(of: BlueskyDayProcessTests.bot, in: PostRecord.type).isEmpty)

                // Signing in: a wrong password is refused, the person's own is recorded as their consent.
                let wrong = try await MirrorBotProcess.run(
                    ["auth", "bluesky", "--account", "human", "--app-password", "not-theirs"], environment: handleOnly)
                #expect(
                    wrong.status != 0 && wrong.standardError.contains("Bluesky refuses this app password for @person.test"), "\(wrong.standardError)")
                let auth = try await MirrorBotProcess.run(
                    ["auth", "bluesky", "--account", "human", "--with-app-password"], environment: handleOnly,
                    input: BlueskyDayProcessTests.personPassword + "\n")
                #expect(auth.status == 0, "\(auth.standardError)")
                #expect(auth.standardOutput.contains("HUMAN_BLUESKY_APP_PASSWORD=\(BlueskyDayProcessTests.personPassword)"), "\(auth.standardOutput)")
                #expect(
                    auth.standardOutput.contains("Recorded the person's consent in the SQLite file")
                        && auth.standardOutput.contains("@person.test (\(BlueskyDayProcessTests.person) on Bluesky)")
                        && auth.standardOutput.contains("by mirror_bot auth bluesky --account human (an app password)"), "\(auth.standardOutput)")
                let logins = await server.createSessionCalls()

                // Signed in: train runs without asking again who they are (the record holds their credentials' digest).
                let training = try await MirrorBotProcess.run(["train", "scheduler"], environment: signedIn)
                #expect(training.status == 0, "\(training.standardError.suffix(2_000))")
                #expect(training.standardOutput.hasPrefix("Archived "), "\(training.standardOutput)")
                let signedInDoctor = try await MirrorBotProcess.run(["doctor"], environment: signedIn)
                #expect(
                    signedInDoctor.standardOutput.contains("ok    person's consent: @person.test (\(BlueskyDayProcessTests.person) on Bluesky)"),
                    "\(signedInDoctor.standardOutput)")
                #expect(await server.createSessionCalls() - logins <= 2, "the person was not signed in again for train and doctor")

                // Tokens are never kept in plain text: without MIRROR_BOT_KEY the bot does not start.
                var keyless = signedIn
                keyless["MIRROR_BOT_KEY"] = nil
                let unsealed = try await MirrorBotProcess.run(["start", "--speed", "1440", "--duration", "1h"], environment: keyless)
                #expect(
                    unsealed.status != 0 && unsealed.standardError.contains("MIRROR_BOT_KEY is not set")
                        && unsealed.standardError.contains("session is kept in the store sealed with it"), "\(unsealed.standardError)")

                // The day runs; after its first post the person deletes the app password they gave the mirror.
                await server.armClock(BlueskyDayProcessTests.dayStart.addingTimeInterval(7.5 * 3_600), speed: 1_440)
                signedIn["MISSED_SLOT_GRACE"] = "60"
                let (bot, revokedAt) = try await Self.startRevokedAfterFirstPost(
                    signedIn, folder: folder, duration: "24h", now: { await server.now() }
                ) {
                    await server.revokeAppPassword(of: BlueskyDayProcessTests.person)
                }
                #expect(
                    bot.log.contains("the person ended the mirror (their grant was revoked: Bluesky refuses the person's app password"), "\(bot.tail)"
                )

                let posts = try await server.records(of: BlueskyDayProcessTests.bot, in: PostRecord.type).map {
                    try JSONDecoder().decode(PostRecord.self, from: JSONEncoder().encode($0.value))
                }
                #expect(!posts.isEmpty)
                let configuration = try Configuration(environment: signedIn)
                let (consent, left, slots, state) = try await BotParts(configuration: configuration, logger: Self.quiet).withRunningAsIs { database in
                    (
                        try await ConsentRecords(state: database.state).current(), try await database.retention.personRecords(),
                        try await database.plans.slots(of: "2026-11-22") ?? [], try await database.state.values().keys.sorted()
                    )
                }
                let withdrawn = try #require(consent)
                let endedAt = try #require(withdrawn.withdrawnAt)
                // The start named the bot in the person's record, and the end kept it.
                #expect(withdrawn.botAccount?.hasSuffix("(id \(BlueskyDayProcessTests.bot) on Bluesky)") == true, "\(withdrawn.summary)")
                // Ended at a check after the revocation (at 1440x a loaded machine's second is 24 bot minutes: the hour's
                // bound is proven exactly on the virtual clock, PersonWithdrawalTests), and nothing posted after the end but
                // at most the one post in flight as it came.
                #expect(
                    endedAt > revokedAt
                        && withdrawn.withdrawal?.hasPrefix("their grant was revoked: Bluesky refuses the person's app password") == true,
                    "\(withdrawn.summary)")
                let after = try posts.filter { try #require(ISO8601Time.date(from: $0.createdAt)) > endedAt }
                #expect(after.count <= 1, "posted after the end: \(after.map(\.text))")
                #expect(left.values.reduce(0, +) == 0, "kept after the end: \(left); the state's names: \(state)")
                #expect(slots.isEmpty, "the plans went with the rest")
                let botSession = try await BotParts(configuration: configuration, logger: Self.quiet).withRunningAsIs { database in
                    try await database.state.value(of: "bluesky.session.bot")
                }
                #expect(
                    botSession?.hasPrefix("sealed:v1:") == true && botSession?.contains("Jwt") == false,
                    "the bot's session kept in plain text: \(botSession ?? "none")")

                // Ended: nothing runs again on the old credentials, and forget-me has nothing left to delete.
                let again = try await MirrorBotProcess.run(["train", "scheduler"], environment: signedIn)
                #expect(again.status != 0 && again.standardError.contains("Not mirroring: the person ended this mirror"), "\(again.standardError)")
                let forget = try await MirrorBotProcess.run(["forget-me", "--yes"], environment: signedIn)
                #expect(forget.status == 0, "\(forget.standardError)")
                #expect(forget.standardOutput.contains("Left: 0 rows; the consent record is kept, marked withdrawn"), "\(forget.standardOutput)")
            }
        }
    }

    @Test(
        "On Bluesky with atproto OAuth: auth bluesky --account human prints the person's server's sign-in page, the browser comes back to the command's loopback address, the sign-in is kept sealed in the store with their consent; train and start run on it; the person taking the app's access back ends the mirror at the next check"
    )
    func blueskyOAuth() async throws {
        let server = FakeBlueskyServer(seed: BlueskyDayProcessTests.seed())
        try await server.withRunning { url in
            try await TestServers.withTemporaryFolder { folder in
                var environment = BlueskyDayProcessTests.environment(url, folder: folder)
                environment["HUMAN_BLUESKY_APP_PASSWORD"] = nil
                // The command signs its proofs with the machine's clock: the fake's runs with it for the sign-in.
                await server.setClock(Date(), speed: 1)

                // Without MIRROR_BOT_KEY the sign-in could not be kept: refused before the person is sent anywhere.
                var keyless = environment
                keyless["MIRROR_BOT_KEY"] = nil
                let unkept = try await MirrorBotProcess.run(["auth", "bluesky", "--account", "human"], environment: keyless)
                #expect(
                    unkept.status != 0 && unkept.standardError.contains("MIRROR_BOT_KEY") && !unkept.standardOutput.contains("Open this address"),
                    "\(unkept.standardError)")

                let auth = try RunningBot(
                    ["auth", "bluesky", "--account", "human", "--wait-seconds", "120"], environment: environment, folder: folder)
                var address: URL?
                try await waitUntil("auth to print the sign-in address", within: .seconds(60)) {
                    address = auth.output.split(separator: "\n").first { $0.hasPrefix("http") }.flatMap { URL(string: String($0)) }
                    return address != nil || !auth.process.isRunning
                }
                let page = try #require(address, "no address: \(auth.output)\n\(auth.log)")
                #expect(page.absoluteString.hasPrefix(url.absoluteString + "/oauth/authorize?client_id=http"), "\(page)")
                // The person's browser: their server's page, their own password, Accept; then back to the command.
                let back = try #require(
                    try await BlueskySignInBrowser.signIn(at: page, identifier: "person.test", password: "person.test-password"),
                    "the page did not send the browser back")
                #expect(back.host == "127.0.0.1" && back.path == "/callback", "\(back)")
                let landing = try await BlueskySignInBrowser.open(back)
                #expect(landing.contains("You can close this tab"), "\(landing)")
                let (status, _) = try await auth.waitForExit(within: .seconds(60))
                #expect(status == 0, "\(auth.log)")
                #expect(
                    auth.output.contains("Kept the person's sign-in in the SQLite file") && auth.output.contains("sealed with MIRROR_BOT_KEY")
                        && auth.output.contains("@person.test (\(BlueskyDayProcessTests.person) on Bluesky)")
                        && auth.output.contains("by mirror_bot auth bluesky --account human (atproto OAuth: PAR, PKCE, DPoP)"), "\(auth.output)")
                #expect(auth.output.contains("HUMAN_BLUESKY_SIGN_IN=oauth") && !auth.output.contains("dpop-access"), "\(auth.output)")
                #expect(await server.oauthTokensIssued()["authorization_code"] == 1)
                let kept = try await BotParts(configuration: try Configuration(environment: environment), logger: Self.quiet).withRunningAsIs {
                    database in
                    try await database.state.value(of: "bluesky.session.human")
                }
                #expect(
                    kept?.hasPrefix("sealed:v1:") == true && kept?.contains("dpop-access") == false && kept?.contains("refresh-") == false,
                    "the person's sign-in kept in plain text: \(kept ?? "none")")

                // Signed in: train and start run on the sign-in (no app password of theirs anywhere), and revoking it ends the mirror.
                environment["HUMAN_BLUESKY_SIGN_IN"] = "oauth"
                let training = try await MirrorBotProcess.run(["train", "scheduler"], environment: environment)
                #expect(training.status == 0, "\(training.standardError.suffix(2_000))")
                await server.armClock(BlueskyDayProcessTests.dayStart.addingTimeInterval(7.5 * 3_600), speed: 1_440)
                environment["MISSED_SLOT_GRACE"] = "60"
                let (bot, revokedAt) = try await Self.startRevokedAfterFirstPost(
                    environment, folder: folder, duration: "24h", now: { await server.now() }
                ) {
                    await server.revokeOAuthGrants(of: BlueskyDayProcessTests.person)
                }
                #expect(bot.log.contains("their grant is checked every 30 minutes"), "\(bot.tail)")
                let posted = try await server.records(of: BlueskyDayProcessTests.bot, in: PostRecord.type).map {
                    try #require(ISO8601Time.date(from: try JSONDecoder().decode(PostRecord.self, from: JSONEncoder().encode($0.value)).createdAt))
                }
                #expect(!posted.isEmpty)
                try await Self.expectEndedByRevocation(
                    environment, revokedAt: revokedAt, reason: "Bluesky refuses the person's OAuth sign-in",
                    postedAt: posted, log: bot.log)
                let refusals = await server.oauthRefusals()
                #expect(
                    refusals.contains { $0.contains("invalid_grant: The session was revoked") || $0.contains("invalid_token: Token was revoked") },
                    "\(refusals)")
                #expect(await server.createSessionCalls(of: "person.test") == 0, "the person never logged in with a password")
            }
        }
    }

    @Test(
        "On Mastodon: the person's token verified once as theirs (id@instance) at train; a half day posts; forget-me --delete-posts deletes every post the bot made of theirs on the instance, then everything learned, printing the rows before and after; the same token starts nothing again; revoking it is a refusal"
    )
    func mastodonForgetMe() async throws {
        let server = FakeMastodonServer(seed: MastodonDayProcessTests.seed())
        try await server.withRunning { url in
            try await TestServers.withTemporaryFolder { folder in
                var environment = MastodonDayProcessTests.environment(url, data: folder.appending(path: "mirror_bot.sqlite").path)
                environment["LIKES"] = "off"
                let training = try await MirrorBotProcess.run(["train", "scheduler"], environment: environment)
                #expect(training.status == 0, "\(training.standardError.suffix(2_000))")
                #expect(
                    training.standardError.contains(
                        "consent: @person (\(MastodonDayProcessTests.personID)@\(FleetServers.name(of: url)) on Mastodon), signed in")
                        && training.standardError.contains("by their own HUMAN_MASTODON_TOKEN in the configuration, verified as theirs"),
                    "\(training.standardError.suffix(2_000))")
                await server.armClock(MastodonDayProcessTests.dayStart, speed: 1_440)
                let run = try await MirrorBotProcess.run(
                    ["start", "--speed", "1440", "--start-time", "2026-11-22T00:00:00+09:00", "--duration", "12h"],
                    environment: environment)
                #expect(run.status == 0, "\(run.standardError.suffix(3_000))")
                // Its posts and its answers: each made of one of the person's.
                let made = await server.posted().map(\.id)
                #expect(!made.isEmpty, "\(run.standardError.suffix(3_000))")

                let refused = try await MirrorBotProcess.run(["forget-me"], environment: environment)
                #expect(refused.status != 0 && refused.standardError.contains("run it again with --yes"), "\(refused.standardError)")
                let forget = try await MirrorBotProcess.run(["forget-me", "--yes", "--delete-posts"], environment: environment)
                #expect(forget.status == 0, "\(forget.standardError.suffix(2_000))")
                #expect(
                    forget.standardOutput.contains(
                        "Forgetting @person (\(MastodonDayProcessTests.personID)@\(FleetServers.name(of: url)) on Mastodon)")
                        && forget.standardOutput.contains("tweets 192"), "\(forget.standardOutput)")
                #expect(
                    forget.standardOutput.contains("The bot's posts made from the person's: \(made.count) deleted on Mastodon"),
                    "\(forget.standardOutput)")
                #expect(forget.standardOutput.contains("Left: 0 rows; the consent record is kept, marked withdrawn"), "\(forget.standardOutput)")
                let deleted = Set(await server.deletedByAPI())
                #expect(deleted.isSuperset(of: made), "not deleted: \(Set(made).subtracting(deleted))")

                let again = try await MirrorBotProcess.run(["start", "--speed", "1440", "--duration", "1h"], environment: environment)
                #expect(
                    again.status != 0 && again.standardError.contains("Not mirroring: the person ended this mirror")
                        && again.standardError.contains("(mirror_bot forget-me)"), "\(again.standardError.suffix(1_000))")

                let configuration = try Configuration(environment: environment)
                try await BotParts(configuration: configuration, logger: Self.quiet).withRunning { parts in
                    let module = configuration.networkModule
                    #expect(await server.revokeAuthorizations(of: MastodonDayProcessTests.personID) > 0)
                    await #expect(throws: PersonSignInRefused.self) { try await module.verifyPerson(usageDays: parts.usageDays, logger: Self.quiet) }
                }
            }
        }
    }

    @Test(
        "Each network verifies the person's own credentials as their account (never a handle), and a revoked grant is refused as such: X (its one read billed and stored), Misskey, Bluesky"
    )
    func verifiesOnEachNetwork() async throws {
        // Misskey: the person's token, as `id@instance`; revoked, refused.
        let misskey = FakeMisskeyServer(seed: MisskeyDayProcessTests.seed())
        try await misskey.withRunning { url in
            try await TestServers.withTemporaryFolder { folder in
                let configuration = try Configuration(environment: MisskeyDayProcessTests.environment(url, folder: folder))
                try await BotParts(configuration: configuration, logger: Self.quiet).withRunning { parts in
                    let module = configuration.networkModule
                    let person = try await module.verifyPerson(usageDays: parts.usageDays, logger: Self.quiet)
                    #expect(person.account == "\(MisskeyDayProcessTests.person)@\(FleetServers.name(of: url))" && person.handle == "person")
                    await misskey.revokeTokens(of: MisskeyDayProcessTests.person)
                    await #expect(throws: PersonSignInRefused.self) { try await module.verifyPerson(usageDays: parts.usageDays, logger: Self.quiet) }
                }
            }
        }
        // Bluesky: the person's app password, as their DID.
        let bluesky = FakeBlueskyServer(seed: BlueskyDayProcessTests.seed())
        try await bluesky.withRunning { url in
            try await TestServers.withTemporaryFolder { folder in
                let configuration = try Configuration(environment: BlueskyDayProcessTests.environment(url, folder: folder))
                try await BotParts(configuration: configuration, logger: Self.quiet).withRunning { parts in
                    let module = configuration.networkModule
                    let person = try await module.verifyPerson(usageDays: parts.usageDays, logger: Self.quiet)
                    #expect(person.account == BlueskyDayProcessTests.person && person.handle == "person.test")
                    // Checked again: the session is kept, no second login.
                    _ = try await module.verifyPerson(usageDays: parts.usageDays, logger: Self.quiet)
                    #expect(await bluesky.createSessionCalls(of: "person.test") == 1)
                    await bluesky.revokeAppPassword(of: BlueskyDayProcessTests.person)
                    await #expect(throws: PersonSignInRefused.self) { try await module.verifyPerson(usageDays: parts.usageDays, logger: Self.quiet) }
                }
            }
        }
        // X: the person's tokens, as their user id, the read billed and stored as `consent`; revoked, refused.
        let persona = FakeXPersona(.init(randomSeed: 3, dayStart: Date(), historyDays: 2, postsPerDay: 2, followedAccounts: 1))
        let x = FakeXServer(seed: persona.seed, logger: Self.quiet)
        try await x.withRunning { url in
            try await TestServers.withTemporaryFolder { folder in
                let environment = try PersonaDayProcessTests.environment(
                    persona, base: url, database: nil, prefix: "consent",
                    data: folder.appending(path: "mirror_bot.sqlite").path)
                let configuration = try Configuration(environment: environment)
                try await BotParts(configuration: configuration, logger: Self.quiet).withRunning { parts in
                    let module = configuration.networkModule
                    let person = try await module.verifyPerson(usageDays: parts.usageDays, logger: Self.quiet)
                    #expect(person.account == persona.human.id && person.handle == persona.human.username)
                    let usage = try await parts.usageDays.entries(since: "2000-01-01")
                    #expect(usage.contains { $0.command == "consent" && $0.cost > 0 }, "the billed read is not stored: \(usage)")
                    #expect(await x.revoke(accessToken: persona.humanAccount.accessToken))
                    await #expect(throws: PersonSignInRefused.self) { try await module.verifyPerson(usageDays: parts.usageDays, logger: Self.quiet) }
                }
            }
        }
    }

    /// Runs `start` at 1440x from 07:30 of the simulated day for at most `duration`; once it has posted, `revoke` takes
    /// the person's grant back on the fake. Once the log says the mirror ended and was forgotten, the bot is stopped with SIGTERM (the
    /// duration only bounds a run that never ends it). Returns the run, exited with status 0, and when the fake's clock
    /// said it was revoked.
    static func startRevokedAfterFirstPost(
        _ environment: [String: String], folder: URL, duration: String, now: () async -> Date,
        revoke: () async -> Void
    ) async throws -> (bot: RunningBot, revokedAt: Date) {
        let bot = try RunningBot(
            ["start", "--speed", "1440", "--start-time", "2026-11-22T07:30:00+09:00", "--duration", duration],
            environment: environment, folder: folder)
        #expect(try await bot.waitForLog("posted slot "), "\(bot.tail)")
        let revokedAt = await now()
        await revoke()
        // The end, whole: stopped, then everything of theirs forgotten (a SIGTERM between the two is swept as the bot
        // stops, PersonWithdrawalTests; here the end is waited for).
        #expect(try await bot.waitForLog("forgot everything learned from the person", limit: .seconds(300)), "the end, in the log: \(bot.tail)")
        if bot.process.isRunning { bot.process.terminate() }
        let (status, _) = try await bot.waitForExit(within: .seconds(10))
        #expect(status == 0, "\(bot.tail)")
        return (bot, revokedAt)
    }

    /// Whether the mirror ended as a revoked grant ends it: the record withdrawn after `revokedAt` saying so, nothing
    /// posted after the end but at most the post in flight (`postedAt` of each post), nothing of the person kept.
    static func expectEndedByRevocation(
        _ environment: [String: String], revokedAt: Date, reason: String, postedAt: [Date], log: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let configuration = try Configuration(environment: environment)
        let (consent, left, state) = try await BotParts(configuration: configuration, logger: Self.quiet).withRunningAsIs { database in
            (
                try await ConsentRecords(state: database.state).current(), try await database.retention.personRecords(),
                try await database.state.values().filter { !PersonRecords.keeps($0.key) }
            )
        }
        let withdrawn = try #require(consent, sourceLocation: sourceLocation)
        let endedAt = try #require(withdrawn.withdrawnAt, "\(withdrawn.summary)\n\(log.suffix(2_000))", sourceLocation: sourceLocation)
        #expect(
            endedAt > revokedAt && withdrawn.withdrawal?.hasPrefix("their grant was revoked: \(reason)") == true, "\(withdrawn.summary)",
            sourceLocation: sourceLocation)
        #expect(
            log.contains("the person ended the mirror (their grant was revoked: \(reason)"), "\(log.suffix(2_000))", sourceLocation: sourceLocation)
        #expect(
            postedAt.filter { $0 > endedAt }.count <= 1, "posted after the end: \(postedAt.filter { $0 > endedAt })", sourceLocation: sourceLocation)
        #expect(left.values.reduce(0, +) == 0, "kept after the end: \(left); the state: \(state)", sourceLocation: sourceLocation)
    }

    @Test(
        "On Misskey: the person's token verified as theirs at train; the morning posts; their token revoked on the instance ends the mirror at the next check, saying why: nothing posted after but the post in flight, nothing of theirs kept"
    )
    func misskeyRevoked() async throws {
        let server = FakeMisskeyServer(seed: MisskeyDayProcessTests.seed())
        try await server.withRunning { url in
            try await TestServers.withTemporaryFolder { folder in
                var environment = MisskeyDayProcessTests.environment(url, folder: folder)
                let training = try await MirrorBotProcess.run(["train", "scheduler"], environment: environment)
                #expect(training.status == 0, "\(training.standardError.suffix(2_000))")
                #expect(
                    training.standardError.contains("consent: @person (\(MisskeyDayProcessTests.person)@"), "\(training.standardError.suffix(2_000))")

                await server.armClock(MisskeyDayProcessTests.dayStart.addingTimeInterval(7.5 * 3_600), speed: 1_440)
                environment["MISSED_SLOT_GRACE"] = "60"
                let (bot, revokedAt) = try await Self.startRevokedAfterFirstPost(
                    environment, folder: folder, duration: "24h", now: { await server.now() }
                ) {
                    await server.revokeTokens(of: MisskeyDayProcessTests.person)
                }
                let posted = await server.posted().filter { $0.userID == MisskeyDayProcessTests.bot }
                #expect(!posted.isEmpty)
                try await Self.expectEndedByRevocation(
                    environment, revokedAt: revokedAt, reason: "127.0.0.1:\(url.port ?? 0) refuses the person's token (HUMAN_MISSKEY_TOKEN)",
                    postedAt: posted.map(\.createdAt), log: bot.log)
            }
        }
    }

    @Test(
        "On X: the person's tokens verified as theirs at train (one billed users/me); the day posts; their tokens revoked end the mirror at the day's check, saying why: nothing posted after but the post in flight, nothing of theirs kept"
    )
    func xRevoked() async throws {
        try await TestServers.withScratchDatabase("consentx") { databaseURL async throws in
            let server = FakeXServer(seed: StartProcessTests.seed, logger: Self.quiet)
            try await server.withRunning { base in
                try await TestServers.withTemporaryFolder { folder in
                    var environment = DoctorProcessTests.environment(base, botSecret: "bts")
                    environment.merge([
                        "HUMAN_CONSUMER_KEY": "hk", "HUMAN_CONSUMER_SECRET": "hs", "HUMAN_ACCESS_TOKEN": "1-t", "HUMAN_ACCESS_TOKEN_SECRET": "hts",
                        "BOT_ACCESS_TOKEN": "2-t", "DATABASE_URL": databaseURL.connectionText, "TZ": "Asia/Tokyo", "POST_STYLE": "copy",
                        "MIRROR_BOT_DATA": folder.appending(path: "counts.sqlite").path, "MISSED_SLOT_GRACE": "60",
                    ]) { _, new in new }
                    #expect(try await MirrorBotProcess.run(["migrate"], environment: environment).status == 0)
                    let training = try await MirrorBotProcess.run(["train", "scheduler", "--yes"], environment: environment)
                    #expect(
                        training.status == 0 && training.standardOutput.hasPrefix("Archived 30 new posts"), "\(training.standardError.suffix(2_000))"
                    )

                    // X bills each check, so the grant is checked once a day: the start's record serves the first day.
                    await server.armClock(StartProcessTests.now.addingTimeInterval(7.5 * 3_600), speed: 1_440)
                    let (bot, revokedAt) = try await Self.startRevokedAfterFirstPost(
                        environment, folder: folder, duration: "48h", now: { await server.now() }
                    ) {
                        #expect(await server.revoke(accessToken: "1-t"))
                    }
                    let posted = await server.posted()
                    #expect(!posted.isEmpty)
                    try await Self.expectEndedByRevocation(
                        environment, revokedAt: revokedAt, reason: "X refuses the person's tokens (HUMAN_ACCESS_TOKEN)",
                        postedAt: posted.map(\.createdAt), log: bot.log)
                }
            }
        }
    }
}

/// The person's browser on the fake Bluesky's sign-in page: opens it, signs in, accepts, and reads where it is sent.
enum BlueskySignInBrowser {
    /// Does not follow redirects: the test reads where the server sends the person.
    static let browser = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))

    /// The address the page sends the browser back to, after signing in as `identifier`; nil when it did not.
    static func signIn(at address: URL, identifier: String, password: String) async throws -> URL? {
        let html = try await open(address)
        guard let match = html.firstMatch(of: /name="request_uri" value="([^"]+)"/) else { return nil }
        var form = HTTPClientRequest(url: "\(address.scheme!)://\(address.host!):\(address.port!)/oauth/authorize")
        form.method = .POST
        form.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let fields = ["request_uri": String(match.1), "identifier": identifier, "password": password, "decision": "accept"]
        form.body = .bytes(
            ByteBuffer(string: fields.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed)!)" }.joined(separator: "&")))
        let answer = try await browser.execute(form, timeout: .seconds(10))
        _ = try await answer.body.collect(upTo: 1 << 20)
        return answer.status == .found ? answer.headers.first(name: "Location").flatMap(URL.init(string:)) : nil
    }

    /// The page at `address`, as text.
    static func open(_ address: URL) async throws -> String {
        let response = try await browser.execute(HTTPClientRequest(url: address.absoluteString), timeout: .seconds(10))
        return String(buffer: try await response.body.collect(upTo: 1 << 20))
    }
}
