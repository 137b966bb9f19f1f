public import BotCore
import Foundation
public import SocialNetwork
import Stores

/// What becomes of an account signed in by a network's `auth` command, done by the application (which knows the
/// stores and the consent): its variables printed or set in `.env`, the person's consent recorded, a session kept in
/// the store. The networks' commands ask it through `SignInDelivery.current`, set by the executable.
public protocol SignInDelivery: Sendable {
    /// Prints `authorized`'s variables, or sets them in `.env` (`writeEnv`); for the person, records their consent in
    /// the store the configuration names, or says when it will be. A sign-in whose tokens live in the store
    /// (`keeping`, sealed with `MIRROR_BOT_KEY`) is kept there first, or the command fails. `network` is the
    /// network's key (`mastodon`), `how` the flow in words.
    func deliver(
        _ authorized: AuthorizedAccount, as account: Account, network: String, how: String, writeEnv: Bool, environment: [String: String],
        keeping: SignInKeeping?
    ) async throws

    /// Checks, before the person is asked to sign in, that a sign-in kept in the store can be kept with `environment`
    /// (the configuration mirrors a person on `network`, `MIRROR_BOT_KEY` is set): a sign-in that cannot be kept is
    /// not asked for.
    func checkKeeping(network: String, environment: [String: String]) throws
}

/// The delivery of this process, set by the executable around its command line.
public enum SignInDeliveries {
    /// The delivery the `auth` commands use.
    @TaskLocal public static var current: (any SignInDelivery)?

    /// The current delivery; throws when the executable set none (a command run outside `mirror_bot`).
    public static func required() throws -> any SignInDelivery {
        guard let current else { throw AuthorizationRefused("mirror_bot's sign-in delivery is not set: run `mirror_bot auth` from mirror_bot") }
        return current
    }
}
