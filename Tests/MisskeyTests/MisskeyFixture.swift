import BotClock
import BotCore
import FakeMisskey
import Foundation
import Logging
import MisskeyAPI
import MisskeyNetwork
import Stores

/// A small Misskey: the person, the bot (a bot-flagged account whose profile names the person), a friend who talks to
/// the person, an account whose profile says #nobot, and the person's notes of every kind: public and home ones
/// (copied), followers-only and specified ones, one behind a warning, a renote and a quote (never copied), a reply to
/// the friend, and a note in MFM.
enum MisskeyFixture {
    static let start = Date(timeIntervalSince1970: 1_764_000_000)  // 2025-11-24T16:00:00Z
    static let person = "9x0person00000001", bot = "9x0mirrorbot00001", friend = "9x0friend00000001", quiet = "9x0quiet000000001"
    static let quietLogger = Logger(label: "misskey-tests", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The id of a note made `minutesBefore` the start, the `number`th of that minute.
    static func id(_ minutesBefore: Int, _ number: Int = 0) -> String {
        FakeMisskeySeed.aidx(at: start.addingTimeInterval(Double(-minutesBefore * 60)), node: "seed", counter: number)
    }
    static func at(_ minutesBefore: Int) -> Date { start.addingTimeInterval(Double(-minutesBefore * 60)) }

    static var seed: FakeMisskeySeed {
        let notes: [FakeMisskeySeed.Note] = [
            .init(id: id(300), userID: friend, text: "今日は寒いね", createdAt: at(300)),
            .init(id: id(290), userID: person, text: "@friend 寒いよね", visibility: "home", replyID: id(300), createdAt: at(290)),
            .init(id: id(240), userID: person, text: "おはよう", createdAt: at(240)),
            .init(id: id(230), userID: person, text: "$[x2 **大きな**] ニュース :igyo:", visibility: "home", createdAt: at(230)),
            .init(id: id(200), userID: person, text: "見て https://example.com/a", createdAt: at(200)),
            .init(id: id(150), userID: person, text: "フォロワーだけに", visibility: "followers", createdAt: at(150)),
            .init(id: id(140), userID: person, text: "@friend ないしょ", visibility: "specified", createdAt: at(140), visibleUserIDs: [friend]),
            .init(id: id(100), userID: person, text: "ネタバレ注意", cw: "映画の話", createdAt: at(100)),
            .init(id: id(60), userID: person, text: nil, renoteID: id(300), createdAt: at(60)),
            .init(id: id(50), userID: person, text: "ほんとに", renoteID: id(300), createdAt: at(50)),
        ]
        var seed = FakeMisskeySeed(
            now: start,
            accounts: [
                .init(id: person, username: "person", token: "person-token", permissions: ["read:account", "read:reactions"], description: "わたし"),
                .init(id: bot, username: "mirror", token: "bot-token", isBot: true, description: "@person の自動ミラー (bot)"),
                .init(id: friend, username: "friend", description: "友だち"),
                .init(id: quiet, username: "quiet", description: "Please, no bots. #nobot"),
            ], notes: notes, reactions: [person: [(id(300), "❤")]], follows: [person: [friend], bot: [friend, person]])
        seed.maxNoteTextLength = 3_000
        return seed
    }

    /// A client for the fake at `url`: each account with its token.
    static func client(_ url: URL, clock: any BotClock = SystemBotClock()) -> MisskeyClient {
        MisskeyClient(
            configuration: .init(
                accounts: [.human: MisskeyAccess(instance: url, token: "person-token"), .bot: MisskeyAccess(instance: url, token: "bot-token")],
                initialBackoff: .milliseconds(1)),
            clock: clock, logger: quietLogger)
    }
}
