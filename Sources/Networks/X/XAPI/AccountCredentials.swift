/// The four OAuth 1.0a user-context secrets of one X account (the human's or the bot's).
public struct AccountCredentials: Sendable, Equatable {
    /// The app's consumer key (API key).
    public var consumerKey: String
    /// The app's consumer secret (API key secret).
    public var consumerSecret: String
    /// The account's access token.
    public var accessToken: String
    /// The account's access token secret.
    public var accessTokenSecret: String

    /// Credentials from their four parts.
    public init(consumerKey: String, consumerSecret: String, accessToken: String, accessTokenSecret: String) {
        self.consumerKey = consumerKey
        self.consumerSecret = consumerSecret
        self.accessToken = accessToken
        self.accessTokenSecret = accessTokenSecret
    }
}

extension AccountCredentials: CustomStringConvertible, CustomDebugStringConvertible {
    // Secrets never reach a log line or an error message, even by accident through string interpolation.
    /// A description that names the consumer key's first characters only.
    public var description: String { "AccountCredentials(consumerKey: \(consumerKey.prefix(4))…, secrets redacted)" }
    /// Same as `description`.
    public var debugDescription: String { description }
}
