public import XAPI

/// What a training may cost at most on X, said before its first paid read: every post and user it may read billed.
public struct TrainingCost: Sendable, Equatable {
    /// The bill if everything that may be read is billed.
    public var bill: XBill
    /// What is read, in words, with each part's price.
    public var parts: [String]

    /// At most this, in US dollars.
    public func dollars(at prices: XPriceList = .current) -> Double { prices.cost(of: bill) }

    /// `train scheduler`: the human's user once, then up to `maxTweets` (at most 3,200) of their own posts.
    public static func scheduler(maxTweets: Int, prices: XPriceList = .current) -> TrainingCost {
        let posts = max(0, min(maxTweets, Trainer.schedulerTweetLimit))
        return TrainingCost(bill: XBill(ownedPostReads: posts, userReads: 1), parts: [
            String(format: "up to %d of your own posts at $%.3f (owned reads)", posts, prices.ownedPostRead),
            String(format: "your user once at $%.3f", prices.userRead),
        ])
    }

    /// `train classifier`: the human's user, 800 of their likes and 800 posts of their home timeline, with each
    /// post's author (a feature of the filter; at most one author per post, each billed once a UTC day).
    public static func classifier(prices: XPriceList = .current) -> TrainingCost {
        let limit = Trainer.classifierTweetLimit
        return TrainingCost(bill: XBill(ownedPostReads: limit, postReads: limit, userReads: 1 + 2 * limit), parts: [
            String(format: "up to %d of your likes at $%.3f (owned reads)", limit, prices.ownedPostRead),
            String(format: "up to %d posts of your home timeline at $%.3f", limit, prices.postRead),
            String(format: "their authors, at most %d, at $%.3f each (fewer: each is billed once a UTC day)", 2 * limit, prices.userRead),
            String(format: "your user once at $%.3f", prices.userRead),
        ])
    }

    /// "at most $0.91: up to 900 of your own posts at $0.001 (owned reads), your user once at $0.010".
    public func summary(at prices: XPriceList = .current) -> String {
        String(format: "at most $%.2f: ", dollars(at: prices)) + parts.joined(separator: ", ")
    }
}
