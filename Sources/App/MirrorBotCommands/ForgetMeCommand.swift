import ArgumentParser
import BotAssembly
import Consent
import Daemon
import Foundation
import Training

/// `mirror_bot forget-me`: the person's mirror ended, and everything learned from them deleted.
struct ForgetMeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget-me",
        abstract: "Ends the mirror and deletes everything learned from the person: archive, word counts, training examples, plans, likes, tokens.",
        discussion: """
            For the person who wants out (they can also say "forget me" or 「ミラー終了」 to the bot from their own account, \
            or revoke the app on their network: each ends the mirror). At once the consent record is marked withdrawn \
            and everything stops: a running `mirror_bot start` posts, answers, likes and learns nothing more. Then every \
            row learned from the person or made from it is deleted from the store (Postgres schema or SQLite file) and \
            every word-count key of this bot (Redis, or the SQLite file). The counts are printed before and after. What \
            is kept proves the end: the consent record (when and how it ended), the accounts that opted out, the \
            network's refusals. With --delete-posts the bot's own posts made from the person's are deleted on the \
            network first. Only a new sign-in of the person (`mirror_bot auth <network> --account human`) starts a \
            mirror again.
            """ + networksHelp("forget-me")
    )

    @Flag(
        help:
            "Also delete the bot's posts made from the person's on the network (needs the bot's credentials; billed where the network bills deletions)."
    )
    var deletePosts = false

    @Flag(help: "Do it without asking (required when standard input is not a terminal).")
    var yes = false

    func run() async throws {
        let context = try CommandContext.load(requiring: deletePosts ? [.botCredentials] : [])
        let parts = try BotParts(configuration: context.configuration, logger: context.logger)
        let (deletePosts, yes, logger) = (deletePosts, yes, context.logger)
        try await parts.withRunning { parts in
            let consent = try await ConsentRecords(state: parts.state).current()
            let before = try await parts.database.retention.personRecords()
            let who =
                consent.map { "@\($0.personHandle) (\($0.personAccount) on \($0.network))" } ?? "the person (no consent record: they never signed in)"
            print("Forgetting \(who) in \(parts.database.location): \(Self.rows(before)).")
            if !yes {
                guard isatty(STDIN_FILENO) != 0 else {
                    throw ValidationError("forget-me deletes everything learned from the person and cannot be undone: run it again with --yes.")
                }
                FileHandle.standardError.write(Data("Delete all of it, for good? [y/N] ".utf8))
                guard ["y", "yes"].contains((readLine() ?? "").trimmingCharacters(in: .whitespaces).lowercased()) else {
                    print("Nothing was deleted.")
                    return
                }
            }
            let classifier = try parts.classifier()
            let withdrawal = PersonWithdrawal(state: parts.state, retention: parts.database.retention, wordCounts: classifier.store, logger: logger)
            // Everything stops first: a running bot reads the end before its next act.
            try await withdrawal.stop(at: Date(), how: "mirror_bot forget-me")
            if deletePosts {
                let network = parts.network(as: [.bot])
                let forgetter = Forgetter(archive: parts.archive, examples: parts.examples, classifier: classifier, network: network.network)
                var (deleted, gone, failed) = (0, 0, 0)
                for original in try await parts.archive.copiedOriginals(since: .distantPast) {
                    let report = try await forgetter.forget(original)
                    deleted += report.copiesDeleted.count
                    gone += report.copiesAlreadyGone.count
                    failed += report.copiesFailed.count
                }
                try await network.recordUsage(into: parts.usageDays, command: "forget-me")
                print(
                    "The bot's posts made from the person's: \(deleted) deleted on \(network.network.name), \(gone) already gone, \(failed) could not be deleted now.\(network.billLine)"
                )
            }
            let forgotten = try await withdrawal.forget()
            let after = try await parts.database.retention.personRecords()
            print("Deleted \(forgotten.summary).")
            print("Left: \(Self.rows(after)); the consent record is kept, marked withdrawn, to prove the end.")
        }
    }

    /// "12 rows: posts 10, bot_state 2" or "0 rows".
    static func rows(_ counts: [String: Int]) -> String {
        let total = counts.values.reduce(0, +)
        let detail = counts.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return "\(total) rows" + (detail.isEmpty ? "" : ": \(detail)")
    }
}
