public import BotCore
public import Foundation
import HTTPCore
public import Logging
import MastodonAPI
public import SocialNetwork
import Stores

/// `mirror_bot auth mastodon`: OAuth 2's authorization code flow with PKCE on the account's instance, for a command
/// line. mirror_bot registers itself as an application with the scopes the account needs (`POST /api/v1/apps`); the
/// person opens `address`, signs in as the account and approves; the instance shows a code (the out-of-band redirect
/// `urn:ietf:wg:oauth:2.0:oob`: nothing listens for a redirect, so there is no `state` to check), which the person
/// pastes; `finish(code:)` exchanges it with the PKCE verifier for a token (`POST /oauth/token`) and asks whose it is
/// (`verify_credentials`). The client secret and the verifier stay in this process.
public struct MastodonAccountAuthorization: PendingAuthorization {
    /// Where the person approves the app.
    public let address: URL
    /// The account being authorized.
    public let account: Account
    /// The account's instance.
    public let instance: URL
    /// The scopes asked for: what the account needs (`MastodonScopes.needed(by:liking:)`), no more.
    public let scopes: [String]
    /// Where the instance sends the code: the out-of-band URI (shown to copy) for a command line, a page's callback
    /// for the web.
    public let redirectURI: String
    /// The application registered for this authorization.
    let application: MastodonCredentialApplication
    let proof: CodeExchangeProof
    let client: MastodonClient

    /// The redirect URI that makes the instance show the code instead of sending it somewhere.
    public static let outOfBandRedirect = "urn:ietf:wg:oauth:2.0:oob"
    /// The application's name, shown on the authorization page and under Preferences → Account → Authorized apps.
    public static let applicationName = "mirror_bot"

    /// Registers mirror_bot on `instance` with the scopes `account` needs (`liking`: the bot's favourites too) and makes
    /// the address where the account's owner approves it; throws `AuthorizationRefused`. `redirectURI` is where the
    /// code goes (the out-of-band URI by default: shown to copy), with `state` when given (a web page's callback).
    public static func begin(
        for account: Account, instance: URL, liking: Bool = true, redirectURI: String = outOfBandRedirect, state: String? = nil, logger: Logger
    ) async throws -> MastodonAccountAuthorization {
        let host = instance.host() ?? instance.absoluteString
        let scopes = MastodonScopes.needed(by: account, liking: liking)
        let client = MastodonClient(configuration: .init(accounts: [:], maxAttempts: 2), logger: logger)
        let application: MastodonCredentialApplication
        do {
            application = try await client.send(
                CreateApp(clientName: applicationName, redirectURIs: [redirectURI], scopes: scopes),
                to: instance, token: nil, as: account)
        } catch {
            throw AuthorizationRefused(
                "\(host) did not register mirror_bot as an application (\(error)): check that \(instance.absoluteString) is the account's Mastodon instance, and try again"
            )
        }
        let proof = CodeExchangeProof()
        let request = AuthorizeUser(
            clientID: application.clientID, redirectURI: redirectURI, scopes: scopes, codeChallenge: proof.challenge, state: state,
            forceLogin: true)
        guard let address = request.address(on: instance) else {
            throw AuthorizationRefused("\(instance) is not an instance's address: give its https:// URL, such as https://mastodon.social")
        }
        return MastodonAccountAuthorization(
            address: address, account: account, instance: instance, scopes: scopes, redirectURI: redirectURI, application: application,
            proof: proof, client: client)
    }

    /// Exchanges the code the instance showed for the account's token, checks that it grants the scopes asked for and
    /// whose it is, and returns `*_MASTODON_URL` and `*_MASTODON_TOKEN`; throws `AuthorizationRefused` saying what to do.
    public func finish(code: String) async throws -> AuthorizedAccount {
        let host = instance.host() ?? instance.absoluteString
        let code = code.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !code.isEmpty else {
            throw AuthorizationRefused("no code was given: paste the code the page shows after \"Authorize\"")
        }
        let token: MastodonToken
        do {
            token = try await client.send(
                ObtainToken(
                    clientID: application.clientID, clientSecret: application.clientSecret, code: code,
                    redirectURI: redirectURI, codeVerifier: proof.verifier),
                to: instance, token: nil, as: account)
        } catch MastodonAPIError.oauthRefused(_, _, "invalid_grant", let description) {
            throw AuthorizationRefused(
                "\(host) did not accept the code (invalid_grant: \(description)): paste it exactly as the page shows it; a code works once and for 10 minutes, so for an older one run the command again"
            )
        } catch MastodonAPIError.oauthRefused(_, _, let error, let description) {
            throw AuthorizationRefused("\(host) refused the code's exchange (\(error): \(description)): run the command again")
        } catch {
            throw AuthorizationRefused("\(host) did not answer the code's exchange (\(error)): try again")
        }
        let missing = MastodonScopes.missing(scopes, from: token.scopes)
        guard missing.isEmpty else {
            await revoke(token)
            throw AuthorizationRefused(
                "\(host) granted \(token.scope.isEmpty ? "no scope" : token.scope), without \(missing.joined(separator: ", ")) that the \(account) needs: the token was revoked; run the command again and approve every permission the page asks for"
            )
        }
        let user: MastodonAccount
        do {
            user = try await client.send(VerifyCredentials(), to: instance, token: token.accessToken, as: account)
        } catch {
            await revoke(token)
            throw AuthorizationRefused("\(host) did not say whose the new token is (\(error)): the token was revoked; run the command again")
        }
        var base = instance.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let prefix = account.environmentPrefix
        // At the front door, the application the token was made for is kept with the mirror (sealed), so that deleting
        // the mirror takes the token back; a command line's token is the .env's owner's to revoke.
        var keeping: SignInKeeping?
        var release: (@Sendable () async -> Bool)?
        if redirectURI != Self.outOfBandRedirect {
            let kept = try? String(decoding: JSONEncoder().encode(KeptApplication(application)), as: UTF8.self)
            let (account, key) = (account, Self.keptApplicationKey(account))
            if let kept { keeping = { state, sealer in try await state.setValue(try sealer.seal(kept), of: key) } }
            let (client, instance, application) = (client, instance, application)
            release = { await Self.revoke(token.accessToken, of: KeptApplication(application), at: instance, as: account, client: client) }
        }
        return AuthorizedAccount(
            handle: user.acct, userID: user.id, networkAccount: "\(user.id)@\(FleetServers.name(of: instance))",
            variables: [(prefix + "MASTODON_URL", base), (prefix + "MASTODON_TOKEN", token.accessToken)], keeping: keeping, release: release)
    }

    /// Revokes a token that will not be handed over, so that no unused token is left acting as the account.
    private func revoke(_ token: MastodonToken) async {
        _ = await Self.revoke(token.accessToken, of: KeptApplication(application), at: instance, as: account, client: client)
    }

    /// The application a front door's sign-in made its token for: what revokes the token (`POST /oauth/revoke` takes
    /// the application's id and secret).
    struct KeptApplication: Codable, Sendable {
        var clientID: String
        var clientSecret: String

        init(_ application: MastodonCredentialApplication) {
            clientID = application.clientID
            clientSecret = application.clientSecret
        }
    }

    /// The state's key under which the front door keeps, sealed, the application `account` signed in with.
    static func keptApplicationKey(_ account: Account) -> String { "mastodon.sign_in_application.\(account.rawValue)" }

    /// Revokes `token` on `instance` as the application it was made for; whether the instance took it back.
    static func revoke(_ token: String, of application: KeptApplication, at instance: URL, as account: Account, client: MastodonClient) async -> Bool
    {
        (try? await client.send(
            RevokeToken(clientID: application.clientID, clientSecret: application.clientSecret, token: token), to: instance, token: nil,
            as: account)) != nil
    }

    /// Revokes, at deletion, the tokens of the accounts `access` names whose application the front door kept in `state`
    /// (sealed with `sealer`); the accounts whose token the instance took back.
    static func releaseKept(
        _ access: [(Account, MastodonAccess?)], state: any BotState, sealer: any SecretSealer, logger: Logger
    ) async -> [Account] {
        let client = MastodonClient(configuration: .init(accounts: [:], maxAttempts: 2), logger: logger)
        var released: [Account] = []
        for case (let account, let access?) in access {
            guard let sealed = try? await state.value(of: keptApplicationKey(account)) else { continue }
            guard let text = try? sealer.open(sealed), let application = try? JSONDecoder().decode(KeptApplication.self, from: Data(text.utf8))
            else {
                logger.warning("Mastodon: the \(account)'s kept application cannot be opened: its token stays approved until its owner removes it")
                continue
            }
            if await revoke(access.token, of: application, at: access.instance, as: account, client: client) {
                released.append(account)
            } else {
                logger.warning(
                    "Mastodon: the \(account)'s token could not be revoked on \(access.instance.host() ?? "its instance"): it stays approved until its owner removes it"
                )
            }
        }
        return released
    }
}
