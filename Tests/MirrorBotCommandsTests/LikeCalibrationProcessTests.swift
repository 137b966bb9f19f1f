import BotConfiguration
import FakeX
import Foundation
import Logging
import Stores
import TestSupport
import Testing

/// The like calibration through the binary, as a user meets it: `train classifier` with the default
/// FAVORITE_RATE_THRESHOLD=auto prints the chosen threshold, `classify --stats` shows it, `train rebuild` recomputes
/// the counts from the stored examples and calibrates again to the same choice.
@Suite("mirror_bot: likes calibrated on the training examples")
struct LikeCalibrationProcessTests {
    @Test("train classifier calibrates, classify --stats shows it, train rebuild keeps it; a number turns it off")
    func calibrateStatsRebuild() async throws {
        let persona = PersonaDayProcessTests.persona()
        let server = FakeXServer(seed: persona.seed, logger: Logger(label: "calibration", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await TestServers.withTemporaryFolder { folder in
            try await server.withRunning { base in
                var environment = try PersonaDayProcessTests.environment(
                    persona, base: base, database: nil, prefix: "",
                    data: folder.appending(path: "bot.sqlite").path)
                environment["FAVORITE_RATE_THRESHOLD"] = nil  // the default: auto
                environment["LIKES"] = "on"  // the filter is trained from X only for a bot that likes
                let trained = try await MirrorBotProcess.run(["train", "classifier", "--yes"], environment: environment)
                #expect(trained.status == 0, "\(trained.standardError)")
                let lines = trained.standardOutput.split(separator: "\n").map(String.init)
                #expect(lines.count == 2, "\(trained.standardOutput)")
                #expect(lines.first?.hasPrefix("Learned ") == true && lines.first?.contains("API calls") == true)
                let calibration = try #require(lines.last)
                #expect(calibration.hasPrefix("Like threshold "), "\(calibration)")
                #expect(calibration.contains("chosen by 5-fold cross-validation on"), "\(calibration)")

                let stats = try await MirrorBotProcess.run(["classify", "--stats"], environment: environment)
                #expect(stats.status == 0, "\(stats.standardError)")
                let chosen = calibration.dropFirst("Like ".count).dropLast()  // "threshold 4.56 (binary model), chosen by ..."
                #expect(stats.standardOutput.contains("Likes: like \(chosen)."), "\(stats.standardOutput)")
                #expect(stats.standardOutput.contains("Training examples: "))

                let rebuilt = try await MirrorBotProcess.run(["train", "rebuild"], environment: environment)
                #expect(rebuilt.status == 0, "\(rebuilt.standardError)")
                #expect(rebuilt.standardOutput.hasPrefix("Rebuilt the word counts from "), "\(rebuilt.standardOutput)")
                #expect(rebuilt.standardOutput.contains("Like \(chosen)."), "the same counts give the same choice: \(rebuilt.standardOutput)")

                // A number keeps the original decision, and says so.
                environment["FAVORITE_RATE_THRESHOLD"] = "2"
                let fixed = try await MirrorBotProcess.run(["classify", "--stats"], environment: environment)
                #expect(
                    fixed.standardOutput.contains("Likes: like threshold 2.0 (FAVORITE_RATE_THRESHOLD), original model."), "\(fixed.standardOutput)")
            }
        }
    }

    @Test("train rebuild with no stored examples refuses with one line and changes nothing")
    func rebuildWithoutExamples() async throws {
        try await TestServers.withTemporaryFolder { folder in
            let environment = ["MIRROR_BOT_DATA": folder.appending(path: "bot.sqlite").path]
            let result = try await MirrorBotProcess.run(["train", "rebuild"], environment: environment)
            #expect(result.status != 0)
            #expect(result.standardError.contains("No training examples are stored"), "\(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1)
        }
    }
}
