/// X's pay-per-use prices in US dollars: the one place mirror_bot knows them. Every cost it logs, prints, budgets
/// or reports (the hourly usage line, the closing summary, `doctor`, `train`, the demo's report) comes from here.
///
/// Reads are billed per resource returned and each resource once per UTC day; writes per request.
public struct XPriceList: Sendable, Equatable {
    /// Where and when the rates were read.
    public var source: String
    /// A post of the app owner's own (their posts, mentions and likes: "owned reads").
    public var ownedPostRead: Double
    /// Any other post (the home timeline included).
    public var postRead: Double
    /// A user, also each author `expansions=author_id` returns.
    public var userRead: Double
    /// A post made ("Content: Create").
    public var postCreate: Double
    /// A post made that contains a URL ("Content: Create (with URL)").
    public var postCreateWithURL: Double
    /// A like ("User Interaction: Create"); self-serve apps have no likes endpoints since 2026-04-20.
    public var interactionCreate: Double
    /// An unlike or a deleted post ("Interaction: Delete").
    public var interactionDelete: Double

    /// The rates on X's pricing page (docs.x.com/x-api/getting-started/pricing) as published in April 2026.
    public static let april2026 = XPriceList(
        source: "X's pricing page (docs.x.com/x-api/getting-started/pricing), April 2026",
        ownedPostRead: 0.001, postRead: 0.005, userRead: 0.010, postCreate: 0.015, postCreateWithURL: 0.200,
        interactionCreate: 0.015, interactionDelete: 0.010)

    /// The prices mirror_bot uses.
    public static let current = april2026

    /// What `bill` costs at these prices.
    public func cost(of bill: XBill) -> Double {
        Double(bill.ownedPostReads) * ownedPostRead + Double(bill.postReads) * postRead + Double(bill.userReads) * userRead
            + Double(bill.postsCreated) * postCreate + Double(bill.postsCreatedWithURL) * postCreateWithURL
            + Double(bill.interactionsCreated) * interactionCreate + Double(bill.interactionsDeleted) * interactionDelete
    }

    /// One line naming every rate, for `doctor` and docs/x.md.
    public var summary: String {
        String(
            format: "own posts read $%.3f, other posts $%.3f, users $%.3f; a post made $%.3f, with a URL $%.3f; a like $%.3f (%@)",
            ownedPostRead, postRead, userRead, postCreate, postCreateWithURL, interactionCreate, source)
    }
}

/// Billable resources and requests, counted the way X bills them.
public struct XBill: Sendable, Equatable, Codable {
    /// Posts of the account's own read.
    public var ownedPostReads = 0
    /// Other posts read.
    public var postReads = 0
    /// Users read (users/me and expanded authors).
    public var userReads = 0
    /// Posts created without a URL.
    public var postsCreated = 0
    /// Posts created with a URL.
    public var postsCreatedWithURL = 0
    /// Likes made.
    public var interactionsCreated = 0
    /// Likes taken back and posts deleted.
    public var interactionsDeleted = 0

    /// An empty bill, or one from its parts.
    public init(
        ownedPostReads: Int = 0, postReads: Int = 0, userReads: Int = 0, postsCreated: Int = 0, postsCreatedWithURL: Int = 0,
        interactionsCreated: Int = 0, interactionsDeleted: Int = 0
    ) {
        self.ownedPostReads = ownedPostReads
        self.postReads = postReads
        self.userReads = userReads
        self.postsCreated = postsCreated
        self.postsCreatedWithURL = postsCreatedWithURL
        self.interactionsCreated = interactionsCreated
        self.interactionsDeleted = interactionsDeleted
    }

    /// The sum of two bills.
    public static func + (lhs: XBill, rhs: XBill) -> XBill {
        XBill(
            ownedPostReads: lhs.ownedPostReads + rhs.ownedPostReads, postReads: lhs.postReads + rhs.postReads,
            userReads: lhs.userReads + rhs.userReads, postsCreated: lhs.postsCreated + rhs.postsCreated,
            postsCreatedWithURL: lhs.postsCreatedWithURL + rhs.postsCreatedWithURL,
            interactionsCreated: lhs.interactionsCreated + rhs.interactionsCreated,
            interactionsDeleted: lhs.interactionsDeleted + rhs.interactionsDeleted)
    }

    /// What `lhs` billed beyond `rhs` (a later record of a cumulative bill minus an earlier one).
    public static func - (lhs: XBill, rhs: XBill) -> XBill {
        XBill(
            ownedPostReads: lhs.ownedPostReads - rhs.ownedPostReads, postReads: lhs.postReads - rhs.postReads,
            userReads: lhs.userReads - rhs.userReads, postsCreated: lhs.postsCreated - rhs.postsCreated,
            postsCreatedWithURL: lhs.postsCreatedWithURL - rhs.postsCreatedWithURL,
            interactionsCreated: lhs.interactionsCreated - rhs.interactionsCreated,
            interactionsDeleted: lhs.interactionsDeleted - rhs.interactionsDeleted)
    }

    /// Whether nothing is billed.
    public var isEmpty: Bool { self == XBill() }

    /// "12 own posts read, 2 users read, 16 posts made" (only what is there).
    public var description: String {
        let parts: [(Int, String)] = [
            (ownedPostReads, "own posts read"), (postReads, "other posts read"), (userReads, "users read"),
            (postsCreated, "posts made"), (postsCreatedWithURL, "posts with a URL made"), (interactionsCreated, "likes"),
            (interactionsDeleted, "deletions (unlikes, posts deleted)"),
        ]
        let text = parts.filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
        return text.isEmpty ? "nothing billable" : text
    }

    enum CodingKeys: String, CodingKey {
        case ownedPostReads = "owned_post_reads"
        case postReads = "post_reads"
        case userReads = "user_reads"
        case postsCreated = "posts_created"
        case postsCreatedWithURL = "posts_created_with_url"
        case interactionsCreated = "interactions_created"
        case interactionsDeleted = "interactions_deleted"
    }
}
