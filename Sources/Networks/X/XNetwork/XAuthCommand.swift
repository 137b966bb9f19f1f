public import ArgumentParser
import BotConfiguration
import Foundation
public import SignIn
import SocialNetwork

/// `mirror_bot auth x --account bot`: OAuth 1.0a's PIN flow on X.
public struct XAuth: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "x",
        abstract: "Authorizes the app for an X account with a PIN and prints the account's ACCESS_TOKEN and ACCESS_TOKEN_SECRET.",
        discussion: """
            Uses the app's API key and secret from BOT_CONSUMER_KEY and BOT_CONSUMER_SECRET (or HUMAN_ with \
            --account human), from the environment or .env. Prints an address: open it in a browser logged in as the \
            account to authorize (log out first, or use a private window), approve the app, and type the PIN X shows. \
            Prints the two values for BOT_ACCESS_TOKEN and BOT_ACCESS_TOKEN_SECRET, or with --write-env sets them in \
            .env (other lines kept). The tokens are secrets: they act as the account. Reads no posts and costs nothing.
            """
    )

    @OptionGroup public var signIn: AuthAccountOptions

    /// Parsed by ArgumentParser.
    public init() {}

    @Option(help: "The PIN, when you have it already (else it is asked for on standard input).")
    public var pin: String?

    public func run() async throws {
        let who = signIn.who
        let environment = try EnvironmentFile.processEnvironment()
        let prefix = who.environmentPrefix
        guard let key = environment[prefix + "CONSUMER_KEY"].flatMap(SignInSteps.nonEmpty),
            let secret = environment[prefix + "CONSUMER_SECRET"].flatMap(SignInSteps.nonEmpty)
        else {
            throw ValidationError(
                "Set \(prefix)CONSUMER_KEY and \(prefix)CONSUMER_SECRET first: the app's API key and secret (developer portal → your app → Keys and tokens)."
            )
        }
        do {
            var reader = EnvironmentReader(environment: environment)
            let baseURL = reader.apiBaseURL("X_API_BASE_URL", default: XNetworkSettings.defaultBaseURL, example: "https://api.x.com")
            if !reader.problems.isEmpty { throw ConfigurationError(problems: reader.problems) }
            let authorization = try await XAccountAuthorization.begin(for: who, consumerKey: key, consumerSecret: secret, baseURL: baseURL)
            print(
                "Open this address in a browser logged in as the \(who) account (a private window is safest), approve the app, and type the PIN it shows:"
            )
            print(authorization.address.absoluteString)
            // Standard output is a pipe when a script drives this: the address must be out before the wait for the PIN.
            fflush(nil)  // every output stream
            var typed = pin
            if typed == nil {
                FileHandle.standardError.write(Data("PIN: ".utf8))
                typed = readLine()
            }
            guard let typed, !typed.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw ValidationError("No PIN was given: run the command again and type the PIN the page shows.")
            }
            let authorized = try await authorization.finish(code: typed)
            try await SignInDeliveries.required().deliver(
                authorized, as: who, network: "x", how: "OAuth 1.0a with a PIN", writeEnv: signIn.writeEnv, environment: environment, keeping: nil)
        } catch let error as AuthorizationRefused {
            throw ValidationError(error.description)
        }
    }

}
