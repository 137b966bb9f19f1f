import ArgumentParser
import BotAssembly
import BotConfiguration
import Foundation
import Training

/// `mirror_bot forget <post id or address>`.
struct ForgetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Removes one of the person's posts from the archive, the reply pool and the word counts, and deletes the bot's copies of it.",
        discussion: """
            For the person who asks that a post be forgotten (or who deleted it): at once, the post leaves the \
            archive (so it is never posted or answered with again), its training examples are removed and what they \
            taught the word counts is taken back, and every post or answer the bot made of it is deleted on the \
            network as the bot. Reads nothing. A copy that cannot be deleted now is named, and running forget again \
            tries it again. Safe while `mirror_bot start` runs.
            """ + networksHelp("forget")
    )

    @Argument(help: "The post: its id, or its address (its page on the network, ending in its id).")
    var post: String

    func validate() throws {
        guard Forgetter.postID(in: post) != nil else {
            throw ValidationError(
                "\(post) is neither a post id nor the address of a post (its page on the network, ending in its id)")
        }
    }

    func run() async throws {
        let postID = Forgetter.postID(in: post)!
        let context = try CommandContext.load(requiring: [.botCredentials])
        let parts = try BotParts(configuration: context.configuration, logger: context.logger)
        let commandNetwork = parts.network(as: [.bot])
        let report = try await parts.withRunning { parts in
            let forgetter = Forgetter(
                archive: parts.archive, examples: parts.examples, classifier: try parts.classifier(), network: commandNetwork.network)
            let report = try await forgetter.forget(postID)
            try await commandNetwork.recordUsage(into: parts.usageDays, command: "forget")
            return report
        }
        let network = commandNetwork.network.name
        guard report.foundAnything else {
            print("Post \(postID) is not in the archive, the training examples or the bot's posts: nothing to forget.")
            return
        }
        var done: [String] = []
        done.append(report.wasArchived ? "removed from the archive (and so from the reply pool)" : "not in the archive")
        if !report.examplesRemoved.isEmpty {
            let taken = report.unlearned.map { ", taken out of the word counts as \($0.rawValue)" } ?? ""
            done.append(
                "\(report.examplesRemoved.count) training example\(report.examplesRemoved.count == 1 ? "" : "s") removed (\(report.examplesRemoved.joined(separator: ", ")))\(taken)"
            )
        }
        if !report.copiesDeleted.isEmpty {
            done.append("the bot's copies deleted on \(network): \(report.copiesDeleted.map(String.init).joined(separator: ", "))")
        }
        if !report.copiesAlreadyGone.isEmpty {
            done.append("already gone from \(network): \(report.copiesAlreadyGone.map(String.init).joined(separator: ", "))")
        }
        print("Forgot post \(postID): " + done.joined(separator: "; ") + "." + commandNetwork.billLine)
        guard report.copiesFailed.isEmpty else {
            let failed = report.copiesFailed.map { "\($0.id) (\($0.why))" }.joined(separator: "; ")
            throw ValidationError("Could not delete the bot's copies \(failed); run mirror_bot forget \(postID) again to try them again.")
        }
    }
}
