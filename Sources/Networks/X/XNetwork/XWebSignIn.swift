import BotConfiguration
public import BotCore
public import Foundation
public import Logging
public import SocialNetwork

/// Signing in on X from the front door: OAuth 1.0a with the door's callback instead of a PIN. The door's operator
/// brings the app (`DOOR_X_CONSUMER_KEY`, `DOOR_X_CONSUMER_SECRET`: X bills each app for what it reads and posts, so X
/// is offered only where the operator set them); the account's owner approves it on X's page, which sends the browser
/// back with `oauth_token` and `oauth_verifier`, exchanged for the account's access token. The mirror then signs with
/// the operator's app and the account's token.
public struct XWebSignIn: WebSignIn {
    let app: (key: String, secret: String)?
    let baseURL: URL

    /// The flow before it is placed at a door (`at(_:)`).
    public init() {
        app = nil
        baseURL = XNetworkSettings.defaultBaseURL
    }

    init(app: (key: String, secret: String), baseURL: URL) {
        self.app = app
        self.baseURL = baseURL
    }

    /// The flow with the operator's app; nil when the door's environment names none.
    public func at(_ door: WebDoor) -> (any WebSignIn)? {
        guard let key = door.environment["DOOR_X_CONSUMER_KEY"], !key.isEmpty, let secret = door.environment["DOOR_X_CONSUMER_SECRET"],
            !secret.isEmpty
        else { return nil }
        var reader = EnvironmentReader(environment: door.environment)
        let baseURL = reader.apiBaseURL("X_API_BASE_URL", default: XNetworkSettings.defaultBaseURL, example: "https://api.x.com")
        return XWebSignIn(app: (key, secret), baseURL: baseURL)
    }

    /// None: X is one service.
    public var serverExample: String? { nil }

    /// A request token for the door's callback (`state` in its query), and X's page to approve the app on.
    public func begin(for account: Account, server: String, redirect: URL, state: String, logger: Logger) async throws -> any PendingAuthorization {
        guard let app else { throw AuthorizationRefused("This door has no X app: its operator sets DOOR_X_CONSUMER_KEY and DOOR_X_CONSUMER_SECRET") }
        let callback = redirect.appending(queryItems: [URLQueryItem(name: "state", value: state)])
        return try await XAccountAuthorization.begin(
            for: account, consumerKey: app.key, consumerSecret: app.secret, baseURL: baseURL, callback: callback)
    }
}
