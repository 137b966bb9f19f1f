public import ArgumentParser
import BlueskyNetwork
public import ExportFormats
import MastodonNetwork
import MisskeyNetwork
public import SocialNetwork
import XNetwork

/// The networks mirror_bot runs on, one line each: adding a network is adding its folder under `Sources/Networks`,
/// its line here, and its targets in Package.swift (see docs/architecture.md, "Adding a network").
public enum NetworkRegistry {
    /// A network as the program knows it: its definition, its `mirror_bot auth <network>` command, and the format of
    /// its archive export.
    public struct Entry: Sendable {
        /// What chooses it and builds its module.
        public let definition: any NetworkDefinition
        /// Its sign-in command (nil: its tokens are set by hand).
        public let signIn: (any AsyncParsableCommand.Type)?
        /// How `mirror_bot import` reads its archive export (nil: it has none).
        public let export: (any ExportFormat)?
        /// How a person signs in on it from the front door's page (nil: not yet from the web).
        public var webSignIn: (any WebSignIn)? = nil
    }

    /// Every network, the default (`NETWORK` not set) first.
    public static let entries: [Entry] = [
        Entry(definition: xDefinition, signIn: XAuth.self, export: XExportFormat(), webSignIn: XWebSignIn()),
        Entry(definition: mastodonDefinition, signIn: MastodonAuth.self, export: MastodonExportFormat(), webSignIn: MastodonWebSignIn()),
        Entry(definition: blueskyDefinition, signIn: BlueskyAuth.self, export: BlueskyExportFormat(), webSignIn: BlueskyWebSignIn()),
        Entry(definition: misskeyDefinition, signIn: MisskeyAuth.self, export: MisskeyExportFormat(), webSignIn: MisskeyWebSignIn()),
    ]

    /// Every network's definition, the default first.
    public static let networks: [any NetworkDefinition] = entries.map(\.definition)

    /// The choices among them.
    public static let choices = NetworkChoices(networks)

    /// The formats of the networks' archive exports, the default's first.
    public static let exportFormats: [any ExportFormat] = entries.compactMap(\.export)

    /// Each network that a person can sign in on from the front door, with its flow, the default first.
    public static let webSignIns: [(definition: any NetworkDefinition, flow: any WebSignIn)] = entries.compactMap { entry in
        entry.webSignIn.map { (entry.definition, $0) }
    }

    /// Each network's `auth` subcommand.
    public static let signInCommands: [any ParsableCommand.Type] = entries.compactMap(\.signIn)
}
