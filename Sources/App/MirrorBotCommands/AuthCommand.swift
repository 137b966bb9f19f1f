import ArgumentParser
import BotAssembly
import BotConfiguration
import BotCore
import Consent
import Foundation
import HTTPCore
import Logging
import SocialNetwork

/// `mirror_bot auth`: gets an account's access tokens.
struct AuthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth",
        abstract:
            "Signs an account in, the person's or the bot's: on X with a PIN, on Mastodon with OAuth (PKCE), on Misskey through MiAuth, on Bluesky with an app password.",
        discussion: """
            Nobody is mirrored who has not signed in as themselves: `auth <network> --account human`, done by the person, \
            records their consent in the store (their account as the network identifies it, when and how, what the bot \
            will do), and train, import and start refuse until it is there. The person's own token set by hand counts \
            too, once it is verified as theirs at the first train, import or start.
            """,
        subcommands: [XAuth.self, MisskeyAuth.self, BlueskyAuth.self, MastodonAuth.self]
    )

    /// The instance of `who`'s account: `option`, else `<PREFIX>_<NETWORK>_URL` of `environment` (`network`: `MASTODON`).
    static func instance(_ option: String?, of who: Account, network: String, example: String, environment: [String: String]) throws -> URL {
        let urlName = who.environmentPrefix + network + "_URL"
        guard let text = option ?? environment[urlName], let url = EnvironmentReader.apiBaseURL(text) else {
            throw ValidationError(
                "Give the \(who) account's instance: --instance \(example), or set \(urlName) (https://, plain http:// only for localhost).")
        }
        return url
    }

    /// Prints the authorized account's variables, or sets them in `.env` (`writeEnv`); for the person, records their
    /// consent in the store the configuration names (with these variables), or says when it will be. A sign-in whose
    /// tokens live in the store (`keeping`, sealed with `MIRROR_BOT_KEY`) is kept there first, or the command fails.
    static func deliver(
        _ authorized: AuthorizedAccount, as who: Account, network: String, how: String, writeEnv: Bool,
        environment: [String: String], keeping: AccountAuthorizations.PendingSignIn.Keep? = nil
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

extension AuthCommand {
    /// Keeps a sign-in whose tokens live in the store (sealed) and records the person's consent with it, in one go; any
    /// failure is the command's: a sign-in not kept is lost.
    static func keep(_ authorized: AuthorizedAccount, _ keeping: AccountAuthorizations.PendingSignIn.Keep, how: String, environment: [String: String])
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

/// What every `auth` subcommand is told: whose account, and whether the values go to `.env`.
struct AuthAccountOptions: ParsableArguments {
    @Option(help: "Whose: bot (the account the bot posts as) or human (the person mirrored; their consent is recorded).")
    var account: String = "bot"

    @Flag(help: "Set the values in .env in the working directory (readable by you only) instead of printing them.")
    var writeEnv = false

    func validate() throws {
        guard Account(rawValue: account) != nil else { throw ValidationError("--account must be bot or human, not \(account)") }
    }

    /// The account, once validated.
    var who: Account { Account(rawValue: account) ?? .bot }
}

/// `mirror_bot auth bluesky --account human`: the person signs in with atproto OAuth in their browser (or an app
/// password of theirs); the bot's account with an app password, tried at once.
struct BlueskyAuth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bluesky",
        abstract: "Signs a Bluesky account in: the person with atproto OAuth in their browser, the bot with an app password.",
        discussion: """
            The person (--account human) signs in as themselves with atproto OAuth: this command listens on \
            127.0.0.1 for the browser's return, prints an address on their Bluesky server's own sign-in page, and \
            waits (10 minutes at most) while they sign in there as the handle given and press Accept. It asks to know \
            who they are and, unless --no-likes, to read their likes; never to post. The sign-in is kept in the store \
            sealed with MIRROR_BOT_KEY (which must be set, with the store the mirror uses), their consent is recorded \
            with it, and HUMAN_BLUESKY_HANDLE and HUMAN_BLUESKY_SIGN_IN=oauth are printed (or set in .env with \
            --write-env). The browser must run on this computer; on another one, paste the address it ends on \
            (http://127.0.0.1:…/callback?…) here instead. Taking the app's access back in Bluesky's settings ends the \
            mirror at its next check. Bluesky keeps this sign-in a week at most (two days unused): when it lapses, the \
            mirror pauses, keeping everything, until the person runs this command again; an app password \
            (--with-app-password) lasts until it is deleted.

            The bot (--account bot, the default), or the person with --with-app-password: make an app password in \
            Settings → Privacy and security → App passwords, logged in as the account, and type it when asked (or give \
            --app-password). It is tried at once (a session at BLUESKY_SERVICE_URL, bsky.social by default); nothing \
            is read or posted. Prints the handle and app password for BOT_ (or HUMAN_), or with --write-env sets them \
            in .env. The password is a secret: revoking it in the same settings ends its use.
            """
    )

    @OptionGroup var signIn: AuthAccountOptions

    @Option(help: "The account's handle, such as alice.bsky.social (default: BOT_BLUESKY_HANDLE or HUMAN_BLUESKY_HANDLE).")
    var handle: String?

    @Option(help: "An app password of the account, instead of OAuth for the person (else, for the bot, it is asked for on standard input).")
    var appPassword: String?

    @Flag(help: "The person: sign in with an app password (asked for on standard input, or --app-password) instead of OAuth.")
    var withAppPassword = false

    @Flag(help: "The person: ask for no permission to read their likes (LIKES=on then learns nothing from them).")
    var noLikes = false

    @Option(help: "How long to wait for the browser's return, in seconds.")
    var waitSeconds = 600

    func run() async throws {
        let who = signIn.who
        let environment = try EnvironmentFile.processEnvironment()
        let handleName = who.environmentPrefix + "BLUESKY_HANDLE"
        guard let handle = (handle ?? environment[handleName]).map({ $0.trimmingCharacters(in: .whitespaces) }), !handle.isEmpty else {
            throw ValidationError("Give the \(who) account's handle: --handle alice.bsky.social, or set \(handleName).")
        }
        if who == .human && appPassword == nil && !withAppPassword { return try await signInWithOAuth(handle: handle, environment: environment) }
        var typed = appPassword
        if typed == nil {
            FileHandle.standardError.write(Data("App password of @\(handle): ".utf8))
            typed = readLine()
        }
        guard let password = typed?.trimmingCharacters(in: .whitespaces), !password.isEmpty else {
            throw ValidationError("No app password was given: make one in Settings → Privacy and security → App passwords and run the command again.")
        }
        do {
            let authorized = try await AccountAuthorizations.bluesky(for: who, handle: handle, appPassword: password, environment: environment)
            try await AuthCommand.deliver(
                authorized, as: who, network: "bluesky", how: "an app password", writeEnv: signIn.writeEnv, environment: environment)
        } catch let error as AuthorizationRefused {
            throw ValidationError(error.description)
        }
    }

    /// The person's atproto OAuth sign-in: the store and key checked first (a sign-in that cannot be kept is not
    /// asked for), then the loopback listener, the address, the wait, and the sign-in kept sealed with their consent.
    private func signInWithOAuth(handle: String, environment: [String: String]) async throws {
        var planned = environment
        planned["HUMAN_BLUESKY_HANDLE"] = handle
        planned["HUMAN_BLUESKY_SIGN_IN"] = "oauth"
        planned["HUMAN_BLUESKY_APP_PASSWORD"] = nil
        let configuration = try Configuration(environment: planned)
        guard configuration.networkModule.personSignInCommand.hasPrefix("mirror_bot auth bluesky ") else {
            throw ValidationError(
                "The configuration mirrors a person on \(configuration.networkModule.name), not on Bluesky (NETWORK=bluesky): their sign-in here would not be used."
            )
        }
        _ = try configuration.tokenSealer()
        let listener = try await LoopbackRedirect.listen()
        do {
            let pending: AccountAuthorizations.PendingSignIn
            do {
                pending = try await AccountAuthorizations.blueskyOAuth(
                    handle: handle, liking: !noLikes, redirectURI: listener.redirectURI, environment: planned)
            } catch let error as AuthorizationRefused {
                throw ValidationError(error.description)
            }
            print(
                "Open this address in a browser on this computer, sign in as @\(handle.hasPrefix("@") ? String(handle.dropFirst()) : handle) and press \"Accept\". Open it within 5 minutes (the server keeps the sign-in's request that long); this waits for the browser's return (\(waitSeconds / 60) minutes at most):"
            )
            print(pending.address.absoluteString)
            fflush(nil)  // the address must be out before the wait, also when standard output is a pipe
            guard let query = await Self.redirect(from: listener, within: .seconds(waitSeconds), accepting: pending.isAnswer) else {
                throw ValidationError(
                    "The browser did not come back within \(waitSeconds / 60) minutes: run the command again and sign in on the page it prints.")
            }
            let (authorized, keep) = try await pending.finish(query)
            try await AuthCommand.deliver(
                authorized, as: .human, network: "bluesky", how: "atproto OAuth: PAR, PKCE, DPoP", writeEnv: signIn.writeEnv,
                environment: planned, keeping: keep)
            if let note = pending.lifetime { print(note) }
        } catch let error as AuthorizationRefused {
            await listener.close()
            throw ValidationError(error.description)
        } catch {
            await listener.close()
            throw error
        }
        await listener.close()
    }

    /// The redirect's query: the browser's request to the listener, or an address pasted on standard input (a browser
    /// on another computer cannot reach this one); nil after `limit`. Standard input is read on a thread of its own,
    /// left blocked when the browser comes first (the command ends soon after); its end (no terminal) leaves the wait
    /// to the browser.
    static func redirect(
        from listener: LoopbackRedirect, within limit: Duration,
        accepting isAnswer: @escaping @Sendable ([String: String]) -> Bool
    ) async -> [String: String]? {
        let (answers, answer) = AsyncStream.makeStream(of: [String: String]?.self)
        let listening = Task { if let query = await listener.query(where: isAnswer) { answer.yield(query) } }
        let timer = Task {
            try? await Task.sleep(for: limit)
            answer.yield(nil)
        }
        let path = listener.path
        Thread.detachNewThread {
            while let line = readLine() {
                guard let components = URLComponents(string: line.trimmingCharacters(in: .whitespaces)), components.path == path,
                    let items = components.queryItems, !items.isEmpty
                else { continue }
                let query = Dictionary(items.map { ($0.name, $0.value ?? "") }) { $1 }
                guard isAnswer(query) else {
                    FileHandle.standardError.write(
                        Data(
                            "That address is not this sign-in's answer (another state): ignored; paste the one the browser ends on after this sign-in.\n"
                                .utf8))
                    continue
                }
                answer.yield(query)
                return
            }
        }
        defer {
            listening.cancel()
            timer.cancel()
        }
        for await first in answers { return first }
        return nil
    }
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

    @OptionGroup var signIn: AuthAccountOptions

    @Option(help: "The PIN, when you have it already (else it is asked for on standard input).")
    var pin: String?

    func run() async throws {
        let who = signIn.who
        let environment = try EnvironmentFile.processEnvironment()
        let prefix = who.environmentPrefix
        guard let key = environment[prefix + "CONSUMER_KEY"].flatMap(Self.nonEmpty),
            let secret = environment[prefix + "CONSUMER_SECRET"].flatMap(Self.nonEmpty)
        else {
            throw ValidationError(
                "Set \(prefix)CONSUMER_KEY and \(prefix)CONSUMER_SECRET first: the app's API key and secret (developer portal → your app → Keys and tokens)."
            )
        }
        do {
            let authorization = try await AccountAuthorizations.x(for: who, consumerKey: key, consumerSecret: secret, environment: environment)
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
            try await AuthCommand.deliver(
                authorized, as: who, network: "x", how: "OAuth 1.0a with a PIN", writeEnv: signIn.writeEnv, environment: environment)
        } catch let error as AuthorizationRefused {
            throw ValidationError(error.description)
        }
    }

    private static func nonEmpty(_ text: String) -> String? { text.trimmingCharacters(in: .whitespaces).isEmpty ? nil : text }
}

/// `mirror_bot auth misskey --account bot`: MiAuth on the account's instance.
struct MisskeyAuth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
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

    @OptionGroup var signIn: AuthAccountOptions

    @Option(help: "The account's instance, such as https://misskey.io (default: BOT_MISSKEY_URL or HUMAN_MISSKEY_URL).")
    var instance: String?

    @Flag(help: "Ask for no reactions permission (the bot will not like: LIKES=off).")
    var noLikes = false

    func run() async throws {
        let who = signIn.who
        let environment = try EnvironmentFile.processEnvironment()
        let url = try AuthCommand.instance(instance, of: who, network: "MISSKEY", example: "https://misskey.io", environment: environment)
        do {
            let authorization = try AccountAuthorizations.misskey(for: who, instance: url, liking: !noLikes)
            print(
                "Open this address in a browser logged in as the \(who) account (a private window is safest), press \"Allow\", then press Enter here:"
            )
            print(authorization.address.absoluteString)
            fflush(nil)  // the address must be out before the wait, also when standard output is a pipe
            var authorized: AuthorizedAccount?
            var lastRefusal = ""
            for _ in 0..<3 where authorized == nil {
                FileHandle.standardError.write(Data("Press Enter once you have allowed it: ".utf8))
                guard readLine() != nil else { break }
                do {
                    authorized = try await authorization.finish(code: "")
                } catch let refusal as AuthorizationRefused {
                    lastRefusal = refusal.description
                    FileHandle.standardError.write(Data("Not yet: \(refusal.description)\n".utf8))
                }
            }
            guard let authorized else {
                throw ValidationError(
                    lastRefusal.isEmpty
                        ? "No approval was confirmed: run the command again, allow the app on the page, and press Enter." : lastRefusal)
            }
            try await AuthCommand.deliver(authorized, as: who, network: "misskey", how: "MiAuth", writeEnv: signIn.writeEnv, environment: environment)
        } catch let error as AuthorizationRefused {
            throw ValidationError(error.description)
        }
    }
}
