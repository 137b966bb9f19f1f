import Archive
import ArgumentParser
import BotAssembly
import BotConfiguration
import Daemon
import Foundation
import RedisClient
import Tokenizer
import XAPI
import XNetwork

/// `mirror_bot doctor`: says what is configured and whether the database, Redis and MeCab work.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Checks the configuration, both X accounts, the database, the word counts (Redis or the SQLite file) and the MeCab dictionary, and says what is wrong.",
        discussion: """
            Secrets are never printed. Exits non-zero when something the bot needs does not work. Also says whether \
            the bot likes (LIKES) and why, and what was spent on X today against X_DAILY_BUDGET. Checking each account \
            reads its user once: X bills $0.010 for each.
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

        // One GET /2/users/me per account: it proves the credentials and costs no post reads.
        let configured = Account.allCases.filter { ($0 == .human ? configuration.human : configuration.bot) != nil }
        let network = XMirrorNetwork.forCommand(configuration, accounts: configured, retry: .init(maxAttempts: 2), logger: context.logger)
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
        let usage = network.client.usage
        let prices = usage.prices
        print("ok    X's prices: \(prices.summary)")
        print("ok    links: " + (configuration.postLinks ? "POST_LINKS=true: the person's tweets with links are posted (X bills each $\(prices.postCreateWithURL))"
                                    : "POST_LINKS=false: the person's tweets and replies with links are not posted (X bills each $\(prices.postCreateWithURL), a plain post $\(prices.postCreate))"))
        print("ok    time zone: \(configuration.timeZone.identifier); archive keeps \(configuration.archiveRowLimit) tweets; like threshold \(configuration.calibratesFavoriteThreshold ? "auto (calibrated on the training examples)" : String(configuration.favoriteRateThreshold)), classifier \(configuration.classifier.rawValue); X API at \(configuration.xAPIBaseURL.absoluteString)")

        var parts: BotParts?
        do {
            parts = try BotParts(configuration: configuration, logger: context.logger)
        } catch {
            report("archive", .failure(error))
        }
        if let parts { do {
            let (pending, spend, refusals) = try await parts.withRunningAsIs { database in
                try await database.checkReachable()
                let pending = try await Migrator().pending(database).count
                guard pending == 0 else { return (pending, nil as (cost: Double, bill: XBill)?, [XRefusals.Refusal]()) }
                try await UsageRecording.store(usage, into: parts.usageDays, runID: UUID().uuidString, command: "doctor")
                return (pending, try await UsageRecording.day(of: Date(), in: parts.usageDays), try await UsageRecording.storedRefusals(in: parts.state))
            }
            if let spend {
                print(String(format: "ok    X budget: $%.3f spent today (UTC %@) of X_DAILY_BUDGET $%.2f, by mirror_bot's count (%@; this check included)",
                             spend.cost, UsageMeter.billingDay(of: Date()), configuration.xDailyBudget, spend.bill.description))
            }
            network.client.refusals.restore(refusals, apps: network.client.appFingerprints)
            print("ok    " + LikingPolicy(setting: configuration.likes, network: network).statusLine)
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

/// A doctor finding that is not an error thrown by a store.
struct DoctorProblem: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
