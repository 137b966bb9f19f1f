public import BotCore
public import Foundation
public import SocialNetwork
import XAPI

/// `mirror_bot auth x`: OAuth 1.0a's PIN flow for one account, in the command's words. The command shows `address`,
/// the person approves the app there as the account, and the PIN X shows gives the account's access token.
public struct XAccountAuthorization: PendingAuthorization {
    private let flow: PINAuthorization
    private let request: PINAuthorization.RequestToken
    private let account: Account
    /// Where the person approves the app.
    public let address: URL

    /// Asks X at `baseURL` for a request token with the app's key and secret, for the PIN flow, or with `callback` for
    /// the front door's; throws `AuthorizationRefused`.
    public static func begin(
        for account: Account, consumerKey: String, consumerSecret: String, baseURL: URL, callback: URL? = nil
    ) async throws -> XAccountAuthorization {
        let flow = PINAuthorization(baseURL: baseURL, consumerKey: consumerKey, consumerSecret: consumerSecret)
        do {
            let request = try await flow.requestToken(callback: callback?.absoluteString ?? "oob")
            return XAccountAuthorization(flow: flow, request: request, account: account, address: flow.authorizeURL(for: request))
        } catch let error as PINAuthorizationError {
            throw AuthorizationRefused(error.reason)
        }
    }

    /// Exchanges the PIN X showed for the account's access token (`BOT_ACCESS_TOKEN`, `BOT_ACCESS_TOKEN_SECRET`);
    /// throws `AuthorizationRefused`.
    public func finish(code pin: String) async throws -> AuthorizedAccount {
        do {
            let token = try await flow.accessToken(for: request, pin: pin)
            let prefix = account.environmentPrefix
            return AuthorizedAccount(
                handle: token.screenName, userID: token.userID,
                variables: [(prefix + "ACCESS_TOKEN", token.token), (prefix + "ACCESS_TOKEN_SECRET", token.secret)])
        } catch let error as PINAuthorizationError {
            throw AuthorizationRefused(error.reason)
        }
    }

    /// The front door's callback: X's `oauth_token` (this request's) and `oauth_verifier`, or `denied` when the account
    /// cancelled; the app's key and secret join the access token's variables (the mirror signs with the door's app).
    public func finish(callback query: [String: String]) async throws -> AuthorizedAccount {
        guard query["denied"] == nil else { throw AuthorizationRefused("The app was not authorized on X's page: nothing is kept") }
        guard query["oauth_token"] == request.token, let verifier = query["oauth_verifier"], !verifier.isEmpty else {
            throw AuthorizationRefused("X's answer is not this sign-in's: start again")
        }
        var authorized = try await finish(code: verifier)
        let prefix = account.environmentPrefix
        authorized.variables =
            [(prefix + "CONSUMER_KEY", flow.consumerKey), (prefix + "CONSUMER_SECRET", flow.consumerSecret)] + authorized.variables
        // Another API than X's own (a test's, a proxy): the mirror goes there too.
        if flow.baseURL != XNetworkSettings.defaultBaseURL { authorized.variables.insert(("X_API_BASE_URL", flow.baseURL.absoluteString), at: 0) }
        return authorized
    }
}
