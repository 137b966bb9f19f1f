import ArgumentParser
import BotAssembly
import BotConfiguration
import BotCore
import Consent
import Foundation
import Logging
import NetworkRegistry
import SignIn
import SocialNetwork
import Stores

/// `mirror_bot auth`: signs an account in; each network's subcommand is its own, listed by the registry.
struct AuthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth",
        abstract: "Signs an account in, the person's or the bot's, the way its network does it: `auth <network> --help` says how.",
        discussion: """
            Nobody is mirrored who has not signed in as themselves: `auth <network> --account human`, done by the person, \
            records their consent in the store (their account as the network identifies it, when and how, what the bot \
            will do), and train, import and start refuse until it is there. The person's own token set by hand counts \
            too, once it is verified as theirs at the first train, import or start.
            """,
        subcommands: NetworkRegistry.signInCommands
    )
}

/// What becomes of an account a network's `auth` command signed in: its variables printed or set in `.env`, the
/// person's consent recorded in the configured store, a session kept there sealed.
struct AuthDelivery: SignInDelivery {
    /// A sign-in kept in the store needs a configuration that mirrors a person on `network`, and `MIRROR_BOT_KEY`.
    func checkKeeping(network: String, environment: [String: String]) throws {
        let configuration = try Configuration(environment: environment)
        guard configuration.networkModule.personSignInCommand.hasPrefix("mirror_bot auth \(network) ") else {
            throw ValidationError(
                "The configuration mirrors a person on \(configuration.networkModule.name), not on this network (NETWORK=\(network)): their sign-in here would not be used."
            )
        }
        _ = try configuration.tokenSealer()
    }

    /// Prints the authorized account's variables, or sets them in `.env` (`writeEnv`); for the person, records their
    /// consent in the store the configuration names (with these variables), or says when it will be. A sign-in whose
    /// tokens live in the store (`keeping`, sealed with `MIRROR_BOT_KEY`) is kept there first, or the command fails.
    func deliver(
        _ authorized: AuthorizedAccount, as who: Account, network: String, how: String, writeEnv: Bool,
        environment: [String: String], keeping: SignInKeeping?
    ) async throws {
        let values = authorized.variables
        if let keeping {
            var merged = environment
            for (name, value) in values { merged[name] = value }
            try await keep(authorized, keeping, how: "mirror_bot auth \(network) --account \(who.rawValue) (\(how))", environment: merged)
        }
        if writeEnv {
            let path = ".env"
            let existing = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            do {
                try EnvironmentFile.writeSecret(EnvironmentFile.setting(values.map { ($0.name, $0.value) }, in: existing), toFile: path)
                print(
                    "Authorized @\(authorized.handle) (id \(authorized.userID)). Set \(values.map(\.name).joined(separator: " and ")) in .env (other lines kept; readable by you only)."
                )
            } catch {
                print(
                    "Authorized @\(authorized.handle) (id \(authorized.userID)), but .env could not be written (\(error)). Set these (secrets: they act as @\(authorized.handle)):"
                )
                for (name, value) in values { print("\(name)=\(value)") }
            }
        } else {
            print(
                "Authorized @\(authorized.handle) (id \(authorized.userID)). Set these\(keeping == nil ? " (secrets: they act as @\(authorized.handle))" : ""):"
            )
            for (name, value) in values { print("\(name)=\(value)") }
        }
        guard who == .human, keeping == nil else { return }
        let later = "it is recorded once these credentials are verified as theirs at the first train, import or start"
        var merged = environment
        for (name, value) in values { merged[name] = value }
        guard let configuration = try? Configuration(environment: merged) else {
            print("The person's consent is not recorded yet (the configuration has other problems: see `mirror_bot doctor`); \(later).")
            return
        }
        let module = configuration.networkModule
        guard module.personSignInCommand.hasPrefix("mirror_bot auth \(network) ") else {
            print(
                "The person's consent is not recorded: the configuration mirrors a person on \(module.name), not here; `\(module.personSignInCommand)` signs them in there."
            )
            return
        }
        let logger = Logger(label: "mirror_bot.auth")
        let person = VerifiedPerson(account: authorized.networkAccount, handle: authorized.handle, credential: values.last?.name ?? "")
        do {
            let parts = try BotParts(configuration: configuration, logger: logger)
            let consent = try await parts.withRunning { parts in
                try await PersonConsentGate(configuration: configuration, stores: parts.database, logger: logger)
                    .recordSignIn(
                        person, how: "mirror_bot auth \(network) --account human (\(how))", credentials: module.personCredentials, now: Date())
            }
            print("Recorded the person's consent in \(parts.database.location): \(consent.summary).")
        } catch let refused as ConsentRequired {
            print("The person's consent is not recorded: \(refused.description)")
        } catch {
            print("The person's consent is not recorded yet (the store: \(error)); \(later).")
        }
    }
}

extension AuthDelivery {
    /// Keeps a sign-in whose tokens live in the store (sealed) and records the person's consent with it, in one go; any
    /// failure is the command's: a sign-in not kept is lost.
    func keep(_ authorized: AuthorizedAccount, _ keeping: SignInKeeping, how: String, environment: [String: String])
        async throws
    {
        let configuration = try Configuration(environment: environment)
        guard let sealer = try configuration.tokenSealer() else { throw ValidationError("This network keeps no sign-in in the store.") }
        let logger = Logger(label: "mirror_bot.auth")
        let module = configuration.networkModule
        let person = VerifiedPerson(account: authorized.networkAccount, handle: authorized.handle, credential: authorized.variables.last?.name ?? "")
        let parts = try BotParts(configuration: configuration, logger: logger)
        let consent: PersonConsent
        do {
            consent = try await parts.withRunning { parts in
                try await keeping(parts.database.state, sealer)
                return try await PersonConsentGate(configuration: configuration, stores: parts.database, logger: logger)
                    .recordSignIn(person, how: how, credentials: module.personCredentials, now: Date())
            }
        } catch let refused as ConsentRequired {
            throw ValidationError("The person's sign-in is not kept: \(refused.description)")
        } catch {
            throw ValidationError(
                "The person's sign-in could not be kept in \(parts.database.location) (\(error)): run the command again once the store answers.")
        }
        print("Kept the person's sign-in in \(parts.database.location), sealed with MIRROR_BOT_KEY, and recorded their consent: \(consent.summary).")
    }
}
