import BotClock
import BotConfiguration
import FakeX
import Foundation
import Logging
import XAPI

/// A small world for client tests: the human (id 100), the bot (200) and a friend (300) who follows both.
enum Fixture {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)
    static let humanID = "100", botID = "200", friendID = "300"
    static let human = AccountCredentials(
        consumerKey: "human-app", consumerSecret: "human-app-secret",
        accessToken: "100-human-token", accessTokenSecret: "human-token-secret")
    static let bot = AccountCredentials(
        consumerKey: "bot-app", consumerSecret: "bot-app-secret",
        accessToken: "200-bot-token", accessTokenSecret: "bot-token-secret")
    static let firstTweetID: UInt64 = 1_700_000_000_000_000_000

    /// The id of the human's `index`-th tweet (higher is newer).
    static func tweetID(_ index: Int) -> String { String(firstTweetID + UInt64(index)) }

    /// `count` tweets of the human, ten minutes apart, the last one a minute before the start; every fifth a reply.
    static func humanTweets(_ count: Int) -> [FakeXSeed.Tweet] {
        (0..<count).map { index in
            FakeXSeed.Tweet(
                id: tweetID(index), authorID: humanID, text: "human tweet \(index) &amp; more",
                createdAt: start.addingTimeInterval(Double(index - count) * 600),
                inReplyToUserID: index % 5 == 4 ? friendID : nil)
        }
    }

    /// The world with `count` tweets of the human, `extra` posts, and apps of access level `access` (likes only
    /// with `enterprise`, as on X today).
    static func seed(humanTweets count: Int = 0, extra: [FakeXSeed.Tweet] = [], access: FakeXSeed.Access = .payPerUse) -> FakeXSeed {
        FakeXSeed(
            now: start,
            users: [.init(id: humanID, username: "human"), .init(id: botID, username: "mirror_bot"), .init(id: friendID, username: "friend")],
            accounts: [
                .init(
                    userID: humanID, consumerKey: human.consumerKey, consumerSecret: human.consumerSecret,
                    accessToken: human.accessToken, accessTokenSecret: human.accessTokenSecret),
                .init(
                    userID: botID, consumerKey: bot.consumerKey, consumerSecret: bot.consumerSecret,
                    accessToken: bot.accessToken, accessTokenSecret: bot.accessTokenSecret),
            ],
            tweets: humanTweets(count) + extra,
            follows: [humanID: [friendID], botID: [humanID, friendID]], access: access)
    }

    static var logger: Logger {
        var logger = Logger(label: "xapi-tests")
        logger.logLevel = .critical
        return logger
    }

    static func client(
        _ baseURL: URL, clock: any BotClock = ManualBotClock(now: start),
        human: AccountCredentials = Fixture.human, retry: XClient.RetryPolicy = .init()
    ) -> XClient {
        XClient(
            configuration: .init(baseURL: baseURL, credentials: [.human: human, .bot: bot], retry: retry),
            clock: clock, logger: logger)
    }
}

/// Runs `body` against a fake X server seeded with `seed`.
func withFakeX<Result: Sendable>(
    _ seed: FakeXSeed = Fixture.seed(), _ body: @Sendable (FakeXServer, URL) async throws -> Result
) async throws -> Result {
    let server = FakeXServer(seed: seed, logger: Fixture.logger)
    return try await server.withRunning { url in try await body(server, url) }
}
