public import ArgumentParser
import NetworkRegistry
import SignIn

/// The `mirror_bot` command: a copy of a person's account, on any network of the registry.
public struct MirrorBot: AsyncParsableCommand {
    /// The command's name, abstract and subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "mirror_bot",
        abstract:
            "Runs a copy of a person's \(networkNames) account: posts their posts at their kind of times, answers like them, likes what they would like.",
        discussion: """
            Configuration comes from the environment (Heroku config vars) or a .env file in the working directory; \
            the real environment wins. \(networkChoices) chooses the network. Run \
            `mirror_bot doctor` to see what is configured and whether every store and account answers.
            """,
        subcommands: [
            StartCommand.self, MigrateCommand.self, TrainCommand.self, ImportCommand.self, ScheduleCommand.self, ClassifyCommand.self,
            DoctorCommand.self, SetupCommand.self, AuthCommand.self, ForgetCommand.self, ForgetMeCommand.self, OptOutCommand.self,
            TokenizeCommand.self, BotsCommand.self, FleetCommand.self, WebCommand.self,
        ]
    )

    /// The registry's networks by name: "X, Mastodon, Bluesky or Misskey".
    static var networkNames: String {
        let names = NetworkRegistry.networks.map(\.name)
        return names.count > 1 ? names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1] : names.joined()
    }

    /// "NETWORK=x (the default), NETWORK=mastodon, … or NETWORK=misskey".
    static var networkChoices: String {
        let keys = NetworkRegistry.networks.enumerated().map { "NETWORK=\($1.key)" + ($0 == 0 ? " (the default)" : "") }
        return keys.count > 1 ? keys.dropLast().joined(separator: ", ") + " or " + keys[keys.count - 1] : keys.joined()
    }

    /// Parsed by ArgumentParser.
    public init() {}

    /// Runs the command line `arguments` (the process's when nil), the networks' sign-in commands delivering what they
    /// sign in through this application (its stores, the person's consent).
    public static func runCommandLine(_ arguments: [String]? = nil) async {
        await SignInDeliveries.$current.withValue(AuthDelivery()) { await main(arguments) }
    }
}
