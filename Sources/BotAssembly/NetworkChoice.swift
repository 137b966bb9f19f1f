public import BotConfiguration
public import BotCore
import Foundation
public import Logging
import MastodonAPI
import MastodonNetwork
public import SocialNetwork
import XNetwork

// The network is chosen here, once: `NETWORK` names a module, built from its own section of the configuration;
// everything else asks the module.
extension Configuration {
    /// The network module `NETWORK` names, with its section of the configuration.
    public var networkModule: any NetworkModule {
        switch network {
        case .x:
            XNetworkModule(settings: XNetworkSettings(human: human, bot: bot, baseURL: xAPIBaseURL, dailyBudget: xDailyBudget))
        case .mastodon:
            MastodonNetworkModule(settings: MastodonNetworkSettings(
                human: humanMastodon.map { MastodonAccess(instance: $0.instance, token: $0.token) },
                bot: botMastodon.map { MastodonAccess(instance: $0.instance, token: $0.token) },
                visibility: MastodonVisibility(rawValue: postVisibility.rawValue) ?? .unlisted, copyingWarnings: postContentWarnings))
        }
    }

    /// Whether the person's posts with links are copied: `POST_LINKS` when set, else the network's default.
    public var postLinks: Bool { postLinksSetting ?? networkModule.postsLinksByDefault }

    /// Throws one `ConfigurationError` naming every variable that `requirements` need and that is not set: the
    /// stores' (`DATABASE_URL`, `REDIS_URL`) and what the network needs for the accounts asked for.
    public func require(_ requirements: Set<Requirement>) throws {
        let accounts = Account.allCases.filter { requirements.contains($0 == .human ? .humanCredentials : .botCredentials) }
        let problems = networkModule.missingSettings(for: accounts).map {
            ConfigurationError.Problem(variable: $0.variable, isMissing: true, expected: $0.expected)
        } + missingStores(requirements)
        if !problems.isEmpty { throw ConfigurationError(problems: problems) }
    }
}

extension Configuration {
    /// The configured network opened for a one-shot command, as `accounts` (for a command that needs no store).
    public func network(as accounts: [Account], logger: Logger) -> CommandNetwork {
        networkModule.forCommand(accounts: accounts, logger: logger)
    }
}

extension BotParts {
    /// The configured network for a one-shot command, as `accounts`.
    public func network(as accounts: [Account]) -> CommandNetwork {
        configuration.network(as: accounts, logger: logger)
    }
}

/// How `mirror_bot auth` authorizes an account on each network that has a flow for it.
public enum AccountAuthorizations {
    /// OAuth 1.0a's PIN flow on X for `account`, with the app's key and secret, at `X_API_BASE_URL` of `environment`.
    public static func x(for account: Account, consumerKey: String, consumerSecret: String,
                         environment: [String: String]) async throws -> any PendingAuthorization {
        let baseURL = environment["X_API_BASE_URL"].flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : URL(string: $0) }
            ?? Configuration.defaultXAPIBaseURL
        return try await XAccountAuthorization.begin(for: account, consumerKey: consumerKey, consumerSecret: consumerSecret, baseURL: baseURL)
    }
}
