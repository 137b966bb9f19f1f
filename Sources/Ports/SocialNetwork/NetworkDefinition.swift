public import BotConfiguration

/// A network as mirror_bot knows it before anything is configured: the value of `NETWORK` that chooses it, the
/// variables of its section, and how its module is built from that section. Each network's folder exports one, and
/// the registry (`Sources/Networks/Registry`) lists them: the rest of the program finds networks there, never by name.
public protocol NetworkDefinition: Sendable {
    /// `NETWORK`'s value that chooses it, in lower case (`mastodon`).
    var key: String { get }
    /// Its name for people, the name of its folder under `Sources/Networks` too (`Mastodon`).
    var name: String { get }
    /// Every variable its section reads (`BOT_MASTODON_TOKEN`, …), for documentation and deploy-template checks.
    var variableNames: [String] { get }
    /// Its module, having read its own section of `environment` (every malformed variable reported there).
    func module(reading environment: inout EnvironmentReader) -> any NetworkModule
    /// What the help of `command` (`doctor`, `train scheduler`) says of this network: a paragraph, or nil for nothing.
    func help(for command: String) -> String?
}

extension NetworkDefinition {
    /// Nothing: a network says nothing in a command's help unless it has something to say.
    public func help(for command: String) -> String? { nil }
}

/// Networks chosen by `NETWORK` and `HUMAN_NETWORK` from a registry's list.
public struct NetworkChoices: Sendable {
    /// The networks, the default (when `NETWORK` is not set) first.
    public let networks: [any NetworkDefinition]

    /// Choices among `networks`, the first the default; none may share a key.
    public init(_ networks: [any NetworkDefinition]) {
        precondition(!networks.isEmpty, "a registry lists at least one network")
        precondition(Set(networks.map(\.key)).count == networks.count, "two networks share a key: \(networks.map(\.key))")
        self.networks = networks
    }

    /// The network `NETWORK` chooses when it is not set.
    public var defaultNetwork: any NetworkDefinition { networks[0] }

    /// The network whose key is `key` (any case), or nil.
    public func network(_ key: String) -> (any NetworkDefinition)? {
        let key = key.lowercased()
        return networks.first { $0.key == key }
    }

    /// The keys in words, for a message: "x, mastodon, bluesky or misskey".
    public var keysInWords: String {
        let keys = networks.map(\.key)
        guard keys.count > 1 else { return keys.joined() }
        return keys.dropLast().joined(separator: ", ") + " or " + keys[keys.count - 1]
    }

    /// What the help of `command` says of each network, a paragraph each in the registry's order ("" when none says
    /// anything).
    public func help(for command: String) -> String {
        networks.compactMap { $0.help(for: command) }.joined(separator: "\n\n")
    }

    /// Every network's variables, each once, in the registry's order.
    public var variableNames: [String] {
        var seen = Set<String>()
        return networks.flatMap(\.variableNames).filter { seen.insert($0).inserted }
    }
}

/// A network whose module is built from one configuration section: the definition of most networks, in a line.
public struct SectionNetworkDefinition<Settings: ConfigurationSection>: NetworkDefinition {
    /// `NETWORK`'s value that chooses it.
    public let key: String
    /// Its name for people and its folder's.
    public let name: String
    private let build: @Sendable (Settings) -> any NetworkModule
    private let helps: [String: String]

    /// A network chosen by `key`, named `name`, whose module `build` makes from its section; `help` holds what each
    /// command's help says of it, by the command's name (`"train scheduler"`).
    public init(key: String, name: String, help: [String: String] = [:], module build: @escaping @Sendable (Settings) -> any NetworkModule) {
        self.key = key
        self.name = name
        self.helps = help
        self.build = build
    }

    /// What `command`'s help says of it.
    public func help(for command: String) -> String? { helps[command] }

    /// The section's variables.
    public var variableNames: [String] { Settings.variableNames }

    /// The module, from the section read from `environment`.
    public func module(reading environment: inout EnvironmentReader) -> any NetworkModule { build(Settings(reading: &environment)) }
}
