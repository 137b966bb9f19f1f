/// `GET /api/v1/accounts/lookup?acct=`: the account an instance knows by `username` (its own) or
/// `username@domain` (another instance's), without asking the other instance; 404 when it does not know it.
public struct LookupAccount: MastodonEndpoint {
    /// The account.
    public typealias Response = MastodonAccount
    /// The reference's name.
    public static let name = "GET /api/v1/accounts/lookup"
    /// `username` or `username@domain`.
    public var acct: String
    /// The request for `acct`.
    public init(acct: String) { self.acct = acct }
    /// GET.
    public var method: MastodonMethod { .GET }
    /// The path.
    public var path: String { "/api/v1/accounts/lookup" }
    /// `acct`.
    public var query: [(String, String)] { [("acct", acct)] }
}
