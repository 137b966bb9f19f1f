import BotAssembly
import BotConfiguration
import Foundation
import Logging
import SocialNetwork
import TestSupport

extension MirrorBotProcess {
    /// The person of `environment` signed in before the test, as `mirror_bot auth … --account human` leaves it: their
    /// consent in the store `environment` names, holding the digest of the credentials it configures (so that a test
    /// of something else makes no call to verify them). `ConsentProcessTests` proves the sign-ins themselves.
    static func personSignedIn(_ environment: [String: String], account: String = "person") async throws {
        let configuration = try Configuration(environment: environment)
        let logger = Logger(label: "consent", factory: { _ in SwiftLogNoOpLogHandler() })
        try await BotParts(configuration: configuration, logger: logger).withRunning { parts in
            _ = try await PersonConsentGate(configuration: configuration, stores: parts.database, logger: logger)
                .recordSignIn(
                    VerifiedPerson(account: account, handle: account, credential: "a sign-in before the test"), how: "a sign-in before the test",
                    credentials: configuration.networkModule.personCredentials, now: Date())
        }
    }
}
