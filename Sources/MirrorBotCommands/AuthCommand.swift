import BotCore
import ArgumentParser
import BotConfiguration
import Foundation
import BotAssembly
import SocialNetwork

/// `mirror_bot auth`: gets an account's access tokens.
struct AuthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth",
        abstract: "Gets an account's access token and secret for the bot (the developer portal makes them only for the app's own account).",
        subcommands: [XAuth.self]
    )
}

/// `mirror_bot auth x --account bot`: OAuth 1.0a's PIN flow on X.
struct XAuth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
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

    @Option(help: "Whose tokens: bot (the account the bot posts as) or human (the person mirrored).")
    var account: String = "bot"

    @Flag(help: "Set the two values in .env in the working directory instead of printing them.")
    var writeEnv = false

    @Option(help: "The PIN, when you have it already (else it is asked for on standard input).")
    var pin: String?

    func validate() throws {
        guard Account(rawValue: account) != nil else { throw ValidationError("--account must be bot or human, not \(account)") }
    }

    func run() async throws {
        let who = Account(rawValue: account) ?? .bot
        let environment = try EnvironmentFile.processEnvironment()
        let prefix = who.environmentPrefix
        guard let key = environment[prefix + "CONSUMER_KEY"].flatMap(Self.nonEmpty), let secret = environment[prefix + "CONSUMER_SECRET"].flatMap(Self.nonEmpty) else {
            throw ValidationError("Set \(prefix)CONSUMER_KEY and \(prefix)CONSUMER_SECRET first: the app's API key and secret (developer portal → your app → Keys and tokens).")
        }
        do {
            let authorization = try await AccountAuthorizations.x(for: who, consumerKey: key, consumerSecret: secret, environment: environment)
            print("Open this address in a browser logged in as the \(who) account (a private window is safest), approve the app, and type the PIN it shows:")
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
            let values = authorized.variables
            if writeEnv {
                let path = ".env"
                let existing = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
                try EnvironmentFile.writeSecret(EnvironmentFile.setting(values.map { ($0.name, $0.value) }, in: existing), toFile: path)
                print("Authorized @\(authorized.handle) (id \(authorized.userID)). Set \(values.map(\.name).joined(separator: " and ")) in .env (other lines kept; readable by you only).")
            } else {
                print("Authorized @\(authorized.handle) (id \(authorized.userID)). Set these (secrets: they act as @\(authorized.handle)):")
                for (name, value) in values { print("\(name)=\(value)") }
            }
        } catch let error as AuthorizationRefused {
            throw ValidationError(error.description)
        }
    }

    private static func nonEmpty(_ text: String) -> String? { text.trimmingCharacters(in: .whitespaces).isEmpty ? nil : text }
}
