/// `POST /api/v1/apps`: registers an application on the instance, giving it OAuth 2 credentials (`client_id`,
/// `client_secret`) for the authorization code flow. Needs no token; each call registers a new application.
public struct CreateApp: MastodonEndpoint {
    /// The application with its credentials (`CredentialApplication`).
    public typealias Response = MastodonCredentialApplication
    /// The reference's name.
    public static let name = "POST /api/v1/apps"
    /// `client_name`: the name the account's owner sees on the authorization page and under Authorized apps.
    public var clientName: String
    /// `redirect_uris`: where the instance may send a code; `urn:ietf:wg:oauth:2.0:oob` shows it to the person instead.
    public var redirectURIs: [String]
    /// `scopes`: the most an authorization of this application may grant.
    public var scopes: [String]
    /// `website`: the application's home page, if any.
    public var website: String?

    /// The request to register `clientName` with `redirectURIs` and `scopes`.
    public init(clientName: String, redirectURIs: [String], scopes: [String], website: String? = nil) {
        self.clientName = clientName
        self.redirectURIs = redirectURIs
        self.scopes = scopes
        self.website = website
    }

    /// POST.
    public var method: MastodonMethod { .POST }
    /// The path.
    public var path: String { "/api/v1/apps" }
    /// `{"client_name", "redirect_uris", "scopes" (space-separated), "website"}`.
    public var body: [String: MastodonBodyValue]? {
        var body: [String: MastodonBodyValue] = [
            "client_name": .string(clientName), "redirect_uris": .strings(redirectURIs),
            "scopes": .string(scopes.joined(separator: " ")),
        ]
        if let website { body["website"] = .string(website) }
        return body
    }
}
