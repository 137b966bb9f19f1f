public import BotCore
import SocialNetwork
public import XAPI

extension XMirrorNetwork {
    /// The most `reading` may cost on X: every post and user it may read billed, at `prices`.
    public static func mostItCosts(_ reading: PlannedReading, prices: XPriceList = .current) -> NetworkCost {
        switch reading {
        case .personsPosts(let count):
            let posts = max(0, min(count, 3_200))
            return NetworkCost(
                dollars: prices.cost(of: XBill(ownedPostReads: posts, userReads: 1)),
                parts: [
                    String(format: "up to %d of your own posts at $%.3f (owned reads)", posts, prices.ownedPostRead),
                    String(format: "your user once at $%.3f", prices.userRead),
                ])
        case .likesAndTimeline(let likes, let timeline):
            return NetworkCost(
                dollars: prices.cost(of: XBill(ownedPostReads: likes, postReads: timeline, userReads: 1 + likes + timeline)),
                parts: [
                    String(format: "up to %d of your likes at $%.3f (owned reads)", likes, prices.ownedPostRead),
                    String(format: "up to %d posts of your home timeline at $%.3f", timeline, prices.postRead),
                    String(
                        format: "their authors, at most %d, at $%.3f each (fewer: each is billed once a UTC day)", likes + timeline, prices.userRead),
                    String(format: "your user once at $%.3f", prices.userRead),
                ])
        }
    }

    /// The most `reading` may cost at the client's prices.
    public func mostItCosts(_ reading: PlannedReading) -> NetworkCost? { Self.mostItCosts(reading, prices: client.usage.prices) }
}
