import BotCore
import Foundation
public import SocialNetwork

extension BotDisclosure {
    /// The bot flag (`isBot`), and a way to reach whoever runs the bot in the profile, which large Misskey instances
    /// such as misskey.io require in a bot's bio.
    public static let botFlagAndContact = BotDisclosure("the bot flag and a contact") { bot, person, networkName in
        let flagged = bot.markedAutomated != false
        let contact = bot.profile.map { profile in
            profile.contains("@") || profile.contains("://") || profile.localizedCaseInsensitiveContains("contact") || profile.contains("連絡")
        }
        guard !flagged || contact == false else { return nil }
        let missing = [
            flagged ? nil : "is not marked as a bot (Settings → Profile → \"This account is a bot\")",
            contact == false ? "does not say how to reach who runs it (write @\(person.handle) or another contact in its profile)" : nil,
        ]
        .compactMap { $0 }.joined(separator: " and ")
        return
            "@\(bot.handle) \(missing) on \(networkName): the network's rules, and large instances' (misskey.io's among them), ask both of bots"
    }
}
