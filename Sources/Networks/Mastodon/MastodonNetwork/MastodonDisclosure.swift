import BotCore
public import SocialNetwork

extension BotDisclosure {
    /// Mastodon's bot flag ("This is an automated account"), which the network's rules and many instances require.
    public static let botFlag = BotDisclosure("the bot flag") { bot, _, networkName in
        guard bot.markedAutomated == false else { return nil }
        return "@\(bot.handle) is not marked as automated on \(networkName): in Preferences → Profile tick \"This is an automated account\" "
            + "(the network's rules and many instances require it)"
    }
}
