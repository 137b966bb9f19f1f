public import ArgumentParser
import BlueskyAPI
import BotConfiguration
import Foundation
import HTTPCore
import Logging
public import SignIn
import SocialNetwork

/// `mirror_bot auth bluesky --account human`: the person signs in with atproto OAuth in their browser (or an app
/// password of theirs); the bot's account with an app password, tried at once.
public struct BlueskyAuth: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
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

    @OptionGroup public var signIn: AuthAccountOptions

    /// Parsed by ArgumentParser.
    public init() {}

    @Option(help: "The account's handle, such as alice.bsky.social (default: BOT_BLUESKY_HANDLE or HUMAN_BLUESKY_HANDLE).")
    public var handle: String?

    @Option(help: "An app password of the account, instead of OAuth for the person (else, for the bot, it is asked for on standard input).")
    public var appPassword: String?

    @Flag(help: "The person: sign in with an app password (asked for on standard input, or --app-password) instead of OAuth.")
    public var withAppPassword = false

    @Flag(help: "The person: ask for no permission to read their likes (LIKES=on then learns nothing from them).")
    public var noLikes = false

    @Option(help: "How long to wait for the browser's return, in seconds.")
    public var waitSeconds = 600

    public func run() async throws {
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
            var reader = EnvironmentReader(environment: environment)
            let settings = BlueskyNetworkSettings(reading: &reader)
            if !reader.problems.isEmpty { throw ConfigurationError(problems: reader.problems) }
            let authorized = try await BlueskyAccountSignIn.signIn(
                who, service: settings.service, handle: handle, appPassword: password, logger: Logger(label: "mirror_bot.auth"))
            try await SignInDeliveries.required().deliver(
                authorized, as: who, network: "bluesky", how: "an app password", writeEnv: signIn.writeEnv, environment: environment, keeping: nil)
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
        let delivery = try SignInDeliveries.required()
        try delivery.checkKeeping(network: "bluesky", environment: planned)
        var reader = EnvironmentReader(environment: planned)
        let settings = BlueskyNetworkSettings(reading: &reader)
        if !reader.problems.isEmpty { throw ConfigurationError(problems: reader.problems) }
        let listener = try await LoopbackRedirect.listen()
        do {
            let pending: BlueskyOAuthSignIn
            do {
                pending = try await BlueskyOAuthSignIn.begin(
                    handle: handle, service: settings.service, liking: !noLikes, redirectURI: listener.redirectURI,
                    logger: Logger(label: "mirror_bot.auth"))
            } catch let error as AuthorizationRefused {
                throw ValidationError(error.description)
            }
            print(
                "Open this address in a browser on this computer, sign in as @\(handle.hasPrefix("@") ? String(handle.dropFirst()) : handle) and press \"Accept\". Open it within 5 minutes (the server keeps the sign-in's request that long); this waits for the browser's return (\(waitSeconds / 60) minutes at most):"
            )
            print(pending.address.absoluteString)
            fflush(nil)  // the address must be out before the wait, also when standard output is a pipe
            guard let query = await SignInSteps.redirect(from: listener, within: .seconds(waitSeconds), accepting: pending.isAnswer) else {
                throw ValidationError(
                    "The browser did not come back within \(waitSeconds / 60) minutes: run the command again and sign in on the page it prints.")
            }
            let (authorized, session) = try await pending.finish(redirectQuery: query)
            try await delivery.deliver(
                authorized, as: .human, network: "bluesky", how: "atproto OAuth: PAR, PKCE, DPoP", writeEnv: signIn.writeEnv,
                environment: planned,
                keeping: { state, sealer in try await StoredBlueskySessions(state: state, sealer: sealer).save(session, of: .human) })
            print(BlueskyOAuthSignIn.lifetimeNote(from: Date()))
        } catch let error as AuthorizationRefused {
            await listener.close()
            throw ValidationError(error.description)
        } catch {
            await listener.close()
            throw error
        }
        await listener.close()
    }
}
