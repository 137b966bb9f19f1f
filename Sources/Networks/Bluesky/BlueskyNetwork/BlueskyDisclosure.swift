import BotCore
public import SocialNetwork

extension BotDisclosure {
    /// The self-label `bot` on the account's profile record, as Bluesky asks of automated accounts (`mirror_bot setup
    /// bluesky` adds it).
    public static let botLabel = BotDisclosure("the self-label bot") { bot, _, networkName in
        guard bot.markedAutomated == false else { return nil }
        return "@\(bot.handle)'s profile on \(networkName) does not carry the self-label \"bot\": run `mirror_bot setup bluesky` to add it "
            + "(the profile's other fields are kept), as Bluesky asks of automated accounts"
    }
}
