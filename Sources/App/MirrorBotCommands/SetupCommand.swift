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
            Does, on the configured NETWORK, what that network's rules ask of a bot's account and the bot can do \
            itself; where the network's own settings must be used instead, `mirror_bot doctor` says where.
            """ + networksHelp("setup")
    )

    @Argument(help: "The network to set up (its NETWORK key); it must be the configured NETWORK. Omitted: the configured one.")
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
