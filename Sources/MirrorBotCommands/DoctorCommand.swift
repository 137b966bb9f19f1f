import BotCore
import Stores
import ArgumentParser
import BotAssembly
import BotConfiguration
import Daemon
import Foundation
import RedisClient
import Tokenizer
import Logging
import MastodonAPI
import XAPI
import XNetwork

/// `mirror_bot doctor`: says what is configured and whether the database, Redis and MeCab work.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Checks the configuration, both accounts, the database, the word counts (Redis or the SQLite file) and the MeCab dictionary, and says what is wrong.",
        discussion: """
            Secrets are never printed. Exits non-zero when something the bot needs does not work. Also says whether \
            the bot likes (LIKES) and why. On X: what was spent today against X_DAILY_BUDGET; checking each account \
            reads its user once, which X bills $0.010 for. On Mastodon (NETWORK=mastodon, free): whose each token is, \
            whether its scopes cover what the account needs, whether the bot account has the bot flag, and the bot's \
            instance's longest status.
            """
    )

    func run() async throws {
        let context = try CommandContext.load()
        let configuration = context.configuration
        var failures = 0
        func report(_ label: String, _ result: Result<String, any Error>) {
            switch result {
            case .success(let text): print("ok    \(label): \(text)")
            case .failure(let error): failures += 1; print("FAIL  \(label): \(error)")
            }
        }

        var xNetwork: XMirrorNetwork?
        switch configuration.network {
        case .x:
            let network = await Self.checkXAccounts(configuration, logger: context.logger, report: report)
            xNetwork = network
            let prices = network.client.usage.prices
            print("ok    X's prices: \(prices.summary)")
            print("ok    links: " + (configuration.postLinks ? "POST_LINKS=true: the person's tweets with links are posted (X bills each $\(prices.postCreateWithURL))"
                                        : "POST_LINKS=false: the person's tweets and replies with links are not posted (X bills each $\(prices.postCreateWithURL), a plain post $\(prices.postCreate))"))
        case .mastodon:
            await Self.checkMastodonAccounts(configuration, logger: context.logger, report: report)
        }
        print("ok    time zone: \(configuration.timeZone.identifier); archive keeps \(configuration.archiveRowLimit) tweets; like threshold \(configuration.calibratesFavoriteThreshold ? "auto (calibrated on the training examples)" : String(configuration.favoriteRateThreshold)), classifier \(configuration.classifier.rawValue)\(configuration.network == .x ? "; X API at \(configuration.xAPIBaseURL.absoluteString)" : "")")

        var parts: BotParts?
        do {
            parts = try BotParts(configuration: configuration, logger: context.logger)
        } catch {
            report("archive", .failure(error))
        }
        if let parts { do {
            let (pending, spend, refusals) = try await parts.withRunningAsIs { database in
                try await database.checkReachable()
                let pending = try await database.migrations.pending().count
                guard pending == 0, let xNetwork else { return (pending, nil as (cost: Double, bill: XBill)?, [XRefusals.Refusal]()) }
                try await UsageRecording.store(xNetwork.client.usage, into: parts.usageDays, runID: UUID().uuidString, command: "doctor")
                return (pending, try await UsageRecording.day(of: Date(), in: parts.usageDays), try await UsageRecording.storedRefusals(in: parts.state))
            }
            if let spend {
                print(String(format: "ok    X budget: $%.3f spent today (UTC %@) of X_DAILY_BUDGET $%.2f, by mirror_bot's count (%@; this check included)",
                             spend.cost, UsageMeter.billingDay(of: Date()), configuration.xDailyBudget, spend.bill.description))
            }
            if let xNetwork {
                xNetwork.client.refusals.restore(refusals, apps: xNetwork.client.appFingerprints)
                print("ok    " + LikingPolicy(setting: configuration.likes, network: xNetwork).statusLine)
            } else {
                print("ok    " + LikingPolicy(setting: configuration.likes, network: parts.network(as: Account.allCases).network).statusLine)
            }
            report("archive in \(parts.database.location)", .success(pending == 0 ? "reachable, migrated" : "reachable, \(pending) migration(s) pending: \(parts.migrationAdvice)"))
        } catch {
            report("archive in \(parts.database.location)", .failure(error))
        } }

        do {
            let (store, description) = try parts?.wordCounts() ?? WordCountStores.open(for: configuration)
            _ = try await store.isTrained("classifier")
            let detail = configuration.redis == nil ? "reachable" : "reachable (hiredis \(RedisConnection.hiredisVersion))"
            report("word counts in \(description)", .success(detail))
        } catch {
            report("word counts", .failure(error))
        }

        do {
            let nouns = try TweetTokenizer().nouns(in: "今日は東京で寿司を食べた")
            report("MeCab dictionary", .success("loaded; 今日は東京で寿司を食べた → \(nouns.joined(separator: " "))"))
        } catch {
            report("MeCab dictionary", .failure(error))
        }

        if failures > 0 { throw ExitCode(1) }
    }
}

extension DoctorCommand {
    /// One GET /2/users/me per account: it proves the credentials and costs no post reads.
    static func checkXAccounts(_ configuration: Configuration, logger: Logger, report: (String, Result<String, any Error>) -> Void) async -> XMirrorNetwork {
        let configured = Account.allCases.filter { ($0 == .human ? configuration.human : configuration.bot) != nil }
        let network = XMirrorNetwork.forCommand(configuration, accounts: configured, retry: .init(maxAttempts: 2), logger: logger)
        for account in Account.allCases {
            let label = "\(account) account"
            guard configured.contains(account) else {
                report(label, .failure(DoctorProblem("\(account.environmentPrefix)* credentials are not set")))
                continue
            }
            do {
                let user = try await network.whoAmI(account)
                report(label, .success("@\(user.handle) (id \(user.id)) at \(configuration.xAPIBaseURL.absoluteString)"))
            } catch {
                report(label, .failure(error))
            }
        }
        return network
    }

    /// Each Mastodon token: whose it is (verify_credentials), the scopes of its application (apps/verify_credentials)
    /// against what the account needs, the bot flag of the bot account, and the bot's instance's longest status.
    static func checkMastodonAccounts(_ configuration: Configuration, logger: Logger, report: (String, Result<String, any Error>) -> Void) async {
        let client = BotParts.mastodonClient(configuration, logger: logger)
        for account in Account.allCases {
            let label = "\(account) account"
            guard let settings = account == .human ? configuration.humanMastodon : configuration.botMastodon else {
                report(label, .failure(DoctorProblem("\(account.environmentPrefix)MASTODON_URL and \(account.environmentPrefix)MASTODON_TOKEN are not set")))
                continue
            }
            let user: MastodonAccount
            do {
                user = try await client.send(VerifyCredentials(), as: account)
                report(label, .success("@\(user.acct) (id \(user.id)) at \(settings.instance.absoluteString)"))
            } catch {
                report(label, .failure(error))
                continue
            }
            let needed = MastodonScopes.needed(by: account, liking: configuration.likes != .off)
            do {
                let application = try await client.send(VerifyAppCredentials(), as: account)
                if let scopes = application.scopes {
                    let missing = MastodonScopes.missing(needed, from: scopes)
                    report("\(account) token's scopes", missing.isEmpty
                           ? .success("\(scopes.joined(separator: " ")) (needs \(needed.joined(separator: ", ")))")
                           : .failure(DoctorProblem("the application \"\(application.name)\" has \(scopes.joined(separator: " ")), without \(missing.joined(separator: ", ")): on the \(account)'s account make a new one in Preferences → Development with \(needed.joined(separator: ", ")), and set its token")))
                } else {
                    print("ok    \(account) token's scopes: the instance does not say them (Mastodon before 4.3); the \(account) needs \(needed.joined(separator: ", "))")
                }
            } catch {
                report("\(account) token's scopes", .failure(error))
            }
            guard account == .bot else { continue }
            report("bot flag", user.bot ? .success("@\(user.acct) says it is automated")
                   : .failure(DoctorProblem("@\(user.acct) is not marked as automated: in Preferences → Profile tick \"This is an automated account\" (Mastodon shows the bot flag; many instances require it)")))
            do {
                let instance = try await client.send(GetInstance(), as: Account.bot)
                print("ok    bot's instance: \(instance.domain) takes statuses of up to \(instance.configuration.statuses.maxCharacters) characters; longer ones are not posted; visibility \(configuration.postVisibility.rawValue)")
            } catch {
                report("bot's instance", .failure(error))
            }
        }
        print("ok    network: Mastodon (NETWORK=mastodon): free, nothing billed")
    }
}

/// The OAuth scopes each account's token needs on Mastodon.
enum MastodonScopes {
    /// The person's token reads; the bot's reads, posts and (when it likes) favourites.
    static func needed(by account: Account, liking: Bool) -> [String] {
        account == .human ? ["read"] : ["read", "write:statuses"] + (liking ? ["write:favourites"] : [])
    }

    /// What of `needed` `granted` lacks: a scope is covered by itself or its parent (`read` covers `read:statuses`;
    /// `write` covers `write:favourites`).
    static func missing(_ needed: [String], from granted: [String]) -> [String] {
        needed.filter { scope in
            !granted.contains(scope) && !granted.contains(String(scope.split(separator: ":").first ?? ""))
        }
    }
}

/// A doctor finding that is not an error thrown by a store.
struct DoctorProblem: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
