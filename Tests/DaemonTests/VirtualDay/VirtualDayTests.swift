import Foundation
import ScriptedNetwork
import Testing

/// The whole daemon, every service at once, through whole days on the virtual clock: seeded days on X-like,
/// Mastodon-like and Misskey-like networks (the last with no idempotency at all), plain, with faults of every kind,
/// with graceful restarts and SIGKILLs at random moments.
/// Each day must pass `VirtualDayChecks` exactly. A failing day names its seed; `VIRTUAL_DAY_SEEDS=17` (or `17,40-45`)
/// runs just those.
@Suite("The daemon's days on the virtual clock")
struct VirtualDayTests {
    /// The seeds run: `VIRTUAL_DAY_SEEDS`, else 1 through 216.
    static var seeds: [UInt64] {
        guard let text = ProcessInfo.processInfo.environment["VIRTUAL_DAY_SEEDS"], !text.isEmpty else { return Array(1...216) }
        return text.split(separator: ",").flatMap { part -> [UInt64] in
            let bounds = part.split(separator: "-").compactMap { UInt64($0.trimmingCharacters(in: .whitespaces)) }
            return bounds.count == 2 ? Array(bounds[0]...bounds[1]) : bounds
        }
    }

    /// One day's result: its problems, its faults, and a summary.
    struct DayResult: Sendable {
        var day: VirtualDay
        var problems: [String]
        var faults: [Fault: Int]
        var posted: Int
        var answered: Int
        var likes: Int
        var advances: Int
        var log: [String]
        /// Network writes not sent because the process's lease lapsed first (a stalled process, running again).
        var fencedWrites: Int = 0
    }

    static func run(_ seed: UInt64) async -> DayResult {
        let day = VirtualDay(seed: seed)
        do {
            let outcome = try await day.run()
            let problems = try await VirtualDayChecks(outcome: outcome).problems()
            var faults: [Fault: Int] = [:]
            for call in outcome.world.calls { if let fault = call.fault { faults[fault, default: 0] += 1 } }
            let slots = try await outcome.stores.plans.slots(of: VirtualDay.day) ?? []
            return DayResult(
                day: day, problems: problems, faults: faults, posted: slots.filter { $0.state == .posted }.count,
                answered: try await outcome.stores.mentions.handledCount(state: .replied), likes: try await outcome.stores.likes.count(),
                advances: outcome.advances, log: Array(outcome.log.lines.suffix(40)),
                fencedWrites: outcome.world.calls.filter {
                    ["post", "reply", "like", "deletePost"].contains($0.operation) && $0.fault == nil && !$0.carriedOut
                }.count)
        } catch {
            return DayResult(day: day, problems: ["the day failed: \(error)"], faults: [:], posted: 0, answered: 0, likes: 0, advances: 0, log: [])
        }
    }

    @Test("Seeded days: every slot at its minute or skipped saying why, nothing twice, records equal to the network, loop guard and likes kept")
    func seededDays() async throws {
        let seeds = Self.seeds
        let started = ContinuousClock.now
        let width = max(2, ProcessInfo.processInfo.activeProcessorCount)
        var results: [DayResult] = []
        try await withThrowingTaskGroup(of: DayResult.self) { group in
            var next = seeds.makeIterator()
            for _ in 0..<width { if let seed = next.next() { group.addTask { await Self.run(seed) } } }
            while let result = try await group.next() {
                results.append(result)
                if let seed = next.next() { group.addTask { await Self.run(seed) } }
            }
        }
        for result in results.sorted(by: { $0.day.seed < $1.day.seed }) where !result.problems.isEmpty {
            Issue.record(
                """
                \(result.day) (run it alone: VIRTUAL_DAY_SEEDS=\(result.day.seed)): \(result.problems.count) problems
                  \(result.problems.prefix(8).joined(separator: "\n  "))
                last log lines:
                  \(result.log.suffix(15).joined(separator: "\n  "))
                """)
        }
        let chaotic = results.filter { $0.day.faultRate > 0 }
        if seeds.count >= 100 {
            #expect(results.count == seeds.count)
            // Every kind of fault happened on the days with faults, and the days posted, answered and liked.
            let faults = chaotic.reduce(into: [Fault: Int]()) { total, result in total.merge(result.faults, uniquingKeysWith: +) }
            for fault in Fault.allCases { #expect(faults[fault, default: 0] > 0, "no \(fault) in \(chaotic.count) days with faults: \(faults)") }
            #expect(results.map(\.posted).reduce(0, +) > seeds.count * 3)
            #expect(results.map(\.answered).reduce(0, +) > seeds.count * 3)
            for flavour in [VirtualDay.Flavour.mastodonLike, .misskeyLike] {
                #expect(results.filter { $0.day.flavour == flavour }.map(\.likes).reduce(0, +) > 0, "no like on the \(flavour.name) days")
            }
            // Each network was tried with each kind of day: at most once over seeds of every network, with and without faults.
            #expect(Set(results.map { "\($0.day.flavour.name) \($0.day.faultRate > 0)" }).count == 6)
            #expect(Set(results.flatMap { $0.day.runs.map(\.stop) }).count == 3)
            // Failovers: on days whose process stalled, the stalled process ran again and its writes were refused before
            // they left (its lease had lapsed), while the process that took over went on.
            let stallDays = results.filter { $0.day.runs.contains { $0.stop == .stall } }
            #expect(stallDays.count >= 20, "\(stallDays.count) days with a failover")
            // On every flavour, the one without idempotency (Misskey-like) above all: a failover there is a post twice
            // if anything of the stalled process leaves.
            for flavour in [VirtualDay.Flavour.xLike, .mastodonLike, .misskeyLike] {
                #expect(stallDays.contains { $0.day.flavour == flavour }, "no failover on the \(flavour.name) days")
            }
            #expect(stallDays.map(\.fencedWrites).reduce(0, +) > 0, "no write of a stalled process was fenced off in \(stallDays.count) failovers")
        }
        let elapsed = ContinuousClock.now - started
        print(
            "virtual days: \(results.count) in \(elapsed) (\(results.filter { $0.day.runs.contains { $0.stop == .stall } }.count) failovers, \(results.map(\.fencedWrites).reduce(0, +)) writes fenced off; \(results.map(\.advances).reduce(0, +)) clock moves; \(results.map(\.posted).reduce(0, +)) posts, \(results.map(\.answered).reduce(0, +)) answers, \(results.map(\.likes).reduce(0, +)) likes; \(chaotic.count) days with faults)"
        )
    }

    @Test(
        "The checks see what they check: a good day doctored after the fact (a slot's post made late though its create met no fault; a slot's post made twice on the network) is found wrong, each saying so"
    )
    func checksCatchDoctoredDays() async throws {
        // A day without faults (seed 6: fault rate 0 is asserted below), whose checks find nothing.
        let outcome = try await VirtualDay(seed: 6).run()
        #expect(outcome.day.faultRate == 0, "seed 6 has faults: pick a seed without")
        let checks = VirtualDayChecks(outcome: outcome)
        let clean = try await checks.problems()
        #expect(clean.isEmpty, "\(clean)")
        let slotPost = try #require(outcome.world.botPosts.first { ($0.madeFor ?? "").hasPrefix("post:slot") }, "the day posted no slot")

        // Made 200 s after its post task began, though its create met no fault (a lateness the clock did not show).
        var late = slotPost
        late.createdAt = slotPost.createdAt.addingTimeInterval(200)
        outcome.world.add([late])
        let lateness = try await checks.problems()
        #expect(lateness.contains { $0.contains("after its post task began") }, "\(lateness)")

        // And made a second time for the same slot, with the same text.
        var twice = slotPost
        twice.id = (outcome.world.posts.keys.max() ?? slotPost.id) + 1
        outcome.world.add([twice])
        let doubled = try await checks.problems()
        let purpose = try #require(slotPost.madeFor)
        #expect(doubled.contains { $0.hasPrefix("\(purpose) made 2 times on the network") }, "\(doubled)")
        #expect(doubled.contains { $0.contains("posted 2 times") }, "\(doubled)")
    }

    @Test("A seed replays exactly: the same calls, at the same moments, meeting the same faults", arguments: [UInt64(6), 23])
    func replaysExactly(_ seed: UInt64) async throws {
        let first = try await VirtualDay(seed: seed).run()
        let second = try await VirtualDay(seed: seed).run()
        let calls = { (outcome: VirtualDay.Outcome) in
            outcome.world.calls.map { "\($0.at.timeIntervalSince1970) \($0.operation) \($0.key) \($0.fault?.rawValue ?? "-") \($0.carriedOut)" }
        }
        #expect(calls(first) == calls(second))
        #expect(first.world.botPosts.map { "\($0.id) \($0.text)" } == second.world.botPosts.map { "\($0.id) \($0.text)" })
        #expect(!calls(first).isEmpty)
    }
}
