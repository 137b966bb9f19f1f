import BlueskyAPI
import BotClock
import BotCore
import FakeBluesky
import Foundation
import SocialNetwork
import Stores
import Synchronization
import TestSupport
import Testing

@testable import BlueskyNetwork

/// A refresh token works once: every client on one store (the daemon, a command, a fleet's other process) renews a
/// session one at a time, and a sign-in that runs out is told apart from one taken back.
@Suite("Bluesky sessions renewed once among every client on a store; a lapsed sign-in told from a revoked one", .serialized)
struct BlueskySessionRenewalTests {
    static let now = Date(timeIntervalSince1970: 1_795_273_200)

    /// Seals by a reversible mark: the stores under test are real; what seals them is not what is tested here.
    struct MarkSealer: SecretSealer {
        func seal(_ text: String) throws -> String { "sealed:" + Data(text.utf8).base64EncodedString() }
        func open(_ sealed: String) throws -> String {
            guard sealed.hasPrefix("sealed:"), let data = Data(base64Encoded: String(sealed.dropFirst(7))) else {
                throw CocoaError(.coderReadCorrupt)
            }
            return String(decoding: data, as: UTF8.self)
        }
    }

    /// What the renewals spent, in order.
    final class Spent: Sendable {
        private let list = Mutex<[String]>([])
        func add(_ line: String) { list.withLock { $0.append(line) } }
        var lines: [String] { list.withLock { $0 } }
    }

    static func session(_ refresh: String) -> BlueskySession {
        BlueskySession(did: "did:plc:person", handle: "person.test", accessJwt: "access-\(refresh)", refreshJwt: refresh, pds: nil)
    }

    /// A gate the test opens: the renewal it holds waits until then, and says when it reached it.
    final class Gate: Sendable {
        let entries: AsyncStream<Void>
        private let entered: AsyncStream<Void>.Continuation
        private let opened: AsyncStream<Void>
        private let opening: AsyncStream<Void>.Continuation
        init() {
            (entries, entered) = AsyncStream.makeStream(of: Void.self)
            (opened, opening) = AsyncStream.makeStream(of: Void.self)
        }
        func pass() async {
            entered.yield()
            for await _ in opened { return }
        }
        func open() { opening.yield() }
    }

    @Test(
        "Two clients renew the same session at once: one spends the refresh token, the other waits for its claim and takes the session it stored, spending nothing",
        arguments: StoreBackends.databases)
    func oneRenewalAmongClients(_ kind: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(kind) { stores in
            let (first, second) = (
                StoredBlueskySessions(state: stores.state, sealer: MarkSealer()), StoredBlueskySessions(state: stores.state, sealer: MarkSealer())
            )
            let stale = Self.session("r0")
            try await first.save(stale, of: .human)
            let clock = ManualBotClock(now: Self.now)
            let gate = Gate()
            let spent = Spent()
            let renewing = Task {
                try await first.renew(.human, replacing: stale, clock: clock) { old in
                    await gate.pass()
                    spent.add("first spent \(old.refreshJwt)")
                    return Self.session("r1")
                }
            }
            var entries = gate.entries.makeAsyncIterator()
            _ = await entries.next()
            let waiting = Task {
                try await second.renew(.human, replacing: stale, clock: clock) { old in
                    spent.add("second spent \(old.refreshJwt)")
                    return Self.session("r2")
                }
            }
            try await clock.waitForSleepers()
            #expect(spent.lines.isEmpty, "the second waits on the claim while the first renews")
            gate.open()
            let renewed = try await renewing.value
            clock.advance(by: 1)
            let taken = try await waiting.value
            #expect(renewed.refreshJwt == "r1" && taken.refreshJwt == "r1", "both hold the one renewal")
            #expect(spent.lines == ["first spent r0"], "the refresh token was spent once")
            #expect(try await first.session(of: .human)?.refreshJwt == "r1")
            #expect(try await stores.state.value(of: "bluesky.renewing.human") == nil, "the claim is let go")
        }
    }

    @Test(
        "A claim left by a process that stopped mid-renewal is taken over once it lapses (90 s), not waited on forever",
        arguments: StoreBackends.databases)
    func abandonedClaimTakenOver(_ kind: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(kind) { stores in
            let sessions = StoredBlueskySessions(state: stores.state, sealer: MarkSealer())
            let stale = Self.session("r0")
            try await sessions.save(stale, of: .human)
            try await stores.state.setValue("gone-process \(Self.now.addingTimeInterval(90).formatted(.iso8601))", of: "bluesky.renewing.human")
            let clock = ManualBotClock(now: Self.now)
            let spent = Spent()
            let renewing = Task {
                try await sessions.renew(.human, replacing: stale, clock: clock) { _ in
                    spent.add("spent")
                    return Self.session("r1")
                }
            }
            // It sleeps a second at a time while the claim holds (until 90 s on), and takes it over then.
            for second in 0..<90 {
                try await clock.waitForSleepers()
                #expect(spent.lines.isEmpty, "took over a live claim at \(second) s")
                clock.advance(by: 1)
            }
            let renewed = try await renewing.value
            #expect(renewed.refreshJwt == "r1" && spent.lines.count == 1, "taken over as the claim lapsed")
        }
    }

    @Test(
        "End to end: the daemon's client and a command's, on one Postgres store, both find the person's OAuth access token expired; the authorization server sees one refresh, no replay, and the grant lives on"
    )
    func twoClientsOneRefresh() async throws {
        let server = FakeBlueskyServer(seed: BlueskyFixture.seed)
        try await server.withRunning { url in
            try await TestServers.withIsolatedDatabase(.postgres) { stores in
                await server.setClock(Date(), speed: 1)
                let clock = ManualBotClock(now: await server.now())
                let signIn = try await BlueskyOAuthSignIn.begin(
                    handle: "person.test", service: url, liking: false, redirectURI: BlueskyOAuthTests.redirect,
                    clock: clock, logger: BlueskyFixture.quiet_logger)
                let back = try await BlueskyOAuthTests.signIn(at: signIn.address, identifier: "person.test", password: "person.test-password")
                let (_, session) = try await signIn.finish(redirectQuery: try #require(back.query))
                let store = StoredBlueskySessions(state: stores.state, sealer: MarkSealer())
                try await store.save(session, of: .human)
                func client() -> BlueskyClient {
                    BlueskyClient(
                        configuration: .init(
                            service: url, accounts: [.human: BlueskyAccess(handle: "person.test", appPassword: nil, signsInWithOAuth: true)],
                            initialBackoff: .milliseconds(1)),
                        sessionStore: StoredBlueskySessions(state: stores.state, sealer: MarkSealer()), clock: clock,
                        logger: BlueskyFixture.quiet_logger)
                }
                let (daemon, command) = (client(), client())
                _ = try await daemon.send(GetSession(), as: .human)
                _ = try await command.send(GetSession(), as: .human)
                await server.advanceClock(by: 3_700)
                clock.advance(by: 3_700)
                // Whoever finds the claim held sleeps a second on the bot's clock: moved on for it until both are done.
                let people = try await withThrowingTaskGroup(of: String?.self) { group in
                    group.addTask { try await daemon.send(GetSession(), as: .human).did }
                    group.addTask { try await command.send(GetSession(), as: .human).did }
                    group.addTask {
                        while !Task.isCancelled {
                            do { try await clock.waitForSleepers(within: .seconds(60)) } catch { return nil }
                            clock.advance(by: 1)
                        }
                        return nil
                    }
                    var dids: [String] = []
                    for try await did in group {
                        if let did { dids.append(did) }
                        if dids.count == 2 { group.cancelAll() }
                    }
                    return dids
                }
                #expect(people == [BlueskyFixture.person, BlueskyFixture.person])
                #expect(await server.oauthTokensIssued()["refresh_token"] == 1, "one refresh for both clients")
                let refusals = await server.oauthRefusals()
                #expect(!refusals.contains { $0.contains("replayed") }, "\(refusals)")
                #expect(try await store.session(of: .human)?.refreshJwt != session.refreshJwt)
            }
        }
    }

    @Test(
        "A sign-in left unused past two days, or older than a week, lapses: told apart from a revoked one (the mirror pauses, forgets nothing), and the spent-for-good refresh token is not offered again"
    )
    func lapsedIsNotRevoked() async throws {
        let server = FakeBlueskyServer(seed: BlueskyFixture.seed)
        try await server.withRunning { url in
            await server.setClock(Date(), speed: 1)
            let clock = ManualBotClock(now: await server.now())
            func signedIn() async throws -> BlueskyClient {
                let signIn = try await BlueskyOAuthSignIn.begin(
                    handle: "person.test", service: url, liking: false, redirectURI: BlueskyOAuthTests.redirect,
                    clock: clock, logger: BlueskyFixture.quiet_logger)
                let back = try await BlueskyOAuthTests.signIn(at: signIn.address, identifier: "person.test", password: "person.test-password")
                let (_, session) = try await signIn.finish(redirectQuery: try #require(back.query))
                #expect(session.oauth?.signedInAt != nil)
                let sessions = InMemoryBlueskySessions()
                await sessions.save(session, of: .human)
                return BlueskyClient(
                    configuration: .init(
                        service: url, accounts: [.human: BlueskyAccess(handle: "person.test", appPassword: nil, signsInWithOAuth: true)],
                        initialBackoff: .milliseconds(1)),
                    sessionStore: sessions, clock: clock, logger: BlueskyFixture.quiet_logger)
            }
            func step(days: Double) async {
                await server.advanceClock(by: days * 86_400)
                clock.advance(by: days * 86_400)
            }

            // Two days and more unused: the server's idle limit.
            let idle = try await signedIn()
            _ = try await idle.send(GetSession(), as: .human)
            await step(days: 2.5)
            do {
                _ = try await idle.send(GetSession(), as: .human)
                Issue.record("a sign-in idle past the limit still acts")
            } catch BlueskyAPIError.grantLapsed(let account, let detail) {
                #expect(account == .human && detail.contains("inactivity"), "\(detail)")
            }
            let refusals = await server.oauthRefusals().count
            await #expect(throws: BlueskyAPIError.self) { try await idle.send(GetSession(), as: .human) }
            // The daemon's check of the person's grant says so: a lapse, which pauses the mirror (not a withdrawal).
            await #expect(throws: PersonSignInLapsed.self) { try await BlueskyNetworkModule.verifyPersonByOAuth(idle) }
            #expect(await server.oauthRefusals().count == refusals, "a refresh token refused for good is not offered again")

            // Used every day: it lives its week, then lapses.
            let daily = try await signedIn()
            for _ in 0..<6 {
                await step(days: 1)
                _ = try await daily.send(GetSession(), as: .human)
            }
            await step(days: 1.1)
            do {
                _ = try await daily.send(GetSession(), as: .human)
                Issue.record("a sign-in older than a week still acts")
            } catch BlueskyAPIError.grantLapsed(_, let detail) {
                #expect(detail.contains("Refresh token expired"), "\(detail)")
            }

            // Taken back by the person within its life: refused, not lapsed.
            let revoked = try await signedIn()
            _ = try await revoked.send(GetSession(), as: .human)
            await server.revokeOAuthGrants(of: BlueskyFixture.person)
            await step(days: 0.05)
            await #expect { try await revoked.send(GetSession(), as: .human) } throws: { error in
                guard case BlueskyAPIError.grantRefused = error else { return false }
                return true
            }
            await #expect(throws: PersonSignInRefused.self, "a withdrawal, which ends the mirror") {
                try await BlueskyNetworkModule.verifyPersonByOAuth(revoked)
            }
        }
    }
}
