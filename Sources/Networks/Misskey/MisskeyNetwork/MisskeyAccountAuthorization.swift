public import BotCore
public import Foundation
public import Logging
import MisskeyAPI
public import SocialNetwork

/// MiAuth, Misskey's way of handing an app a token: the person opens `https://<host>/miauth/<session>?name=…&permission=…`
/// logged in as the account and approves; the app then asks `miauth/<session>/check` for the token, which is handed
/// over once. The session is a random UUID, the only secret until the token is fetched.
public struct MisskeyAccountAuthorization: PendingAuthorization {
    /// Where the person approves the app.
    public let address: URL
    /// The account being authorized.
    public let account: Account
    /// The account's instance.
    public let instance: URL
    let session: String
    let client: MisskeyClient
    /// Whether the browser comes back by itself (the front door's callback), rather than the person pressing Enter.
    let comesBack: Bool

    /// A session for `account` on `instance` asking for the permissions it needs (`liking`: reactions too); with
    /// `callback`, the instance sends the browser there after the approval, with `session` added to its query.
    public init(for account: Account, instance: URL, liking: Bool = true, callback: URL? = nil, logger: Logger) throws {
        session = UUID().uuidString.lowercased()
        comesBack = callback != nil
        self.account = account
        self.instance = instance
        guard var components = URLComponents(url: instance, resolvingAgainstBaseURL: false) else {
            throw AuthorizationRefused("\(instance) is not an instance's address: give its https:// URL, such as https://misskey.io")
        }
        let path = components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path
        components.path = path + "/miauth/" + session
        components.queryItems =
            [
                URLQueryItem(name: "name", value: "mirror_bot"),
                URLQueryItem(name: "permission", value: MisskeyPermissions.needed(by: account, liking: liking).joined(separator: ",")),
            ] + (callback.map { [URLQueryItem(name: "callback", value: $0.absoluteString)] } ?? [])
        guard let url = components.url else {
            throw AuthorizationRefused("\(instance) is not an instance's address: give its https:// URL, such as https://misskey.io")
        }
        address = url
        client = MisskeyClient(configuration: .init(accounts: [:]), logger: logger)
    }

    /// Asks for the token (`code` is not used: MiAuth shows none); refused, in words, until the person approved.
    public func finish(code: String) async throws -> AuthorizedAccount {
        let check: MiAuthCheck
        do {
            check = try await client.send(CheckMiAuthSession(session: session), to: instance, token: nil, caller: nil)
        } catch {
            throw AuthorizationRefused("\(instance.host ?? "the instance") did not answer the check (\(error)): try again")
        }
        guard check.ok, let token = check.token, let user = check.user else {
            if comesBack {
                throw AuthorizationRefused(
                    "the instance has no approval for this sign-in (a token is handed over once): start again, and press \"Allow\"")
            }
            throw AuthorizationRefused(
                "the instance has no approval for this session yet: open the address, log in as the \(account) account, press \"Allow\", then press Enter here (a token is handed over once: if it was fetched already, run the command again)"
            )
        }
        var base = instance.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return AuthorizedAccount(
            handle: user.acct, userID: user.id, networkAccount: "\(user.id)@\(FleetServers.name(of: instance))",
            variables: [(account.environmentPrefix + "MISSKEY_URL", base), (account.environmentPrefix + "MISSKEY_TOKEN", token)])
    }
}
