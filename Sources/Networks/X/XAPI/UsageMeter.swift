import BotClock
public import BotCore
import CoreMetrics
public import Foundation
import Synchronization

/// Counts every X API call by endpoint and account, and keeps the bill as X makes it: per resource returned (each
/// post and user billed once per UTC day and app, as X de-duplicates) and per write, priced by `XPriceList`.
public final class UsageMeter: Sendable {
    /// What one endpoint did for one account.
    public struct Usage: Sendable, Equatable {
        /// HTTP requests sent, retries included.
        public var calls = 0
        /// Posts received.
        public var postsRead = 0
        /// Posts created.
        public var postsCreated = 0
        /// Likes made.
        public var likes = 0
        /// Requests that ended in an error answer or no answer.
        public var failures = 0
        /// What X billed for them: resources first read today by this endpoint, and its writes.
        public var cost = 0.0
        /// When the last call that succeeded was made (the bot's clock).
        public var lastSuccessAt: Date?
    }

    /// One row of the usage table.
    public struct Key: Sendable, Hashable, Comparable {
        /// The endpoint, as the reference names it.
        public var endpoint: String
        /// The account that called it.
        public var account: Account
        /// A key from its parts.
        public init(endpoint: String, account: Account) {
            self.endpoint = endpoint
            self.account = account
        }
        /// Ordered by endpoint, then account.
        public static func < (lhs: Key, rhs: Key) -> Bool {
            (lhs.endpoint, lhs.account.rawValue) < (rhs.endpoint, rhs.account.rawValue)
        }
    }

    /// A resource as X de-duplicates it: per app, per kind, per id.
    private struct BilledKey: Hashable {
        var app: String
        var kind: UInt8
        var id: String
    }

    private struct State {
        var table: [Key: Usage] = [:]
        /// The UTC day `seen` belongs to.
        var seenDay = ""
        var seen = Set<BilledKey>()
        /// What this process was billed, per UTC day.
        var bills: [String: XBill] = [:]
        /// What other runs (earlier processes, a `train`) spent per UTC day, as stored.
        var spentElsewhere: [String: Double] = [:]
        /// Whether what other runs spent could not be read (at start): billed calls wait until it is.
        var spentElsewhereUnread = false
        /// The worst case of the calls in flight per UTC day: counted as spent until each has settled.
        var inFlight: [String: Double] = [:]
    }

    /// The prices the bill is made with.
    public let prices: XPriceList
    private let state = Mutex(State())

    /// An empty meter pricing with `prices`.
    public init(prices: XPriceList = .current) { self.prices = prices }

    /// The UTC day (`YYYY-MM-DD`) of `date`: X's billing day.
    public static func billingDay(of date: Date) -> String { LocalTime.utcDay(of: date) }

    /// Records a call that failed (an error answer or no answer): X bills nothing for it.
    public func recordFailure(endpoint: String, account: Account) {
        Counter(label: "mirror_bot_api_calls_total", dimensions: [("endpoint", endpoint), ("account", account.rawValue), ("outcome", "failed")])
            .increment()
        state.withLock { state in
            state.table[Key(endpoint: endpoint, account: account), default: Usage()].calls += 1
            state.table[Key(endpoint: endpoint, account: account), default: Usage()].failures += 1
        }
    }

    /// Records a successful call of `endpoint` as `account`, made with the app `app` (its consumer key) at `date`:
    /// the resources it returned and the write it made. Returns what X bills for it: the resources not already
    /// billed to that app this UTC day, and the write.
    @discardableResult
    public func recordSuccess(
        endpoint: String, account: Account, app: String, resources: XBilledResources, write: XWrite?,
        postsRead: Int, at date: Date
    ) -> XBill {
        let day = Self.billingDay(of: date)
        // Kept by the app's fingerprint, never its key: the users billed are carried across restarts in the store.
        let app = XRefusals.appFingerprint(app)
        let billed = state.withLock { state in
            if state.seenDay != day {
                state.seenDay = day
                state.seen.removeAll(keepingCapacity: true)
            }
            var bill = XBill()
            for id in resources.ownedPosts where state.seen.insert(BilledKey(app: app, kind: 0, id: id)).inserted { bill.ownedPostReads += 1 }
            for id in resources.posts where state.seen.insert(BilledKey(app: app, kind: 1, id: id)).inserted { bill.postReads += 1 }
            for id in resources.users where state.seen.insert(BilledKey(app: app, kind: 2, id: id)).inserted { bill.userReads += 1 }
            switch write {
            case .post(let withURL)?: if withURL { bill.postsCreatedWithURL += 1 } else { bill.postsCreated += 1 }
            case .interactionCreate?: bill.interactionsCreated += 1
            case .interactionDelete?: bill.interactionsDeleted += 1
            case nil: break
            }
            state.bills[day] = (state.bills[day] ?? XBill()) + bill
            let key = Key(endpoint: endpoint, account: account)
            var usage = state.table[key, default: Usage()]
            usage.calls += 1
            usage.postsRead += postsRead
            if case .post? = write { usage.postsCreated += 1 }
            if write == .interactionCreate { usage.likes += 1 }
            usage.cost += prices.cost(of: bill)
            usage.lastSuccessAt = max(usage.lastSuccessAt ?? date, date)
            state.table[key] = usage
            return bill
        }
        // The same as metrics (swift-metrics; /metrics when start serves HTTP): calls, posts read, estimated cost.
        Counter(label: "mirror_bot_api_calls_total", dimensions: [("endpoint", endpoint), ("account", account.rawValue), ("outcome", "ok")])
            .increment()
        if postsRead > 0 { Counter(label: "mirror_bot_api_posts_read_total", dimensions: [("endpoint", endpoint)]).increment(by: postsRead) }
        let cost = prices.cost(of: billed)
        if cost > 0 { FloatingPointCounter(label: "mirror_bot_api_cost_dollars_total", dimensions: [("endpoint", endpoint)]).increment(by: cost) }
        return billed
    }

    /// Sets what other runs spent on `day` (read from the store), so that the day's spend counts them too; the spend
    /// elsewhere is known from now on.
    public func setSpentElsewhere(_ dollars: Double, onBillingDay day: String) {
        state.withLock {
            $0.spentElsewhere[day] = dollars
            $0.spentElsewhereUnread = false
        }
    }

    /// Notes that what other runs spent could not be read: until `setSpentElsewhere` succeeds, the day's spend is
    /// unknown and billed calls wait (`isSpentElsewhereUnread`), rather than count from zero.
    public func markSpentElsewhereUnread() {
        state.withLock { $0.spentElsewhereUnread = true }
    }

    /// Whether what other runs spent is still unread.
    public var isSpentElsewhereUnread: Bool { state.withLock { $0.spentElsewhereUnread } }

    /// The users X billed on `day` as this process knows them (`<app fingerprint>:<user id>`, sorted): X bills each
    /// user once a UTC day and app, so a run started later the same day counts them as billed already
    /// (`countBilledUsers`) instead of again.
    public func billedUsers(onBillingDay day: String) -> [String] {
        state.withLock { state in
            guard state.seenDay == day else { return [] }
            return state.seen.filter { $0.kind == 2 }.map { "\($0.app):\($0.id)" }.sorted()
        }
    }

    /// Counts the users in `keys` (as `billedUsers` writes them) as billed on `day` already, by another run of that day.
    public func countBilledUsers(_ keys: [String], onBillingDay day: String) {
        state.withLock { state in
            if state.seenDay != day {
                guard state.seenDay < day else { return }  // a day gone by: nothing to count
                state.seenDay = day
                state.seen.removeAll(keepingCapacity: true)
            }
            for key in keys {
                let parts = key.split(separator: ":", maxSplits: 1)
                guard parts.count == 2 else { continue }
                state.seen.insert(BilledKey(app: String(parts[0]), kind: 2, id: String(parts[1])))
            }
        }
    }

    /// Counts `dollars` (a call's worst case) as spent on `day` while the call is in flight.
    public func reserveInFlight(_ dollars: Double, onBillingDay day: String) {
        state.withLock { $0.inFlight[day, default: 0] += dollars }
    }

    /// Stops counting a settled call's reservation (its bill, if any, is recorded by `recordSuccess`).
    public func releaseInFlight(_ dollars: Double, onBillingDay day: String) {
        state.withLock { state in
            let left = (state.inFlight[day] ?? 0) - dollars
            state.inFlight[day] = left > 1e-12 ? left : nil
        }
    }

    /// What this process is to be counted for on `day` wherever its spend is stored: its bill, and the worst case of
    /// its calls in flight (so a crash during a call loses no spend).
    public func recordedCost(onBillingDay day: String) -> Double {
        let (bill, inFlight) = state.withLock { ($0.bills[day] ?? XBill(), $0.inFlight[day] ?? 0) }
        return prices.cost(of: bill) + inFlight
    }

    /// What this process was billed on `day`.
    public func bill(onBillingDay day: String) -> XBill { state.withLock { $0.bills[day] ?? XBill() } }

    /// The UTC days this process was billed on, or has a call in flight on, in order.
    public var billingDays: [String] { state.withLock { Set($0.bills.keys).union($0.inFlight.keys).sorted() } }

    /// What this process spent on `day`, in dollars.
    public func ownSpend(onBillingDay day: String) -> Double { prices.cost(of: bill(onBillingDay: day)) }

    /// What was spent on `day` in all: by this process (its calls in flight at their worst case), and by the other
    /// runs set with `setSpentElsewhere`.
    public func spent(onBillingDay day: String) -> Double {
        let (bill, inFlight, elsewhere) = state.withLock { ($0.bills[day] ?? XBill(), $0.inFlight[day] ?? 0, $0.spentElsewhere[day] ?? 0) }
        return prices.cost(of: bill) + inFlight + elsewhere
    }

    /// Every row so far.
    public var snapshot: [Key: Usage] { state.withLock { $0.table } }

    /// The sum of every row.
    public var total: Usage {
        snapshot.values.reduce(into: Usage()) { total, usage in
            total.calls += usage.calls
            total.postsRead += usage.postsRead
            total.postsCreated += usage.postsCreated
            total.likes += usage.likes
            total.failures += usage.failures
            total.cost += usage.cost
        }
    }

    /// What this process was billed in all, in dollars.
    public var totalCost: Double { state.withLock { $0.bills.values.reduce(0) { $0 + prices.cost(of: $1) } } }

    /// One line per endpoint and account, then one per UTC day with its bill.
    public func report() -> [String] {
        let rows = snapshot.sorted { $0.key < $1.key }.map { key, usage in
            "\(key.endpoint) as \(key.account): \(usage.calls) calls, \(usage.postsRead) posts read, "
                + "\(usage.postsCreated) posted, \(usage.likes) liked, \(usage.failures) failed; "
                + String(format: "$%.3f", usage.cost)
        }
        let days = billingDays.map { day in
            String(
                format: "X's bill for %@ (UTC) by mirror_bot's count: $%.3f (%@)", day, ownSpend(onBillingDay: day),
                bill(onBillingDay: day).description)
        }
        let total = total
        return rows + days + [
            String(
                format: "total: %d calls, %d posts read, %d posted, %d liked; $%.3f at %@", total.calls, total.postsRead,
                total.postsCreated, total.likes, totalCost, prices.source)
        ]
    }
}
