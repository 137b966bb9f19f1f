public import BotClock
public import Consent
import Crypto
public import Daemon
public import Foundation
public import Logging
public import SocialNetwork
public import Stores

/// Nobody is mirrored who has not signed in as themselves. Before anything of the person is learned (`train`,
/// `import`) or used (`start`, a fleet's bot), the store must hold their consent (`PersonConsent`), not withdrawn:
/// made by `mirror_bot auth <network> --account human`, or by the person's own credentials in the configuration,
/// verified against the network as their account the first time they are used (and again whenever they change).
public struct PersonConsentGate: Sendable {
    /// The network the person signs in on.
    public let module: any NetworkModule
    /// Where the consent is kept.
    public let records: ConsentRecords
    /// Where a billed verification's cost is kept.
    public let usageDays: any UsageDays
    /// What the configuration has the bot do with what it learns.
    public let agreedTo: [PersonConsent.Use]
    /// The log.
    public let logger: Logger
    /// What seals a sign-in the network keeps in the store (`MIRROR_BOT_KEY`); nil where none is kept, or the key is
    /// not set (a sign-in kept sealed then cannot be verified, and says so).
    let sealer: (any SecretSealer)?

    /// The gate for `configuration`'s network and uses, over `stores`.
    public init(configuration: Configuration, stores: any StoreSet, logger: Logger) {
        sealer = (try? configuration.tokenSealer()) ?? nil
        module = configuration.networkModule
        records = ConsentRecords(state: stores.state)
        usageDays = stores.usageDays
        agreedTo = Self.uses(of: configuration)
        self.logger = logger
    }

    /// What `configuration` does with the person's posts and likes.
    public static func uses(of configuration: Configuration) -> [PersonConsent.Use] {
        [.learnPosts] + (configuration.behaviour.likes == .off ? [] : [.learnLikes]) + [configuration.postStyle == .copy ? .copies : .remixes]
    }

    /// The consent in force, for `use` ("train", "start"). Verifies the person's configured credentials (one call)
    /// when no record holds them yet, and records the sign-in they prove. A use that reads nothing of the person on
    /// the network (`import`, a mirror of the archive only) needs no credentials of theirs once the record is there;
    /// one that does (`readsPerson`) needs them, theirs. Throws `ConsentRequired`, in one line that says how the person
    /// signs in, when there is no consent, it was withdrawn, or the credentials are another person's or refused.
    public func require(for use: String, readsPerson: Bool = true, now: Date) async throws -> PersonConsent {
        let current = try await records.current()
        let signIn = module.personSignInCommand
        if let current, current.isWithdrawn {
            throw ConsentRequired(
                "Not mirroring: the person ended this mirror \(current.withdrawnAt?.formatted(.iso8601) ?? "") (\(current.withdrawal ?? "withdrawn")), so \(use) uses nothing of theirs. Only the person can start it again, by signing in as themselves: `\(signIn)`."
            )
        }
        let credentials = module.personCredentials
        if credentials.isEmpty, !readsPerson, let current { return current }
        guard !credentials.isEmpty else {
            throw ConsentRequired(
                "Not mirroring: nobody is mirrored who has not signed in as themselves, and the person's own credentials are not set. The person signs in with `\(signIn)` (or sets their own token), then \(use) runs."
            )
        }
        let digest = Self.digest(of: credentials)
        if let current, current.credentialDigest == digest { return current }
        let person: VerifiedPerson
        do {
            person = try await module.verifyPerson(usageDays: usageDays, state: records.state, sealer: sealer, logger: logger)
        } catch let refused as PersonSignInRefused {
            throw ConsentRequired("Not mirroring: \(refused.description). The person signs in again with `\(signIn)`.")
        } catch let lapsed as PersonSignInLapsed {
            throw ConsentRequired("Not mirroring: \(lapsed.description). The person signs in again with `\(signIn)`.")
        }
        if let current, !current.isPerson(person.account) {
            throw ConsentRequired(
                "Not mirroring: the person's credentials sign in as @\(person.handle) (\(person.account)), not as @\(current.personHandle) (\(current.personAccount)) who consented to this mirror. `mirror_bot forget-me` ends the former's mirror first; then @\(person.handle) signs in with `\(signIn)`."
            )
        }
        var consent =
            current
            ?? PersonConsent(
                network: module.name, personAccount: person.account, personHandle: person.handle, signedInAt: now,
                how: "their own \(person.credential) in the configuration, verified as theirs", botAccount: nil, agreedTo: agreedTo,
                credentialDigest: digest)
        consent.personHandle = person.handle
        // The same account, kept as sign-ins name it now.
        consent.personAccount = person.account
        consent.credentialDigest = digest
        try await records.keep(consent)
        logger.notice("consent: \(consent.summary)")
        return consent
    }

    /// Whether `require` would sign in with the person's credentials to verify them (no record holds them yet): a call,
    /// billed on X, which a command announces with the rest of what it may cost.
    public func willVerify() async throws -> Bool {
        let credentials = module.personCredentials
        guard !credentials.isEmpty, let current = try await records.current() else { return !credentials.isEmpty }
        return !current.isWithdrawn && current.credentialDigest != Self.digest(of: credentials)
    }

    /// `require`, for a daemon: a network or store that cannot answer now is asked again with backoff on `clock` (5 s
    /// doubling to 5 minutes), saying so once; only a missing, withdrawn or refused consent ends the start.
    public func requireWaiting(for use: String, readsPerson: Bool, clock: any BotClock, progress: StartupProgress?) async throws -> PersonConsent {
        var wait = Duration.seconds(5)
        var failures = 0
        while true {
            progress?.waiting(for: "the person's consent\(failures == 0 ? "" : " (\(failures) failed tries to verify it so far)")")
            do {
                let consent = try await require(for: use, readsPerson: readsPerson, now: clock.now())
                if failures > 0 { logger.notice("the person's consent was verified after \(failures) failed tries") }
                return consent
            } catch let refused as ConsentRequired {
                throw refused
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                if failures == 0 {
                    logger.warning("the person's consent could not be verified now (\(error)); asking again with backoff until it can")
                }
                failures += 1
                try await clock.sleep(for: wait)
                wait = min(wait * 2, .seconds(300))
            }
        }
    }

    /// Records the sign-in `auth` just made: `person`, signed in `how`, with `credentials` (what it sets). A record of
    /// another person is replaced only once it was withdrawn.
    @discardableResult
    public func recordSignIn(_ person: VerifiedPerson, how: String, credentials: [(name: String, value: String)], now: Date) async throws
        -> PersonConsent
    {
        if let current = try await records.current(), !current.isWithdrawn, !current.isPerson(person.account) {
            throw ConsentRequired(
                "This bot mirrors @\(current.personHandle) (\(current.personAccount)), who signed in \(current.signedInAt.formatted(.iso8601)): @\(person.handle) is not mirrored in their place until `mirror_bot forget-me` ends that mirror."
            )
        }
        let consent = PersonConsent(
            network: module.name, personAccount: person.account, personHandle: person.handle, signedInAt: now, how: how,
            botAccount: nil, agreedTo: agreedTo, credentialDigest: Self.digest(of: credentials))
        try await records.keep(consent)
        // A mirror the person ended before runs again: they signed in again.
        try await OwnerControl(state: records.state).signedInAgain()
        logger.notice("consent: \(consent.summary)")
        return consent
    }

    /// How the daemon checks that the person's grant still works: every 30 minutes on a free network, once a day
    /// where each check is billed (X: one `GET /2/users/me`); nil when no credentials of theirs are configured (a
    /// mirror of their archive only, consented to before), which leaves nothing to check. `network`'s own check,
    /// when it has one, asks through the daemon's client (`DaemonNetwork.personCheck`).
    public func check(through network: (@Sendable () async throws -> VerifiedPerson)? = nil) -> ConsentCheck? {
        guard !module.personCredentials.isEmpty else { return nil }
        let (module, usageDays, state, sealer, logger) = (module, usageDays, records.state, sealer, logger)
        return ConsentCheck(every: .seconds(module.dailyBudget == nil ? Self.freeCheckSeconds : 86_400)) {
            if let network { return try await network() }
            return try await module.verifyPerson(usageDays: usageDays, state: state, sealer: sealer, logger: logger)
        }
    }

    /// How often the grant is checked where checking is free.
    public static let freeCheckSeconds = 1_800

    /// SHA-256 of the credentials, by name (hex): tells one set from another without keeping them.
    static func digest(of credentials: [(name: String, value: String)]) -> String {
        let text = credentials.sorted { $0.name < $1.name }.map { "\($0.name)=\($0.value)\n" }.joined()
        return SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

/// The person's consent is missing or withdrawn: nothing of theirs is used. One line that says how they sign in.
public struct ConsentRequired: Error, CustomStringConvertible {
    /// The line.
    public var description: String

    /// A refusal saying `description`.
    public init(_ description: String) { self.description = description }
}
