import BotConfiguration
public import BotCore
import Foundation
public import Logging
public import SocialNetwork
import Stores

/// How `NETWORK` and `HUMAN_NETWORK` choose among the registry's networks, once: `NETWORK` names a network, whose
/// definition builds its module from its own section of the environment; everything else asks the module.
enum NetworkChoice {
    /// The variables read here and by every network that has warnings or labels, beside the networks' own.
    static let sharedVariableNames = ["HUMAN_NETWORK", "POST_CW"]

    /// The module `NETWORK` names among `choices`, having read its section from `environment`. When `NETWORK` names no
    /// network of the registry, every network's section is read too, so that one run names every malformed variable.
    static func module(reading environment: inout EnvironmentReader, among choices: NetworkChoices) -> any NetworkModule {
        let problemsBefore = environment.problems.count
        let keys = choices.keysInWords
        var chosen = choices.defaultNetwork
        if let text = environment.value("NETWORK") {
            if let named = choices.network(text) {
                chosen = named
            } else {
                environment.malformed("NETWORK", expected: keys, shown: text)
            }
        }
        if environment.problems.count > problemsBefore {
            for other in choices.networks where other.key != chosen.key { _ = other.module(reading: &environment) }
        }
        let module = chosen.module(reading: &environment)
        // Where the person is: on the bot's network (the default), on another (read there with its own section), or in
        // their imported archive only.
        guard let place = environment.value("HUMAN_NETWORK")?.lowercased(), place != chosen.key else { return module }
        if place == "archive" { return ArchivedPersonModule(module) }
        guard let elsewhere = choices.network(place) else {
            environment.malformed(
                "HUMAN_NETWORK",
                expected:
                    "\(keys) (the person's network; the bot's, \(chosen.key), by default) or archive (the person learned from their imported archive only)",
                shown: place)
            return module
        }
        return PersonElsewhereModule(person: elsewhere.module(reading: &environment), bot: module)
    }
}

extension Configuration {
    /// Whether the person is learned from their imported archive only (`HUMAN_NETWORK=archive`).
    public var learnsPersonFromArchiveOnly: Bool { networkModule is ArchivedPersonModule }

    /// The configured network opened for a one-shot command, as `accounts` (for a command that needs no store).
    public func network(as accounts: [Account], logger: Logger) -> CommandNetwork {
        networkModule.forCommand(accounts: accounts, logger: logger)
    }
}

extension BotParts {
    /// The configured network for a one-shot command, as `accounts`, keeping what a network's numbers stand for in the
    /// stores.
    public func network(as accounts: [Account]) -> CommandNetwork {
        let kept = ((try? configuration.tokenSealer()) ?? nil).map { KeptTokens(state: database.state, sealer: $0) }
        return configuration.networkModule.forCommand(accounts: accounts, kept: kept, logger: logger)
    }
}
