public import BotConfiguration
public import BotCore
public import NetworkRegistry
public import SocialNetwork

/// Everything mirror_bot reads from its environment (Heroku config vars, or a local `.env` file), read once by the
/// composition root as sections, each handed to the module it is for: storage to the stores, the behaviour to the
/// daemon, the status page's to the status server, and the chosen network's section to its module, which reads it
/// itself.
///
/// Reading checks the form of every variable that is set and reports every malformed one at once; `require(_:)` then
/// checks that the variables a command needs are present, so `mirror_bot migrate` runs without credentials while
/// `start` needs them all.
public struct Configuration: Sendable {
    /// The network `NETWORK` names (the registry's first by default), with its own section of the configuration.
    public var networkModule: any NetworkModule
    /// The networks `NETWORK` and `HUMAN_NETWORK` chose among.
    public var networks: NetworkChoices
    /// The archive's database, the word counts' Redis, the SQLite file.
    public var storage: StorageSection
    /// What the bot does and how often.
    public var behaviour: BehaviourSection
    /// Where `start` serves its status page.
    public var statusPage: StatusPageSection
    /// Whom the bot leaves alone and what it never says.
    public var consent: ConsentSection
    /// How much the process logs (`LOG_LEVEL`).
    public var logLevel: LogLevel
    /// How a fleet's processes share its bots (`FLEET_KEY`, the leases' timing).
    public var fleet: FleetSection

    /// The parts of the configuration a command can require.
    public enum Requirement: Sendable, CaseIterable {
        /// What the network needs to reach the person's account.
        case humanCredentials
        /// What the network needs to reach the bot's account.
        case botCredentials
        /// `DATABASE_URL`.
        case database
        /// `REDIS_URL` or `REDISTOGO_URL`.
        case redis
    }

    /// Every environment variable mirror_bot reads, for documentation and deploy-template checks: every section's,
    /// every registered network's, and MeCab's own `MECAB_DICDIR` (read by the tokenizer).
    public static let variableNames: [String] = variableNames(among: NetworkRegistry.choices)

    /// Every environment variable read with `networks` to choose from.
    public static func variableNames(among networks: NetworkChoices) -> [String] {
        ["NETWORK"] + networks.variableNames + NetworkChoice.sharedVariableNames + StorageSection.variableNames
            + BehaviourSection.variableNames + StatusPageSection.variableNames + ConsentSection.variableNames + FleetSection.variableNames
            + FrontDoorSection.variableNames
            + [LogLevel.variableName, "MECAB_DICDIR"]
    }

    /// Reads the configuration from variables, `NETWORK` choosing among `networks` (the registry's, unless a test
    /// registers its own too); throws a `ConfigurationError` listing every malformed one.
    public init(environment: [String: String], networks: NetworkChoices = NetworkRegistry.choices) throws {
        var reader = EnvironmentReader(environment: environment)
        self.networks = networks
        networkModule = NetworkChoice.module(reading: &reader, among: networks)
        storage = StorageSection(reading: &reader)
        behaviour = BehaviourSection(reading: &reader)
        statusPage = StatusPageSection(reading: &reader)
        consent = ConsentSection(reading: &reader)
        logLevel = LogLevel(reading: &reader)
        fleet = FleetSection(reading: &reader)
        if !reader.problems.isEmpty { throw ConfigurationError(problems: reader.problems) }
    }

    /// Reads the process environment, with the `.env` file at `environmentFilePath` (if it exists) under it:
    /// a variable set in the real environment wins over the file.
    public static func fromProcessEnvironment(environmentFilePath: String? = ".env") throws -> Configuration {
        try Configuration(environment: EnvironmentFile.processEnvironment(under: environmentFilePath))
    }

    /// Whether the person's posts with links are copied: `POST_LINKS` when set, else the network's default.
    public var postLinks: Bool { behaviour.postLinksSetting ?? networkModule.postsLinksByDefault }
    /// Copies or remixes (`POST_STYLE`, else the network's default: remix on X, copy elsewhere).
    public var postStyle: PostStyle { behaviour.postStyleSetting ?? networkModule.postStyleByDefault }

    /// What seals the tokens the network keeps in the store (`MIRROR_BOT_KEY`); nil where it keeps none. Throws a
    /// `ConfigurationError` when it does and the key is not set: tokens are never kept in plain text.
    public func tokenSealer() throws -> (any SecretSealer)? {
        guard networkModule.storesTokens else { return nil }
        guard let text = storage.tokenKey else {
            throw ConfigurationError(problems: [
                .init(
                    variable: "MIRROR_BOT_KEY", isMissing: true,
                    expected:
                        "a random text of at least \(StorageSection.shortestTokenKey) characters (say `openssl rand -base64 32`), kept: \(networkModule.name)'s session is kept in the store sealed with it, never in plain text"
                )
            ])
        }
        return try KeySealer(text: text)
    }

    /// Throws one `ConfigurationError` naming every variable that `requirements` need and that is not set: the
    /// stores' (`DATABASE_URL`, `REDIS_URL`) and what the network needs for the accounts asked for.
    public func require(_ requirements: Set<Requirement>) throws {
        let accounts = Account.allCases.filter { requirements.contains($0 == .human ? .humanCredentials : .botCredentials) }
        let stores = Set(
            requirements.compactMap { requirement -> StorageSection.StoreRequirement? in
                switch requirement {
                case .database: .database
                case .redis: .redis
                case .humanCredentials, .botCredentials: nil
                }
            })
        let problems =
            networkModule.missingSettings(for: accounts).map {
                ConfigurationError.Problem(variable: $0.variable, isMissing: true, expected: $0.expected)
            } + storage.missing(stores)
        if !problems.isEmpty { throw ConfigurationError(problems: problems) }
    }
}
