import ArgumentParser
import BotAssembly
import Foundation
import SocialNetwork

/// `mirror_bot setup [NETWORK]`: sets the bot's account up as its network asks, where the API lets the bot do it.
struct SetupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "setup",
        abstract: "Sets the bot's account up as its network's rules ask, where the bot can do it itself.",
        discussion: """
            On Bluesky (NETWORK=bluesky): adds the self-label "bot" to the bot's profile, keeping every other field of \
            it (a compare-and-swap on the profile record: a profile edited meanwhile is read again). Running it again \
            changes nothing. On X and Mastodon the bot's label or flag is set in the network's own settings: \
            `mirror_bot doctor` says where.
            """
    )

    @Argument(help: "The network to set up (bluesky); it must be the configured NETWORK. Omitted: the configured one.")
    var network: String?

    func run() async throws {
        let context = try CommandContext.load()
        let module = context.configuration.networkModule
        if let network, network.lowercased() != module.name.lowercased() {
            throw ValidationError(
                "NETWORK is \(module.name.lowercased()), not \(network.lowercased()): set NETWORK=\(network.lowercased()) and that network's accounts first"
            )
        }
        let missing = module.missingSettings(for: [.bot])
        if !missing.isEmpty {
            throw ValidationError(missing.map { "\($0.variable) is not set: \($0.expected)" }.joined(separator: "; "))
        }
        guard let done = try await module.setUpBotAccount(logger: context.logger) else {
            print(
                "Nothing to set up through \(module.name)'s API: the bot's label is set in \(module.name)'s own settings (`mirror_bot doctor` says where)."
            )
            return
        }
        print(done)
    }
}
