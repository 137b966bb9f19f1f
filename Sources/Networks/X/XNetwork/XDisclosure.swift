import BotCore
public import SocialNetwork

extension BotDisclosure {
    /// The profile's text says the account is automated and names the person who runs it (X's automation rules:
    /// "clearly indicate what the account is", and who is responsible for it; X's "Automated" label points to that
    /// account).
    public static let profileNamingThePerson = BotDisclosure("a bio naming the person") { bot, person, networkName in
        guard let profile = bot.profile else { return nil }
        let folded = profile.lowercased()
        let saysAutomated = automatedWords.contains { folded.contains($0) }
        let namesThePerson = folded.contains("@" + person.handle.lowercased())
        guard !saysAutomated || !namesThePerson else { return nil }
        let missing = [saysAutomated ? nil : "that it is automated", namesThePerson ? nil : "the person who runs it (@\(person.handle))"]
            .compactMap { $0 }.joined(separator: " and ")
        return "the bio of @\(bot.handle) does not say \(missing), as \(networkName)'s automation rules ask: set it to something like "
            + "\"Automated account: a mirror of @\(person.handle)'s posts, run by @\(person.handle).\" and, in Settings → Your account → "
            + "Account information → Automation, label the account as automated, managed by @\(person.handle)"
    }

    /// Words that say an account is automated, in English and Japanese.
    static let automatedWords = ["bot", "automated", "automatic", "ボット", "自動"]
}
