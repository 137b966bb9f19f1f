public import BotConfiguration
public import Foundation
import Synchronization

/// Counts every X API call by endpoint and account, with the posts read and the posts and likes made, so the
/// service can say what it cost its owner.
public final class UsageMeter: Sendable {
    /// What one endpoint did for one account.
    public struct Usage: Sendable, Equatable {
        /// HTTP requests sent, retries included.
        public var calls = 0
        /// Posts received (billed per post read).
        public var postsRead = 0
        /// Posts created.
        public var postsCreated = 0
        /// Likes made.
        public var likes = 0
        /// Requests that ended in an error answer or no answer.
        public var failures = 0
    }

    /// One row of the usage table.
    public struct Key: Sendable, Hashable, Comparable {
        /// The endpoint, as the reference names it.
        public var endpoint: String
        /// The account that called it.
        public var account: Account
        /// A key from its parts.
        public init(endpoint: String, account: Account) { self.endpoint = endpoint; self.account = account }
        /// Ordered by endpoint, then account.
        public static func < (lhs: Key, rhs: Key) -> Bool {
            (lhs.endpoint, lhs.account.rawValue) < (rhs.endpoint, rhs.account.rawValue)
        }
    }

    /// Prices in US dollars used for the estimate (X's pay-per-use prices of 2026; reads vary by plan).
    public struct Prices: Sendable {
        /// Per post read.
        public var perPostRead: Double
        /// Per post created.
        public var perPostCreated: Double
        /// Per like.
        public var perLike: Double
        /// The defaults: $0.005 per post read (the upper end), $0.015 per post, likes counted as posts.
        public static let `default` = Prices(perPostRead: 0.005, perPostCreated: 0.015, perLike: 0.015)
    }

    private let table = Mutex<[Key: Usage]>([:])

    /// An empty meter.
    public init() {}

    /// Adds to the row of `endpoint` and `account`.
    public func record(endpoint: String, account: Account, calls: Int = 1, postsRead: Int = 0, postsCreated: Int = 0,
                       likes: Int = 0, failures: Int = 0) {
        table.withLock { table in
            var usage = table[Key(endpoint: endpoint, account: account), default: Usage()]
            usage.calls += calls
            usage.postsRead += postsRead
            usage.postsCreated += postsCreated
            usage.likes += likes
            usage.failures += failures
            table[Key(endpoint: endpoint, account: account)] = usage
        }
    }

    /// Every row so far.
    public var snapshot: [Key: Usage] { table.withLock { $0 } }

    /// The sum of every row.
    public var total: Usage {
        snapshot.values.reduce(into: Usage()) { total, usage in
            total.calls += usage.calls; total.postsRead += usage.postsRead; total.postsCreated += usage.postsCreated
            total.likes += usage.likes; total.failures += usage.failures
        }
    }

    /// The estimated cost in dollars of what was counted.
    public func estimatedCost(prices: Prices = .default) -> Double {
        let total = total
        return Double(total.postsRead) * prices.perPostRead + Double(total.postsCreated) * prices.perPostCreated
            + Double(total.likes) * prices.perLike
    }

    /// One line per endpoint and account, then the total with the estimated cost.
    public func report(prices: Prices = .default) -> [String] {
        let rows = snapshot.sorted { $0.key < $1.key }.map { key, usage in
            "\(key.endpoint) as \(key.account): \(usage.calls) calls, \(usage.postsRead) posts read, "
                + "\(usage.postsCreated) posted, \(usage.likes) liked, \(usage.failures) failed"
        }
        let total = total
        return rows + [String(format: "total: %d calls, %d posts read, %d posted, %d liked; estimated cost $%.3f",
                              total.calls, total.postsRead, total.postsCreated, total.likes, estimatedCost(prices: prices))]
    }
}
