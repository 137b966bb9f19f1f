public import ArgumentParser
import BotConfiguration
import Foundation
import Logging
public import SignIn
import SocialNetwork

/// `mirror_bot auth mastodon --account bot`: OAuth 2's authorization code flow with PKCE on the account's instance.
public struct MastodonAuth: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "mastodon",
        abstract: "Authorizes mirror_bot for a Mastodon account (OAuth 2 with PKCE) and prints the account's MASTODON_URL and MASTODON_TOKEN.",
        discussion: """
            The instance is BOT_MASTODON_URL (or HUMAN_ with --account human) from the environment or .env, or \
            --instance. mirror_bot registers itself there as an application asking for only what the account needs \
            (the bot: read, write:statuses and, to like, write:favourites; the person: read), and prints an address: \
            open it in a browser, sign in as the account (the page asks for it even when the browser is signed in as \
            another: a private window is safest), check the permissions and press "Authorize". The instance then \
            shows a code: paste it here. Prints BOT_MASTODON_URL and BOT_MASTODON_TOKEN, or with --write-env sets them \
            in .env (other lines kept; the file readable by you only). For the person, records their consent in the \
            store. The token is a secret: it acts as the account. \
            A code works once and for 10 minutes, only with this run: each run registers the application anew with a \
            new PKCE secret. The application is listed under Preferences → Account → Authorized apps, where the \
            token can be revoked. A token made by hand in Preferences → Development works too.
            """
    )

    @OptionGroup public var signIn: AuthAccountOptions

    /// Parsed by ArgumentParser.
    public init() {}

    @Option(help: "The account's instance, such as https://mastodon.social (default: BOT_MASTODON_URL or HUMAN_MASTODON_URL).")
    public var instance: String?

    @Option(
        help:
            "The code, instead of asking for it on standard input. Only a code for the address this same run prints is accepted (each run registers anew), never one from an earlier run."
    )
    public var code: String?

    @Flag(help: "Ask for no favourites scope (the bot will not like: LIKES=off).")
    public var noLikes = false

    public func run() async throws {
        let who = signIn.who
        let environment = try EnvironmentFile.processEnvironment()
        let url = try SignInSteps.instance(instance, of: who, network: "MASTODON", example: "https://mastodon.social", environment: environment)
        do {
            let authorization = try await MastodonAccountAuthorization.begin(
                for: who, instance: url, liking: !noLikes, logger: Logger(label: "mirror_bot.auth"))
            print(
                "Open this address in a browser, sign in as the \(who) account (a private window is safest), press \"Authorize\", and paste the code the page shows:"
            )
            print(authorization.address.absoluteString)
            fflush(nil)  // the address must be out before the wait, also when standard output is a pipe
            let authorized = try await finish(authorization)
            try await SignInDeliveries.required().deliver(
                authorized, as: who, network: "mastodon", how: "OAuth 2 with PKCE", writeEnv: signIn.writeEnv, environment: environment, keeping: nil)
        } catch let error as AuthorizationRefused {
            throw ValidationError(error.description)
        }
    }

    /// The code from `--code`, or typed: up to three tries, as a code pasted short or with a stray character can be
    /// pasted again (a refused code stays valid on the instance until it is used or expires).
    private func finish(_ authorization: any PendingAuthorization) async throws -> AuthorizedAccount {
        if let code { return try await authorization.finish(code: code) }
        return try await SignInSteps.askOnTerminal(
            prompt: "Code: ", refusedLabel: "Not accepted",
            noAnswer: "No code was given: run the command again and paste the code the page shows after \"Authorize\".",
            finish: { typed in try await authorization.finish(code: typed) })
    }
}
