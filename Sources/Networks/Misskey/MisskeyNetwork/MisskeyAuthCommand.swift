public import ArgumentParser
import BotConfiguration
import Foundation
import Logging
public import SignIn
import SocialNetwork

/// `mirror_bot auth misskey --account bot`: MiAuth on the account's instance.
public struct MisskeyAuth: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "misskey",
        abstract: "Authorizes mirror_bot for a Misskey account through MiAuth and prints the account's MISSKEY_URL and MISSKEY_TOKEN.",
        discussion: """
            The instance is BOT_MISSKEY_URL (or HUMAN_ with --account human) from the environment or .env, or \
            --instance. Prints an address: open it in a browser logged in as the account (log out first, or use a \
            private window), check the permissions it asks for (the bot: read:account, write:notes and, to like, \
            write:reactions; the person: read:account and read:reactions) and press "Allow"; then press Enter here. \
            Prints BOT_MISSKEY_URL and BOT_MISSKEY_TOKEN, or with --write-env sets them in .env (other lines kept). \
            The token is a secret: it acts as the account. A token can also be made by hand in Settings → API.
            """
    )

    @OptionGroup public var signIn: AuthAccountOptions

    /// Parsed by ArgumentParser.
    public init() {}

    @Option(help: "The account's instance, such as https://misskey.io (default: BOT_MISSKEY_URL or HUMAN_MISSKEY_URL).")
    public var instance: String?

    @Flag(help: "Ask for no reactions permission (the bot will not like: LIKES=off).")
    public var noLikes = false

    public func run() async throws {
        let who = signIn.who
        let environment = try EnvironmentFile.processEnvironment()
        let url = try SignInSteps.instance(instance, of: who, network: "MISSKEY", example: "https://misskey.io", environment: environment)
        do {
            let authorization = try MisskeyAccountAuthorization(for: who, instance: url, liking: !noLikes, logger: Logger(label: "mirror_bot.auth"))
            print(
                "Open this address in a browser logged in as the \(who) account (a private window is safest), press \"Allow\", then press Enter here:"
            )
            print(authorization.address.absoluteString)
            fflush(nil)  // the address must be out before the wait, also when standard output is a pipe
            let authorized = try await SignInSteps.askOnTerminal(
                prompt: "Press Enter once you have allowed it: ", refusedLabel: "Not yet",
                noAnswer: "No approval was confirmed: run the command again, allow the app on the page, and press Enter.",
                finish: { _ in try await authorization.finish(code: "") })
            try await SignInDeliveries.required().deliver(
                authorized, as: who, network: "misskey", how: "MiAuth", writeEnv: signIn.writeEnv, environment: environment, keeping: nil)
        } catch let error as AuthorizationRefused {
            throw ValidationError(error.description)
        }
    }
}
