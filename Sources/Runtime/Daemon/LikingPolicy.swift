public import BotCore
public import SocialNetwork

/// Whether the bot likes: chosen by `LIKES` and by what the network offers (with `auto`, X offers no likes), and
/// off while the network refuses the likes endpoints (until the daily recheck). When it is off, nothing is read that
/// only liking needs: the bot's home timeline, the person's timeline and likes.
public struct LikingPolicy: Sendable {
    /// `LIKES`.
    public let setting: LikesSetting
    /// The network the bot likes on.
    public let network: any MirrorNetwork

    /// The policy for `setting` on `network`.
    public init(setting: LikesSetting, network: any MirrorNetwork) {
        self.setting = setting
        self.network = network
    }

    /// Why the network does not offer liking, if it does not.
    public var networkReason: String? { network.capabilities.whyNoLikes }

    /// Whether liking was chosen (`on`, or `auto` where the network offers it).
    public var isChosen: Bool { setting == .on || (setting == .auto && networkReason == nil) }

    /// The network's refusal of the likes endpoints, while it lasts.
    public var refusal: NetworkRefusal? { network.refusal(of: .likes, for: .bot) }

    /// Whether the bot likes now: chosen and not refused.
    public var isActive: Bool { isChosen && refusal == nil }

    /// One line for the log and `doctor`: whether the bot likes, and why.
    public var statusLine: String {
        switch setting {
        case .off:
            return "likes: off (LIKES=off); the bot's home timeline and the person's timeline and likes are not read"
        case .auto where networkReason != nil:
            return "likes: off (LIKES=auto: \(networkReason ?? "")); nothing only liking needs is read. Set LIKES=on to try anyway"
        case .auto, .on:
            if let refusal {
                return
                    "likes: off since \(refusal.since.formatted(.iso8601)): \(network.name) refused \(refusal.what) (\(refusal.detail)); checked again once a day, next at \(refusal.recheckAt.formatted(.iso8601))"
            }
            // Chosen against the network's word (LIKES=on where it asks bots not to): said once, beside the choice.
            return "likes: on (LIKES=\(setting.rawValue))" + (setting == .on && networkReason != nil ? ", though \(networkReason ?? "")" : "")
        }
    }
}
