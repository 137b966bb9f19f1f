public import BotCore
import Foundation

/// How a network's rules want a bot to say that it is one, and the check of the bot's account against it (`doctor`
/// prints it, `start` logs it once).
public enum BotDisclosure: Sendable, Equatable {
    /// The profile's text says the account is automated and names the person who runs it (X's automation rules: "clearly
    /// indicate what the account is", and who is responsible for it; X's "Automated" label points to that account).
    case profileNamingThePerson
    /// The account's bot flag (Mastodon's "This is an automated account"; Misskey's `isBot`).
    case botFlag
    /// The self-label `bot` on the account's profile record (Bluesky; `mirror_bot setup bluesky` adds it).
    case botLabel
    /// The bot flag, and a way to reach whoever runs the bot in the profile (Misskey: `isBot`, and the operator's contact,
    /// which large instances such as misskey.io require in a bot's bio).
    case botFlagAndContact

    /// Words that say an account is automated, in English and Japanese.
    static let automatedWords = ["bot", "automated", "automatic", "ボット", "自動"]

    /// What is missing on `bot`'s account, in a sentence that says exactly what to change; nil when nothing is, or when
    /// the read did not say (no profile, no flag).
    public func problem(bot: NetworkUser, person: NetworkUser, networkName: String) -> String? {
        switch self {
        case .botFlag:
            guard bot.markedAutomated == false else { return nil }
            return "@\(bot.handle) is not marked as automated on \(networkName): in Preferences → Profile tick \"This is an automated account\" "
                + "(the network's rules and many instances require it)"
        case .botLabel:
            guard bot.markedAutomated == false else { return nil }
            return "@\(bot.handle)'s profile on \(networkName) does not carry the self-label \"bot\": run `mirror_bot setup bluesky` to add it "
                + "(the profile's other fields are kept), as Bluesky asks of automated accounts"
        case .botFlagAndContact:
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
        case .profileNamingThePerson:
            guard let profile = bot.profile else { return nil }
            let folded = profile.lowercased()
            let saysAutomated = Self.automatedWords.contains { folded.contains($0) }
            let namesThePerson = folded.contains("@" + person.handle.lowercased())
            guard !saysAutomated || !namesThePerson else { return nil }
            let missing = [saysAutomated ? nil : "that it is automated", namesThePerson ? nil : "the person who runs it (@\(person.handle))"]
                .compactMap { $0 }.joined(separator: " and ")
            return "the bio of @\(bot.handle) does not say \(missing), as \(networkName)'s automation rules ask: set it to something like "
                + "\"Automated account: a mirror of @\(person.handle)'s posts, run by @\(person.handle).\" and, in Settings → Your account → "
                + "Account information → Automation, label the account as automated, managed by @\(person.handle)"
        }
    }
}
