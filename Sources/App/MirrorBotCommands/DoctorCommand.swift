import ArgumentParser
import BotAssembly
import BotConfiguration
import BotCore
import Consent
import Daemon
import Foundation
import Logging
import RedisClient
import SocialNetwork
import Stores
import Tokenizer

/// `mirror_bot doctor`: says what is configured and whether the database, Redis and MeCab work.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract:
            "Checks the configuration, both accounts, the database, the word counts (Redis or the SQLite file) and the MeCab dictionary, and says what is wrong.",
        discussion: """
            Secrets are never printed. Exits non-zero when something the bot needs does not work. Also says whether \
            the bot likes (LIKES) and why.
            """ + networksHelp("doctor")
    )

    func run() async throws {
        let context = try CommandContext.load()
        let configuration = context.configuration
        var failures = 0
        func report(_ label: String, _ result: Result<String, any Error>) {
            switch result {
            case .success(let text): print("ok    \(label): \(text)")
            case .failure(let error):
                failures += 1
                print("FAIL  \(label): \(error)")
            }
        }

        // The network's own checks: each account, what its tokens may do, what it costs.
        let module = configuration.networkModule
        let checked = await module.doctor(
            DoctorContext(
                liking: configuration.behaviour.likes != .off, likesForced: configuration.behaviour.likes == .on,
                postLinks: configuration.postLinks), logger: context.logger)
        for finding in checked.findings {
            print(finding.line)
            if finding.isFailure { failures += 1 }
        }
        let network = checked.network
        print(
            "ok    time zone: \(configuration.behaviour.timeZone.identifier); archive keeps \(configuration.storage.archiveRowLimit) posts; like threshold \(configuration.behaviour.calibratesFavoriteThreshold ? "auto (calibrated on the training examples)" : String(configuration.behaviour.favoriteRateThreshold)), classifier \(configuration.behaviour.classifier.rawValue)"
        )

        var parts: BotParts?
        do {
            parts = try BotParts(configuration: configuration, logger: context.logger)
        } catch {
            report("archive", .failure(error))
        }
        if let parts {
            do {
                let (pending, spendLine, kept) = try await parts.withRunningAsIs { database in
                    try await database.checkReachable()
                    let pending = try await database.migrations.pending().count
                    let consent = pending == 0 ? try await ConsentRecords(state: database.state).current() : nil
                    let paused = pending == 0 ? try await OwnerControl(state: database.state).current() : nil
                    guard pending == 0, let billing = network.billing else { return (pending, nil as String?, (consent, paused)) }
                    let line = try await billing.spendLine(storingInto: database.usageDays)
                    try await billing.restoreRefusals(from: database.state)
                    return (pending, line, (consent, paused))
                }
                let (consent, paused) = kept
                if let spendLine { print("ok    " + spendLine) }
                if pending == 0 {
                    let signIn = module.personSignInCommand
                    switch consent {
                    case let consent? where consent.isWithdrawn:
                        report(
                            "person's consent",
                            .failure(
                                ConsentRequired("withdrawn: \(consent.summary). Only the person's new sign-in (`\(signIn)`) starts the mirror again.")
                            ))
                    case let consent? where paused?.pause == .signInLapsed:
                        report(
                            "person's consent",
                            .failure(
                                ConsentRequired(
                                    "their sign-in lapsed at \(paused?.since.formatted(.iso8601) ?? "?") (the network's limit on its life, not their withdrawal): the mirror is paused, everything kept, until the person signs in again with `\(signIn)`. \(consent.summary)"
                                )))
                    case let consent?:
                        report("person's consent", .success(consent.summary))
                    case nil where !module.personCredentials.isEmpty:
                        report(
                            "person's consent",
                            .success(
                                "not recorded yet: the person's own credentials in the configuration are verified as theirs at the first train, import or start (or they sign in: `\(signIn)`)"
                            ))
                    case nil:
                        report(
                            "person's consent",
                            .failure(
                                ConsentRequired("none: nobody is mirrored who has not signed in as themselves; the person signs in with `\(signIn)`"))
                        )
                    }
                }
                print("ok    " + LikingPolicy(setting: configuration.behaviour.likes, network: network.network).statusLine)
                report(
                    "archive in \(parts.database.location)",
                    .success(pending == 0 ? "reachable, migrated" : "reachable, \(pending) migration(s) pending: \(parts.migrationAdvice)"))
            } catch {
                report("archive in \(parts.database.location)", .failure(error))
            }
        }

        do {
            let (store, description) = try parts?.wordCounts() ?? WordCountStores.open(for: configuration.storage)
            _ = try await store.isTrained("classifier")
            let detail = configuration.storage.redis == nil ? "reachable" : "reachable (hiredis \(RedisConnection.hiredisVersion))"
            report("word counts in \(description)", .success(detail))
        } catch {
            report("word counts", .failure(error))
        }

        do {
            let nouns = try PostTokenizer().nouns(in: "今日は東京で寿司を食べた")
            report("MeCab dictionary", .success("loaded; 今日は東京で寿司を食べた → \(nouns.joined(separator: " "))"))
        } catch {
            report("MeCab dictionary", .failure(error))
        }

        if failures > 0 { throw ExitCode(1) }
    }
}
