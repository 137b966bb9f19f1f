import Foundation
import Stores
import TestSupport
import Testing

@testable import PostgresStores

/// The fleet's registry on a real Postgres (a scratch database each: bots' schemas are the database's): bots as data,
/// claims that never overlap, fencing numbers that grow with each holder, leases renewed, lost, handed over.
@Suite("The fleet's registry on Postgres", .serialized)
struct FleetRegistryTests {
    static func with(_ body: (PostgresFleetRegistry, PostgresStoreSet) async throws -> Void) async throws {
        try await TestServers.withScratchDatabase("fleet") { url in
            let pool = try PostgresStoreSet(url: url, logger: TestServers.logger)
            try await pool.withRunning {
                let registry = PostgresFleetRegistry(database: PostgresStoreSet(sharing: pool, schema: pool.schema ?? "public"))
                try await registry.prepare()
                try await registry.prepare()  // twice: nothing happens
                try await body(registry, pool)
            }
        }
    }

    @Test("Bots as data: added with a schema of their own, listed by name, paused and resumed, removed with their schema; names checked, never twice")
    func botsAsData() async throws {
        try await Self.with { registry, pool in
            let alice = try await registry.add(name: "alice", network: "mastodon", sealedSettings: Data([1, 2, 3]))
            _ = try await registry.add(name: "bob-2", network: "x", sealedSettings: Data([4]))
            await #expect(throws: FleetError.nameTaken("alice")) { _ = try await registry.add(name: "alice", network: "x", sealedSettings: Data()) }
            await #expect(throws: FleetError.badName("Alice!")) { _ = try await registry.add(name: "Alice!", network: "x", sealedSettings: Data()) }
            #expect(try await registry.bots().map(\.name) == ["alice", "bob-2"])
            #expect(try await registry.bot(named: "alice")?.sealedSettings == Data([1, 2, 3]))
            #expect(try await registry.setPaused("alice", reason: "by hand"))
            #expect(try await registry.bot(named: "alice")?.pauseReason == "by hand")
            #expect(try await registry.setPaused("alice", reason: nil))
            #expect(try await !registry.setPaused("nobody", reason: nil))
            // The bot's stores live in its schema: a view on the pool writes there and nowhere else.
            let stores = PostgresStoreSet(sharing: pool, schema: alice.schema)
            try await stores.migrations.migrate()
            try await stores.state.setValue("1", of: "probe")
            #expect(try await stores.state.value(of: "probe") == "1")
            func schemas() async throws -> Int64 {
                try await pool.rows("counting", "SELECT count(*) FROM pg_namespace WHERE nspname = \(alice.schema)", as: Int64.self).first ?? -1
            }
            #expect(try await schemas() == 1)
            #expect(try await registry.remove("alice"))
            #expect(try await schemas() == 0)
            #expect(try await !registry.remove("alice"))
            #expect(try await registry.bots().map(\.name) == ["bob-2"])
        }
    }

    @Test("A bot added paused (the front door's, until its person starts it) is claimed by no process until it is resumed")
    func addedPaused() async throws {
        try await Self.with { registry, _ in
            let added = try await registry.add(name: "door-1", network: "mastodon", sealedSettings: Data([1]), pausedBecause: "not started yet")
            #expect(added.pauseReason == "not started yet")
            #expect(try await registry.bot(named: "door-1")?.pauseReason == "not started yet")
            #expect(try await registry.claim(for: "p1", limit: 5, expiresIn: 30).isEmpty)
            #expect(try await registry.setPaused("door-1", reason: nil))
            #expect(try await registry.claim(for: "p1", limit: 5, expiresIn: 30).map(\.botID) == [added.id])
        }
    }

    @Test("Two processes claiming at once never take the same bot; a paused bot is claimed by none; each hold has a larger fencing number")
    func claimsNeverOverlap() async throws {
        try await Self.with { registry, _ in
            for number in 0..<10 { _ = try await registry.add(name: "bot\(number)", network: "x", sealedSettings: Data()) }
            try await registry.setPaused("bot9", reason: "by hand")
            async let first = registry.claim(for: "p1", limit: 6, expiresIn: 30)
            async let second = registry.claim(for: "p2", limit: 6, expiresIn: 30)
            let (a, b) = try await (first, second)
            #expect(Set(a.map(\.botID)).isDisjoint(with: b.map(\.botID)))
            #expect(a.count + b.count == 9, "\(a.count) + \(b.count)")
            #expect(a.allSatisfy { $0.fence == 1 } && b.allSatisfy { $0.fence == 1 })
            // Nothing left to claim.
            #expect(try await registry.claim(for: "p3", limit: 10, expiresIn: 30).isEmpty)
            // A process lets its bots go: another claims them, each with the next fencing number; the old holds no longer hold.
            try await registry.release(for: "p1")
            let taken = try await registry.claim(for: "p3", limit: 10, expiresIn: 30)
            #expect(Set(taken.map(\.botID)) == Set(a.map(\.botID)) && taken.allSatisfy { $0.fence == 2 })
            for claim in a { #expect(try await !registry.holds(claim, for: "p1")) }
            for claim in taken { #expect(try await registry.holds(claim, for: "p3")) }
            // p1 cannot renew what it let go.
            #expect(try await registry.renew(a, for: "p1", expiresIn: 30).isEmpty)
        }
    }

    @Test(
        "A lease not renewed lapses and another process takes it with a larger number; the old holder's renewal then fails; a paused bot's renewal fails"
    )
    func leasesLapse() async throws {
        try await Self.with { registry, pool in
            _ = try await registry.add(name: "solo", network: "x", sealedSettings: Data())
            _ = try await registry.add(name: "pausable", network: "x", sealedSettings: Data())
            let held = try await registry.claim(for: "killed", limit: 2, expiresIn: 30)
            #expect(held.count == 2)
            #expect(try await registry.claim(for: "other", limit: 2, expiresIn: 30).isEmpty, "not yet lapsed")
            try await Self.lapse(pool)
            let taken = try await registry.claim(for: "other", limit: 2, expiresIn: 30)
            #expect(taken.count == 2 && taken.allSatisfy { $0.fence == 2 })
            #expect(try await registry.renew(held, for: "killed", expiresIn: 30).isEmpty)
            #expect(try await registry.renew(taken, for: "other", expiresIn: 30).count == 2)
            try await registry.setPaused("pausable", reason: "by hand")
            #expect(try await registry.renew(taken, for: "other", expiresIn: 30).count == 1)
            // Who is alive: two processes heard from now.
            _ = try await registry.heartbeat("p1", liveness: 20)
            #expect(try await registry.heartbeat("p2", liveness: 20) == 2)
            try await registry.release(for: "p1")
            #expect(try await registry.heartbeat("p2", liveness: 20) == 1)
        }
    }

    /// Lets every lease lapse, as the database's time passing them would (the leases' times are Postgres's `now()`).
    /// (Through a view routed to the registry's schema: the pool's connections are left in whichever bot's schema ran last.)
    static func lapse(_ pool: PostgresStoreSet) async throws {
        _ = try await PostgresStoreSet(sharing: pool, schema: pool.schema ?? "public").rows(
            "letting the leases lapse", "UPDATE fleet_leases SET expires_at = now() - interval '1 second' WHERE owner IS NOT NULL RETURNING 1",
            as: Int.self)
    }

    @Test(
        "A bot's stores behind its lease: while the hold is this process's its statements run; once it lapsed or was taken, every statement (alone or in a transaction) fails unrun, and the new holder's run"
    )
    func fencedStatements() async throws {
        try await Self.with { registry, pool in
            let bot = try await registry.add(name: "fenced", network: "x", sealedSettings: Data())
            try await PostgresStoreSet(sharing: pool, schema: bot.schema).migrations.migrate()
            let first = try #require(try await registry.claim(for: "p1", limit: 1, expiresIn: 30).first)
            let firstStores = PostgresStoreSet(sharing: pool, schema: bot.schema, fence: .init(registrySchema: "public", claim: first, process: "p1"))
            try await firstStores.state.setValue("first", of: "probe")
            #expect(try await firstStores.state.value(of: "probe") == "first")
            // Another process's name with the same number is not the hold.
            let impostor = PostgresStoreSet(sharing: pool, schema: bot.schema, fence: .init(registrySchema: "public", claim: first, process: "p2"))
            await #expect(throws: ArchiveError.self) { try await impostor.state.setValue("impostor", of: "probe") }

            try await Self.lapse(pool)
            await #expect(throws: ArchiveError.self) { try await firstStores.state.setValue("late", of: "probe") }
            await #expect(throws: ArchiveError.self) { _ = try await firstStores.migrations.migrate() }
            // The same process claims it again (a stall ended): a new hold, whose number alone tells the old task's writes apart.
            let second = try #require(try await registry.claim(for: "p1", limit: 1, expiresIn: 30).first)
            #expect(second.fence == first.fence + 1)
            let secondStores = PostgresStoreSet(
                sharing: pool, schema: bot.schema, fence: .init(registrySchema: "public", claim: second, process: "p1"))
            #expect(try await secondStores.state.value(of: "probe") == "first", "the late write did not happen")
            try await secondStores.state.setValue("second", of: "probe")
            _ = try await secondStores.migrations.migrate()
            // The old holder stays refused, though the lease is live again: it is another hold.
            do {
                try await firstStores.state.setValue("stale", of: "probe")
                Issue.record("a stale holder wrote")
            } catch {
                #expect("\(error)".contains("no longer this process's hold \(first.fence)"), "\(error)")
            }
            #expect(try await PostgresStoreSet(sharing: pool, schema: bot.schema).state.value(of: "probe") == "second")
        }
    }

    @Test(
        "A fenced statement holds the lease from its check until it has run: a takeover meanwhile waits for it (no window between check and statement)"
    )
    func fencedStatementHoldsTheLease() async throws {
        try await Self.with { registry, pool in
            let bot = try await registry.add(name: "held", network: "x", sealedSettings: Data())
            try await PostgresStoreSet(sharing: pool, schema: bot.schema).migrations.migrate()
            let claim = try #require(try await registry.claim(for: "p1", limit: 1, expiresIn: 30).first)
            let stores = PostgresStoreSet(sharing: pool, schema: bot.schema, fence: .init(registrySchema: "public", claim: claim, process: "p1"))
            // A statement of the bot's that takes two seconds, its end time by the server's clock.
            let slow = Task {
                try await stores.rows("a slow statement", "SELECT extract(epoch FROM clock_timestamp())::float8 FROM pg_sleep(2)", as: Double.self)
                    .first
            }
            let watcher = PostgresStoreSet(sharing: pool, schema: pool.schema ?? "public")
            try await waitUntil("the bot's slow statement to be running", within: .seconds(20), every: .milliseconds(20)) {
                (try await watcher.rows(
                    "watching",
                    "SELECT count(*)::int FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%pg_sleep(2)%' AND query NOT LIKE '%pg_stat_activity%'",
                    as: Int.self
                ).first ?? 0) > 0
            }
            // Another process ends the lease meanwhile (as a takeover does): it waits until the statement has run.
            let lapsedAt = try #require(
                try await watcher.rows(
                    "ending the lease",
                    """
                    UPDATE fleet_leases SET expires_at = now() - interval '1 second' WHERE bot_id = \(claim.botID)
                    RETURNING extract(epoch FROM clock_timestamp())::float8
                    """, as: Double.self
                ).first)
            let statementEnded = try #require(try await slow.value)
            #expect(lapsedAt >= statementEnded, "the lease was ended \(statementEnded - lapsedAt) s before the fenced statement had run")
            await #expect(throws: ArchiveError.self) { try await stores.state.setValue("late", of: "probe") }
        }
    }

    @Test(
        "Invitations by their codes' digests: open until used once (a second use, an expired one and a withdrawn one open nothing), given back when no mirror came of it"
    )
    func invitations() async throws {
        try await Self.with { registry, _ in
            let alice = Data(repeating: 1, count: 32)
            let bob = Data(repeating: 2, count: 32)
            let late = Data(repeating: 3, count: 32)
            let first = try await registry.invite(codeDigest: alice, note: "alice", expiresAt: Date().addingTimeInterval(86_400))
            let second = try await registry.invite(codeDigest: bob, note: "bob", expiresAt: Date().addingTimeInterval(86_400))
            _ = try await registry.invite(codeDigest: late, note: "late", expiresAt: Date().addingTimeInterval(-1))
            #expect(try await registry.invitations().map(\.note) == ["late", "bob", "alice"], "the newest first")
            #expect(try await registry.isOpenInvitation(codeDigest: alice))
            #expect(try await !registry.isOpenInvitation(codeDigest: late), "expired")
            #expect(try await !registry.useInvitation(codeDigest: late, for: "door-3"), "expired")
            #expect(try await !registry.isOpenInvitation(codeDigest: Data(repeating: 9, count: 32)), "no such code")
            // Two people at once: one of them gets it.
            async let one = registry.useInvitation(codeDigest: alice, for: "door-1")
            async let two = registry.useInvitation(codeDigest: alice, for: "door-2")
            let uses = try await [one, two]
            #expect(uses.filter { $0 }.count == 1, "\(uses)")
            #expect(try await !registry.isOpenInvitation(codeDigest: alice))
            let used = try #require(try await registry.invitations().first { $0.id == first.id })
            #expect(used.usedAt != nil && ["door-1", "door-2"].contains(used.usedFor ?? ""))
            // Its mirror could not be made: given back, open again.
            try await registry.returnInvitation(codeDigest: alice)
            #expect(try await registry.isOpenInvitation(codeDigest: alice))
            #expect(try await registry.useInvitation(codeDigest: alice, for: "door-9"))
            #expect(try await !registry.withdrawInvitation(first.id), "used: its record stays")
            try await registry.forgetName(of: "door-9")
            #expect(try await registry.invitations().first { $0.id == first.id }?.usedFor == nil, "a deleted bot's name forgotten")
            #expect(try await registry.withdrawInvitation(second.id))
            #expect(try await !registry.withdrawInvitation(second.id))
            #expect(try await !registry.useInvitation(codeDigest: bob, for: "door-4"), "withdrawn")
        }
    }

    @Test("The audit log keeps what the operator did, newest first; the processes are those heard from lately; a bot says when it was added")
    func auditAndProcesses() async throws {
        try await Self.with { registry, _ in
            try await registry.audit(FleetAuditEntry(actor: "mirror_bot bots on host", action: "added", bot: "alice", detail: "a mastodon bot"))
            try await registry.audit(FleetAuditEntry(actor: "the operator's page (127.0.0.1)", action: "signed in"))
            let log = try await registry.auditLog(limit: 10)
            #expect(log.map(\.action) == ["signed in", "added"])
            #expect(log[1].bot == "alice" && log[1].detail == "a mastodon bot" && log[1].actor == "mirror_bot bots on host")
            #expect(log.allSatisfy { abs(($0.at ?? .distantPast).timeIntervalSinceNow) < 60 })
            #expect(try await registry.auditLog(limit: 1).map(\.action) == ["signed in"])
            _ = try await registry.heartbeat("p1", liveness: 30)
            _ = try await registry.heartbeat("p2", liveness: 30)
            #expect(Set(try await registry.processes(liveness: 30).map(\.id)) == ["p1", "p2"])
            try await registry.release(for: "p1")
            #expect(try await registry.processes(liveness: 30).map(\.id) == ["p2"])
            _ = try await registry.add(name: "alice", network: "mastodon", sealedSettings: Data([1]))
            let added = try #require(try await registry.bot(named: "alice")?.createdAt)
            #expect(abs(added.timeIntervalSinceNow) < 60)
            // A pause changed only while it is still what was read.
            #expect(try await registry.setPaused("alice", reason: "paused by its person", ifStill: nil))
            #expect(try await !registry.setPaused("alice", reason: "stopped: a failure", ifStill: nil), "a person's pause is not overwritten")
            #expect(try await registry.bot(named: "alice")?.pauseReason == "paused by its person")
            #expect(try await registry.setPaused("alice", reason: nil, ifStill: "paused by its person"))
            try await registry.forgetName(of: "alice")
            #expect(try await registry.auditLog(limit: 10).allSatisfy { $0.bot == nil }, "a deleted bot's name forgotten")
        }
    }
}
