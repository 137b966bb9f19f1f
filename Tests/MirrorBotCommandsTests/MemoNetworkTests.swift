import BotAssembly
import BotConfiguration
import Daemon
import Foundation
import Logging
import MemoNetwork
import NetworkRegistry
import SocialNetwork
import TestSupport
import Testing
import Training

/// The memo network (`Sources/Networks/Memo`), made for tests only, added the way every network is: its folder, a
/// line where a registry lists it, and its target in Package.swift. Nothing else of the program knows it, and the
/// whole mirror runs on it.
@Suite("A network added by its folder and a registry line: the memo network")
struct MemoNetworkTests {
    /// The program's registry with the memo network registered beside the others.
    static let networks = NetworkChoices(NetworkRegistry.networks + [memoDefinition])

    @Test(
        "NETWORK=memo is refused by the program's registry, naming what it lists, and chosen by a registry that lists it; its variables are required")
    func chosenByTheRegistry() throws {
        let environment = ["NETWORK": "memo", "HUMAN_MEMO_TOKEN": "a", "BOT_MEMO_TOKEN": "b"]
        do {
            _ = try Configuration(environment: environment)
            Issue.record("the program's registry does not list the memo network")
        } catch let error as ConfigurationError {
            #expect(error.problems.map(\.variable) == ["NETWORK"])
            #expect(error.description.contains("x, mastodon, bluesky or misskey"), "\(error)")
        }
        let configuration = try Configuration(environment: environment, networks: Self.networks)
        #expect(configuration.networkModule.name == "Memo")
        #expect(configuration.postStyle == .copy)
        #expect(Configuration.variableNames(among: Self.networks).contains("HUMAN_MEMO_TOKEN"))
        #expect(!Configuration.variableNames.contains("HUMAN_MEMO_TOKEN"))

        let unset = try Configuration(environment: ["NETWORK": "memo"], networks: Self.networks)
        #expect(throws: ConfigurationError.self) { try unset.require([.botCredentials]) }
        do {
            try unset.require([.humanCredentials, .botCredentials])
        } catch let error as ConfigurationError {
            #expect(error.problems.map(\.variable) == ["HUMAN_MEMO_TOKEN", "BOT_MEMO_TOKEN"])
        }
        // The person on the memo network, the bot on Mastodon: the registry's networks combine as any two do.
        let elsewhere = try Configuration(
            environment: [
                "NETWORK": "mastodon", "HUMAN_NETWORK": "memo", "HUMAN_MEMO_TOKEN": "a", "BOT_MASTODON_URL": "https://example.social",
                "BOT_MASTODON_TOKEN": "t",
            ], networks: Self.networks)
        #expect(elsewhere.networkModule.personSignInCommand.contains("HUMAN_MEMO_TOKEN"))
        do {
            _ = try Configuration(environment: ["NETWORK": "mastodon", "HUMAN_NETWORK": "nowhere"], networks: Self.networks)
            Issue.record("HUMAN_NETWORK=nowhere was taken")
        } catch let error as ConfigurationError {
            #expect(error.description.contains("x, mastodon, bluesky, misskey or memo"), "\(error)")
        }
    }

    static let start = ISO8601DateFormatter().date(from: "2026-11-20T08:00:00Z")!

    /// A world where @alice posted 30 posts over ten mornings (09:00–11:00) and answered @carol three times.
    static func world(named name: String) -> (world: MemoWorld, posts: Set<String>, answers: Set<String>) {
        let world = MemoWorld(name: name, accounts: [("alice", "alice-token"), ("alicebot", "bot-token"), ("carol", "carol-token")])
        var posts = Set<String>()
        var answers = Set<String>()
        for day in 1...10 {
            let morning = start.addingTimeInterval(Double(-day) * 86_400 + 3_600)
            for minute in [5, 47, 112] {
                let text = "alice's morning post \(day)-\(minute): tea, then the garden"
                world.add(text, by: "alice", at: morning.addingTimeInterval(Double(minute) * 60))
                posts.insert(text)
            }
            if day <= 3 {
                let question = world.add("@alice how was the garden \(day)?", by: "carol", at: morning.addingTimeInterval(7_000))
                let answer = "@carol the roses are out, day \(day)"
                world.add(answer, by: "alice", at: morning.addingTimeInterval(7_100), replyTo: question)
                // The reply goes to her post: the bot leaves out the leading mention, as it does everywhere.
                answers.insert(String(answer.dropFirst("@carol ".count)))
            }
        }
        return (world, posts, answers)
    }

    @Test(
        "The whole mirror runs on it: the person's token verified and their consent recorded, train archives their posts, start posts them at their hours once each across a restart, and answers @carol with the person's own answer to her"
    )
    func aMorning() async throws {
        let name = "memo-\(UUID().uuidString)"
        let (world, posts, answers) = Self.world(named: name)
        let logger = Logger(label: "memo", factory: { _ in SwiftLogNoOpLogHandler() })
        try await TestServers.withTemporaryFolder { folder in
            let environment = [
                "NETWORK": "memo", "MEMO_WORLD": name, "HUMAN_MEMO_TOKEN": "alice-token", "BOT_MEMO_TOKEN": "bot-token",
                "MIRROR_BOT_DATA": folder.appending(path: "mirror.sqlite").path, "TZ": "UTC",
                // The run shares the test process's two threads with every other test: a second of theirs is 24 minutes
                // of its clock. A slot late past production's 10-minute grace would be skipped as missed; here the
                // person's own setting at its longest lets it go out late instead, so that what goes out is checked.
                "MISSED_SLOT_GRACE": "1440",
            ]
            let configuration = try Configuration(environment: environment, networks: Self.networks)
            let report = try await BotParts(configuration: configuration, logger: logger).withRunning { parts in
                let consent = try await PersonConsentGate(configuration: configuration, stores: parts.database, logger: logger)
                    .require(for: "train", now: Date())
                #expect(consent.personAccount == "alice@\(name)")
                let trainer = Trainer(
                    network: parts.network(as: [.human]).network, archive: parts.archive, classifier: try parts.classifier(),
                    personLikes: parts.database.likes, logger: logger)
                return try await trainer.trainScheduler(force: false)
            }
            #expect(report.stored == 33, "30 posts and 3 answers archived: \(report)")

            // The first start learns where mentions stand; @carol's mention comes after it, and the second start answers it.
            // At 1,440 bot seconds a real one. The run shares the test process's threads with the other tests: its stop may
            // take longer than a process's own 10 s, so it is given Heroku's 30 s, and nothing it leaves is cancelled with a
            // crash (the fleet's bots run so too). When each post goes out against its minute is proven on the virtual
            // clock (docs/testing.md); here, which posts and answers go out, once each.
            var options = DaemonRunner.Options(speed: 1_440, startTime: Self.start, duration: 3_600, handlesSignals: false, seed: 7)
            options.gracefulShutdownLimit = .seconds(30)
            options.cancellationLimit = nil
            _ = try await DaemonStart.run(configuration: configuration, options: options, logger: logger)
            let mention = world.add("@alicebot how is the garden?", by: "carol", at: Self.start.addingTimeInterval(3_600))
            options.startTime = Self.start.addingTimeInterval(3_600)
            options.duration = 3.5 * 3_600
            _ = try await DaemonStart.run(configuration: configuration, options: options, logger: logger)

            let made = world.posts.filter { $0.author == "alicebot" }
            let scheduled = made.filter { $0.replyTo == nil }
            #expect(!scheduled.isEmpty, "the person posts every morning; the bot posted nothing from 08:00 to 12:30")
            #expect(scheduled.allSatisfy { posts.contains($0.text) }, "\(scheduled.map(\.text))")
            #expect(Set(scheduled.map(\.text)).count == scheduled.count, "a post made twice: \(scheduled.map(\.text))")
            let hours = scheduled.map {
                Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: $0.createdAt).hour ?? -1
            }
            // The person posts from 09:00 to 11:59. Nothing goes out before its slot; a slot late on a starved machine
            // goes out late within MISSED_SLOT_GRACE (here a day), so up to the run's end at 12:30.
            #expect(hours.allSatisfy { (9...12).contains($0) }, "posted at the person's hours, or late within the grace: \(hours)")
            let replies = made.filter { $0.replyTo == mention }
            #expect(replies.count == 1, "\(made.map(\.text))")
            #expect(replies.allSatisfy { answers.contains($0.text) }, "\(replies.map(\.text))")
            #expect(made.count == scheduled.count + replies.count, "nothing else was posted: \(made.map(\.text))")
        }
    }
}
