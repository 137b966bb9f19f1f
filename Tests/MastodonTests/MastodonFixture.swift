import BotClock
import BotConfiguration
import FakeMastodon
import Foundation
import Logging
import MastodonAPI

/// A small instance for the Mastodon tests: the person (id 100), the bot (200, bot flag), a friend (300) and a
/// stranger (400); the person's statuses in every visibility, with a content warning, a boost and a reply.
enum MastodonFixture {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)
    static let personID = "100", botID = "200", friendID = "300", strangerID = "400"
    static let personToken = "person-token", botToken = "bot-token", friendToken = "friend-token"
    /// The passwords the person and the bot sign in with on the authorization page.
    static let personPassword = "person-password", botPassword = "bot-password"

    /// The id of the `index`-th seeded status (higher is newer).
    static func statusID(_ index: Int) -> String { String(110_000_000_000_000_000 + UInt64(index)) }

    /// The person's statuses, a minute apart, ending a minute before the start: `count` public ones, then one of each
    /// case the bot must not copy, then a friend's mention of the bot and one by a stranger whose profile says #nobot.
    static func seed(publicStatuses count: Int = 5) -> FakeMastodonSeed {
        var statuses: [FakeMastodonSeed.Status] = []
        func add(
            _ accountID: String, _ content: String, visibility: String = "public", spoiler: String = "", replyTo: String? = nil,
            mentions: [String] = [], boost: String? = nil
        ) {
            let index = statuses.count
            statuses.append(
                .init(
                    id: statusID(index), accountID: accountID, content: content, createdAt: start.addingTimeInterval(Double(index - 100) * 60),
                    visibility: visibility, spoilerText: spoiler, inReplyToID: replyTo, mentionIDs: mentions, reblogOf: boost))
        }
        for index in 0..<count { add(personID, "<p>今日の投稿 \(index) &amp; more<br>二行目</p>") }
        add(personID, "<p>followers only</p>", visibility: "private")
        add(personID, "<p>a direct message</p>", visibility: "direct", mentions: [friendID])
        add(personID, "<p>behind a warning</p>", spoiler: "ネタバレ")
        add(personID, "", boost: statusID(0))
        add(personID, "<p>unlisted one</p>", visibility: "unlisted")
        add(
            friendID,
            #"<p><span class="h-card"><a href="https://mastodon.example/@mirror" class="u-url mention">@<span>mirror</span></a></span> hi</p>"#,
            visibility: "private", mentions: [botID])
        add(strangerID, "<p>@mirror hello from someone who asks bots to stay away</p>", mentions: [botID])
        return FakeMastodonSeed(
            now: start,
            accounts: [
                .init(id: personID, username: "person", token: personToken, scopes: ["read"], password: personPassword),
                .init(
                    id: botID, username: "mirror", token: botToken, scopes: ["read", "write:statuses", "write:favourites"], bot: true,
                    password: botPassword),
                .init(id: friendID, username: "friend", token: friendToken),
                .init(id: strangerID, username: "stranger", note: "<p>no bots please #nobot</p>"),
            ],
            statuses: statuses,
            favourites: [personID: [statusID(1), statusID(2), statusID(3)]],
            follows: [personID: [friendID], botID: [personID, friendID]])
    }

    static var logger: Logger {
        var logger = Logger(label: "mastodon-tests")
        logger.logLevel = .critical
        return logger
    }

    static func client(_ url: URL, botToken: String = MastodonFixture.botToken, clock: any BotClock = ManualBotClock(now: start)) -> MastodonClient {
        MastodonClient(
            configuration: .init(accounts: [
                .human: MastodonAccess(instance: url, token: personToken),
                .bot: MastodonAccess(instance: url, token: botToken),
            ]),
            clock: clock, logger: logger)
    }
}

/// Runs `body` against a fake instance seeded with `seed`.
func withFakeMastodon<Result: Sendable>(
    _ seed: FakeMastodonSeed = MastodonFixture.seed(),
    _ body: @Sendable (FakeMastodonServer, URL) async throws -> Result
) async throws -> Result {
    let server = FakeMastodonServer(seed: seed, logger: MastodonFixture.logger)
    return try await server.withRunning { url in try await body(server, url) }
}
