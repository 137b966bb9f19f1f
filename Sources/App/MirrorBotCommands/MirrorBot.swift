public import ArgumentParser

/// The `mirror_bot` command: a copy of a person's X, Mastodon, Bluesky or Misskey account.
public struct MirrorBot: AsyncParsableCommand {
    /// The command's name, abstract and subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "mirror_bot",
        abstract:
            "Runs a copy of a person's X, Mastodon, Bluesky or Misskey account: posts their posts at their kind of times, answers like them, likes what they would like.",
        discussion: """
            Configuration comes from the environment (Heroku config vars) or a .env file in the working directory; \
            the real environment wins. NETWORK=x (the default), NETWORK=mastodon, NETWORK=bluesky or NETWORK=misskey chooses the network. Run \
            `mirror_bot doctor` to see what is configured and whether every store and account answers.
            """,
        subcommands: [
            StartCommand.self, MigrateCommand.self, TrainCommand.self, ImportCommand.self, ScheduleCommand.self, ClassifyCommand.self,
            DoctorCommand.self, SetupCommand.self, AuthCommand.self, ForgetCommand.self, ForgetMeCommand.self, OptOutCommand.self,
            TokenizeCommand.self, BotsCommand.self, FleetCommand.self,
        ]
    )

    /// Parsed by ArgumentParser.
    public init() {}
}
