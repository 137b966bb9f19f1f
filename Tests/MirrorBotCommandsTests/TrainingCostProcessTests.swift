import FakeX
import Foundation
import Logging
import TestSupport
import Testing
import XAPI

@testable import MirrorBotCommands

@Suite("Training says what it will cost, and asks")
struct TrainingCostTests {
    @Test("--yes spends; a terminal asks; with neither, only what fits what is left of today's budget is spent")
    func approval() {
        func decide(estimate: Double, remaining: Double = 1, isTerminal: Bool = false, yes: Bool = false, answer: Bool = false) -> SpendingApproval {
            SpendingApproval.decide(
                estimate: estimate, remaining: remaining, budget: 1, command: "train scheduler", isTerminal: isTerminal,
                assumeYes: yes
            ) { answer }
        }
        #expect(decide(estimate: 3.21, yes: true) == .proceed("--yes given"))
        #expect(decide(estimate: 3.21, isTerminal: true, answer: true) == .proceed("confirmed"))
        guard case .refuse(let no) = decide(estimate: 0.01, isTerminal: true, answer: false) else {
            Issue.record("a no was not a refusal")
            return
        }
        #expect(no.contains("nothing was read"))
        guard case .proceed = decide(estimate: 0.91, remaining: 1) else {
            Issue.record("within the budget was refused")
            return
        }
        guard case .refuse(let over) = decide(estimate: 0.91, remaining: 0.5) else {
            Issue.record("over the budget went on")
            return
        }
        #expect(over.contains("could cost up to $0.91, more than what is left of today's X_DAILY_BUDGET ($0.50 of $1.00)"))
        #expect(over.contains("--yes") && over.contains("--max-posts") && over.contains("mirror_bot import"))
    }
}

@Suite("mirror_bot train and X's bill", .serialized)
struct TrainingCostProcessTests {
    /// A bot on fake X whose person signed in before (`signedIn`; else their configured tokens are yet to be verified).
    static func withBot(signedIn: Bool = true, _ body: (FakeXServer, [String: String]) async throws -> Void) async throws {
        let server = FakeXServer(seed: StartProcessTests.seed, logger: Logger(label: "cost", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await TestServers.withTemporaryFolder { folder in
            try await server.withRunning { base in
                var environment = DoctorProcessTests.environment(base, botSecret: "bts")
                environment.merge([
                    "HUMAN_ACCESS_TOKEN": "1-t", "BOT_ACCESS_TOKEN": "2-t", "TZ": "Asia/Tokyo",
                    "MIRROR_BOT_DATA": folder.appending(path: "bot.sqlite").path,
                ]) { $1 }
                if signedIn { try await MirrorBotProcess.personSignedIn(environment) }
                try await body(server, environment)
            }
        }
    }

    @Test(
        "train scheduler with no terminal says what it may cost first (verifying the person's configured tokens included), and refuses when that exceeds the budget: nothing read, not even who they are"
    )
    func refusesOverBudget() async throws {
        try await Self.withBot(signedIn: false) { server, environment in
            let result = try await MirrorBotProcess.run(["train", "scheduler"], environment: environment)
            #expect(result.status != 0)
            #expect(
                result.standardError.contains(
                    "train scheduler reads from X, at most $3.22: up to 3200 of your own posts at $0.001 (owned reads), your user once at $0.010, the person's sign-in verified once at $0.010."
                ),
                "\(result.standardError)")
            #expect(result.standardError.contains("more than what is left of today's X_DAILY_BUDGET ($1.00 of $1.00)"))
            #expect(await server.requestCounts().isEmpty)
        }
    }

    @Test("Within the budget it goes on and prints X's bill; the spend counts in today's budget for the next command; --yes spends over it")
    func withinBudgetAndYes() async throws {
        try await Self.withBot { server, environment in
            let result = try await MirrorBotProcess.run(["train", "scheduler", "--max-tweets", "500"], environment: environment)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardError.contains("at most $0.51"))
            // 30 own posts at $0.001 and the human's user at $0.010, as fake X billed them too.
            #expect(
                result.standardOutput.contains("X's bill by mirror_bot's count $0.040 (30 own posts read, 1 users read)"), "\(result.standardOutput)")
            let billed = await server.billing().reduce(0.0) { $0 + XPriceList.current.cost(of: $1.bill) }
            #expect(abs(billed - 0.040) < 1e-9)

            // Today's spend is stored: with a budget of $0.50 the next run (at most $0.51 + $0.04 spent) is refused.
            var tight = environment
            tight["X_DAILY_BUDGET"] = "0.50"
            let refused = try await MirrorBotProcess.run(["train", "scheduler", "--force", "--max-posts", "460"], environment: tight)
            #expect(refused.status != 0)
            #expect(refused.standardError.contains("more than what is left of today's X_DAILY_BUDGET ($0.46 of $0.50)"), "\(refused.standardError)")
            let yes = try await MirrorBotProcess.run(["train", "scheduler", "--force", "--yes"], environment: tight)
            #expect(yes.status == 0, "\(yes.standardError)")
            #expect(yes.standardError.contains("Going on (--yes given)"))

            let doctor = try await MirrorBotProcess.run(["doctor"], environment: environment)
            // $0.040 twice (the posts are billed again: another run of the same day is a new count here, as restarts
            // are), and doctor's two users.
            #expect(doctor.standardOutput.contains("ok    X budget: $0.100 spent today"), "\(doctor.standardOutput)")
            #expect(doctor.standardOutput.contains("ok    likes: off (LIKES=auto: X's self-serve"))
            #expect(doctor.standardOutput.contains("ok    X's prices: own posts read $0.001"))
        }
    }

    @Test("On a terminal it asks: no reads nothing, yes goes on")
    func asksOnATerminal() async throws {
        try await Self.withBot { server, environment in
            // `script` gives the command a terminal, as a person running it has.
            func onTerminal(_ answer: String) async throws -> MirrorBotProcess.Output {
                let binary = try MirrorBotProcess.executable.path
                return try await MirrorBotProcess.run(
                    ["-qec", "\(binary) train scheduler", "/dev/null"], environment: environment,
                    input: answer + "\n", executable: URL(fileURLWithPath: "/usr/bin/script"))
            }
            let no = try await onTerminal("n")
            #expect(no.standardOutput.contains("Spend up to $3.21 of X credits? [y/N]"), "\(no.standardOutput)")
            #expect(no.standardOutput.contains("Not spending it: nothing was read."))
            #expect(await server.requestCounts().isEmpty)
            let yes = try await onTerminal("y")
            #expect(yes.standardOutput.contains("Archived 30 new posts"), "\(yes.standardOutput)")
        }
    }

    @Test("train classifier with LIKES=auto reads nothing and says why; with LIKES=on it learns from X")
    func classifierFollowsLikes() async throws {
        try await Self.withBot { server, environment in
            let skipped = try await MirrorBotProcess.run(["train", "classifier"], environment: environment)
            #expect(skipped.status == 0, "\(skipped.standardError)")
            #expect(
                skipped.standardOutput.contains(
                    "The bot does not like on X (LIKES=auto: X's self-serve (pay-per-use) access has had no likes endpoints"))
            #expect(skipped.standardOutput.contains("nothing was read, $0.00 spent"))
            #expect(skipped.standardOutput.contains("`mirror_bot import` learns the likes in your downloaded archive for free"))
            #expect(await server.requestCounts().isEmpty)

            var on = environment
            on["LIKES"] = "on"
            let refused = try await MirrorBotProcess.run(["train", "classifier"], environment: on)
            #expect(refused.status != 0 && refused.standardError.contains("at most $20.81"), "\(refused.standardError)")
            let trained = try await MirrorBotProcess.run(["train", "classifier", "--yes"], environment: on)
            #expect(trained.status == 0, "\(trained.standardError)")
            #expect(trained.standardOutput.hasPrefix("Learned 0 likes as favorite"), "\(trained.standardOutput)")
            #expect(await server.requestCounts()["GET /2/users/:id/liked_tweets"] == 1)
        }
    }
}
