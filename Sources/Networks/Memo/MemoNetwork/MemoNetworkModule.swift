import BotClock
public import BotCore
import Foundation
public import Logging
public import SocialNetwork
public import Stores

/// The memo network, whole: what the rest of the program asks of a network, answered for a world in memory.
public struct MemoNetworkModule: NetworkModule {
    /// Its section.
    public let settings: MemoSettings

    /// The module for `settings`.
    public init(settings: MemoSettings) { self.settings = settings }

    /// "Memo".
    public var name: String { "Memo" }
    /// One world, no servers.
    public var botServer: String? { nil }
    /// Links cost nothing.
    public var postsLinksByDefault: Bool { true }
    /// Copies.
    public var postStyleByDefault: PostStyle { .copy }
    /// No addresses.
    public var postLinks: PostAddresses { .none }
    /// Free.
    public var dailyBudget: Double? { nil }
    /// No warnings.
    public var copiesContentWarnings: Bool { false }
    public var capabilities: NetworkCapabilities { MemoMirrorNetwork.capabilities }

    var tokens: [Account: String] {
        var tokens: [Account: String] = [:]
        tokens[.human] = settings.humanToken
        tokens[.bot] = settings.botToken
        return tokens
    }

    /// The world `MEMO_WORLD` names; an empty one when none was made (every token then refused).
    func world() -> MemoWorld { MemoWorld.named(settings.world) ?? MemoWorld(name: settings.world, accounts: []) }

    /// The tokens not set.
    public func missingSettings(for accounts: [Account]) -> [MissingSetting] {
        accounts.filter { tokens[$0] == nil }.map {
            MissingSetting(variable: $0.environmentPrefix + "MEMO_TOKEN", expected: "the \($0) account's token on the memo world (NETWORK=memo)")
        }
    }

    public func forCommand(accounts: [Account], logger: Logger) -> CommandNetwork {
        CommandNetwork(network: MemoMirrorNetwork(world: world(), tokens: tokens, clock: SystemBotClock()))
    }

    public func forDaemon(_ context: DaemonNetworkContext, logger: Logger) async -> DaemonNetwork {
        logger.notice("network: Memo, the world \(settings.world) in this process; free, nothing billed")
        return DaemonNetwork(network: MemoMirrorNetwork(world: world(), tokens: tokens, clock: context.clock))
    }

    /// Whose each token is.
    public func doctor(_ context: DoctorContext, logger: Logger) async -> DoctorReport {
        let network = MemoMirrorNetwork(world: world(), tokens: tokens, clock: SystemBotClock())
        var findings: [DoctorFinding] = []
        for account in Account.allCases {
            do {
                let user = try await network.whoAmI(account)
                findings.append(.ok("\(account) account", "@\(user.handle) on the memo world \(settings.world)"))
            } catch {
                findings.append(.failed("\(account) account", "\(error)"))
            }
        }
        findings.append(.ok("network", "Memo (NETWORK=memo): in this process, free"))
        return DoctorReport(findings: findings, network: CommandNetwork(network: network))
    }

    /// Archives carry their accounts' ids.
    public func archiveAccountResolver(logger: Logger) -> (@Sendable (_ address: String) async throws -> AccountID?)? { nil }

    /// The person's token.
    public var personCredentials: [(name: String, value: String)] { settings.humanToken.map { [("HUMAN_MEMO_TOKEN", $0)] } ?? [] }

    /// Whose the person's token is; refused when the world does not know it.
    public func verifyPerson(usageDays: any UsageDays, logger: Logger) async throws -> VerifiedPerson {
        guard let token = settings.humanToken, let handle = world().handles[token] else {
            throw PersonSignInRefused("the memo world \(settings.world) does not know HUMAN_MEMO_TOKEN")
        }
        return VerifiedPerson(account: "\(handle)@\(settings.world)", handle: handle, credential: "HUMAN_MEMO_TOKEN")
    }

    /// Tokens are set by hand.
    public var personSignInCommand: String { "set HUMAN_MEMO_TOKEN (the memo network has no sign-in flow)" }
}
