public import ArgumentParser
import BotConfiguration
public import BotCore
public import Foundation

/// What every network's `auth` subcommand is told: whose account, and whether the values go to `.env`.
public struct AuthAccountOptions: ParsableArguments {
    @Option(help: "Whose: bot (the account the bot posts as) or human (the person mirrored; their consent is recorded).")
    public var account: String = "bot"

    @Flag(help: "Set the values in .env in the working directory (readable by you only) instead of printing them.")
    public var writeEnv = false

    /// Parsed by ArgumentParser.
    public init() {}

    /// Refuses an account that is neither bot nor human.
    public func validate() throws {
        guard Account(rawValue: account) != nil else { throw ValidationError("--account must be bot or human, not \(account)") }
    }

    /// The account, once validated.
    public var who: Account { Account(rawValue: account) ?? .bot }
}

/// Steps the networks' sign-in commands share.
public enum SignInSteps {
    /// The instance of `who`'s account: `option`, else `<PREFIX>_<NETWORK>_URL` of `environment` (`network`: `MASTODON`).
    public static func instance(_ option: String?, of who: Account, network: String, example: String, environment: [String: String]) throws -> URL {
        let urlName = who.environmentPrefix + network + "_URL"
        guard let text = option ?? environment[urlName], let url = EnvironmentReader.apiBaseURL(text) else {
            throw ValidationError(
                "Give the \(who) account's instance: --instance \(example), or set \(urlName) (https://, plain http:// only for localhost).")
        }
        return url
    }

    /// `text` without surrounding spaces, or nil when nothing is left.
    public static func nonEmpty(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? nil : trimmed
    }
}
