import BlueskyAPI
import BotClock
import BotCore
import FakeBluesky
import Foundation
import Logging

/// A small Bluesky: the person, the bot (with its app password), a friend who talks to the person, and an account
/// whose profile says #nobot; the person's posts, a reply, a repost, a labelled post and a quote.
enum BlueskyFixture {
    static let start = Date(timeIntervalSince1970: 1_764_000_000)  // 2025-11-24T16:00:00Z
    static let person = "did:plc:person0000000000000000", bot = "did:plc:mirrorbot00000000000000", friend = "did:plc:friend0000000000000000"
    static let quiet = "did:plc:quiet00000000000000000"
    static let botPassword = "abcd-efgh-ijkl-mnop"
    static let quiet_logger = Logger(label: "bluesky-tests", factory: { _ in SwiftLogNoOpLogHandler() })

    static func tid(_ minutesBefore: Int) -> String { TID(date: start.addingTimeInterval(Double(-minutesBefore * 60)), clockID: 7).description }
    static func uri(_ did: String, _ rkey: String) -> String { "at://\(did)/app.bsky.feed.post/\(rkey)" }
    static func time(_ minutesBefore: Int) -> String { ISO8601DateFormatter().string(from: start.addingTimeInterval(Double(-minutesBefore * 60))) }

    static var seed: FakeBlueskySeed {
        let friendPost = PostRecord(text: "今日は寒いね", createdAt: time(300), langs: ["ja"])
        var posts: [FakeBlueskySeed.Post] = [
            .init(authorDID: friend, rkey: tid(300), record: friendPost, indexedAt: start.addingTimeInterval(-300 * 60)),
            .init(
                authorDID: person, rkey: tid(240), record: PostRecord(text: "おはよう", createdAt: time(240), langs: ["ja"]),
                indexedAt: start.addingTimeInterval(-240 * 60)),
            .init(
                authorDID: person, rkey: tid(200),
                record: PostRecord(
                    text: "見て https://example.com/a", createdAt: time(200), langs: ["ja"],
                    facets: [Facet(index: ByteSlice(byteStart: 7, byteEnd: 28), features: [.link(uri: "https://example.com/a")])]),
                indexedAt: start.addingTimeInterval(-200 * 60)),
            .init(
                authorDID: person, rkey: tid(100),
                record: PostRecord(text: "それな", createdAt: time(100), langs: ["ja"], labels: SelfLabels(values: ["!warn"])),
                indexedAt: start.addingTimeInterval(-100 * 60)),
            .init(
                authorDID: person, rkey: tid(50),
                record: PostRecord(
                    text: "ほんとに", createdAt: time(50), langs: ["ja"],
                    embed: EmbedKind(type: "app.bsky.embed.record")), indexedAt: start.addingTimeInterval(-50 * 60)),
        ]
        let parent = StrongRef(uri: uri(friend, tid(300)), cid: FakeBlueskySeed.cid(of: friendPost))
        posts.append(
            .init(
                authorDID: person, rkey: tid(290),
                record: PostRecord(
                    text: "寒いよね", createdAt: time(290), langs: ["ja"],
                    reply: ReplyRef(root: parent, parent: parent)),
                indexedAt: start.addingTimeInterval(-290 * 60)))
        return FakeBlueskySeed(
            now: start,
            accounts: [
                .init(did: person, handle: "person.test", appPassword: "person-app-password", description: "わたし"),
                .init(did: bot, handle: "mirror.test", appPassword: botPassword, description: "@person.test の自動ミラー (bot)"),
                .init(did: friend, handle: "friend.test", description: "友だち"),
                .init(did: quiet, handle: "quiet.test", description: "Please, no bots. #nobot"),
            ], posts: posts, reposts: [.init(byDID: person, uri: uri(friend, tid(300)), at: start.addingTimeInterval(-60 * 60))])
    }

    /// A client for the fake at `url`: the bot with its app password, the person read publicly.
    static func client(
        _ url: URL, sessions: any BlueskySessionStore, clock: any BotClock = SystemBotClock(),
        botPassword: String = botPassword
    ) -> BlueskyClient {
        BlueskyClient(
            configuration: .init(
                service: url,
                accounts: [
                    .bot: BlueskyAccess(handle: "mirror.test", appPassword: botPassword),
                    .human: BlueskyAccess(handle: "person.test", appPassword: nil),
                ],
                initialBackoff: .milliseconds(1)),
            sessionStore: sessions, clock: clock, logger: quiet_logger)
    }
}
