import BlueskyAPI
import BlueskyNetwork
import BotClock
import BotCore
import Consent
import FakeBluesky
import Foundation
import Picking
import Stores
import TestSupport
import Testing

@testable import Daemon

/// Consent on Bluesky, through the real XRPC client and the fake Bluesky: who said no is never answered again (also
/// after a restart), only the person's own account commands the bot, and no answer names a third party.
@Suite("The replier on Bluesky", .serialized)
struct ReplierBlueskyTests {
    static let start = Date(timeIntervalSince1970: 1_764_000_000)  // 2025-11-24T16:00:00Z
    static let person = "did:plc:person0000000000000000", bot = "did:plc:mirrorbot00000000000000"
    static let friend = "did:plc:friend0000000000000000", pal = "did:plc:pal000000000000000000000"
    static let quiet = "did:plc:quiet00000000000000000", stranger = "did:plc:stranger00000000000000"
    static let carol = "did:plc:carol00000000000000000"

    static func userID(_ did: String) -> AccountID { AccountID(did) }

    struct World {
        let server: FakeBlueskyServer
        let url: URL
        let clock: ManualBotClock
        let log: LogRecorder
        let database: any StoreSet
        let archive: any PostArchive

        /// A replier as `mirror_bot start` builds one on Bluesky, on these stores (a restart is a new one on the same).
        func replier() -> Replier {
            let client = BlueskyClient(
                configuration: .init(
                    service: url,
                    accounts: [
                        .bot: BlueskyAccess(handle: "mirror.test", appPassword: "abcd-efgh-ijkl-mnop"),
                        .human: BlueskyAccess(handle: "person.test", appPassword: nil),
                    ]),
                sessionStore: InMemoryBlueskySessions(), clock: clock, logger: ReplierWorld.quiet)
            return Replier(
                clock: clock, mentions: database.mentions, state: database.state,
                picker: ReplyPicker(archive: archive, fallback: .none), network: BlueskyMirrorNetwork(client: client),
                botUserID: ReplierBlueskyTests.bot, settings: .init(pollInterval: 60, delay: 0...0),
                owner: OwnerCommands(
                    humanUserID: ReplierBlueskyTests.person,
                    control: OwnerControl(state: database.state), forgetter: nil, timeZone: .gmt),
                logger: log.logger(), seed: 5)
        }

        /// A post of `did` mentioning the bot (a mention facet over "@mirror.test"), made now on the bot's clock.
        func mention(by did: String, _ text: String, secondsAfterStart: Int) async {
            let at = ReplierBlueskyTests.start.addingTimeInterval(Double(secondsAfterStart))
            let body = "@mirror.test " + text
            // The instance's clock (stopped) moves to the mention's time: it shows nothing made after its now.
            await server.setClock(at, speed: 0)
            await server.add(
                post: .init(
                    authorDID: did, rkey: TID(date: at, clockID: 3).description,
                    record: PostRecord(
                        text: body, createdAt: ISO8601DateFormatter().string(from: at), langs: ["ja"],
                        facets: [Facet(index: ByteSlice(byteStart: 0, byteEnd: 12), features: [.mention(did: ReplierBlueskyTests.bot)])]),
                    indexedAt: at))
        }

        /// The bot's answers so far: the DID of the author each answers, and its text.
        func answers() async throws -> [(to: String, text: String)] {
            try await server.records(of: ReplierBlueskyTests.bot, in: PostRecord.type).compactMap { record in
                let post = try JSONDecoder().decode(PostRecord.self, from: JSONEncoder().encode(record.value))
                guard let parent = post.reply?.parent.uri, let author = ATURI(parent)?.repo else { return nil }
                return (author, post.text)
            }
        }
    }

    static func with(_ body: (World) async throws -> Void) async throws {
        let seed = FakeBlueskySeed(
            now: start,
            accounts: [
                .init(did: person, handle: "person.test", description: "わたし"),
                .init(did: bot, handle: "mirror.test", appPassword: "abcd-efgh-ijkl-mnop", description: "@person.test の自動ミラー (bot)", labels: ["bot"]),
                .init(did: friend, handle: "friend.test"), .init(did: pal, handle: "pal.test"), .init(did: stranger, handle: "stranger.test"),
                .init(did: quiet, handle: "quiet.test", description: "Please, no bots. #nobot"), .init(did: carol, handle: "carol.test"),
            ])
        let server = FakeBlueskyServer(seed: seed, logger: ReplierWorld.quiet)
        try await server.withRunning { url in
            try await TestServers.withIsolatedDatabase(.sqlite) { database async throws in
                let archive = database.archive(timeZone: .gmt, rowLimit: 1_000)
                var pool: [ArchivedPost] = []
                for (index, text) in ["それな", "わかる", "なるほど", "たしかに"].enumerated() {
                    pool.append(
                        ArchivedPost(
                            postID: PostID(index + 1), text: "@friend.test " + text, replyUserID: userID(friend),
                            createdAt: start.addingTimeInterval(Double(-90_000 + index * 60))))
                    pool.append(
                        ArchivedPost(
                            postID: PostID(index + 11), text: "@pal.test " + text, replyUserID: userID(pal),
                            createdAt: start.addingTimeInterval(Double(-80_000 + index * 60))))
                }
                // Most of the friend's pool names carol, in Bluesky's and the other networks' forms: never sent.
                for number in 20..<40 {
                    let text = [
                        "@friend.test 聞いた？ @carol.test", "@friend.test RT@carol \(number)", "@friend.test carolにも @carol@mastodon.example 言っといて",
                    ][number % 3]
                    pool.append(
                        ArchivedPost(
                            postID: PostID(number), text: text, replyUserID: userID(friend),
                            createdAt: start.addingTimeInterval(Double(-70_000 + number))))
                }
                pool.append(
                    ArchivedPost(postID: 50, text: "@quiet.test こんにちは", replyUserID: userID(quiet), createdAt: start.addingTimeInterval(-60_000)))
                pool.append(ArchivedPost(postID: 51, text: "@stranger.test どうも", replyUserID: nil, createdAt: start.addingTimeInterval(-50_000)))
                try await archive.insert(pool)
                try await body(
                    World(server: server, url: url, clock: ManualBotClock(now: start), log: LogRecorder(), database: database, archive: archive))
            }
        }
    }

    @Test(
        "On Bluesky: an opt-out mention and #nobot in a profile stop every answer to their authors, across a restart; a stranger's 停止 pauses nothing (it opts them out); the person's 停止 and 再開 do, each confirmed once; no answer names a third party"
    )
    func consentOnBluesky() async throws {
        try await Self.with { world in
            let state = world.database.state
            let first = world.replier()
            var running = Task { try await first.run() }
            // The first start's round (where mentions stand) is over before any mention is made.
            try await world.clock.waitForSleepers()

            await world.mention(by: Self.friend, "元気？", secondsAfterStart: 10)
            await world.mention(by: Self.quiet, "こんにちは", secondsAfterStart: 11)
            await world.mention(by: Self.pal, "もう、やめて！", secondsAfterStart: 12)
            await world.mention(by: Self.stranger, "停止", secondsAfterStart: 13)
            world.clock.advance(by: 60)
            try await world.clock.waitForSleepers()
            let optedOut = try await OptOutList(state: state).all()
            // 停止 is an opt-out word too: from anyone but the person it opts its author out, and pauses nothing.
            #expect(Set(optedOut.map(\.accountID)) == Set([Self.quiet, Self.pal, Self.stranger]), "\(optedOut)")
            #expect(try await OwnerControl(state: state).current() == nil, "a stranger's 停止 is no command")
            var answers = try await world.answers()
            #expect(answers.map(\.to) == [Self.friend], "\(answers)")

            await world.mention(by: Self.person, "停止", secondsAfterStart: 80)
            world.clock.advance(by: 60)
            try await world.clock.waitForSleepers()
            #expect(try await OwnerControl(state: state).current()?.pause == .posting)

            // A restart: a new replier on the same stores. The opted-out author's next mention is not answered.
            running.cancel()
            _ = try? await running.value
            let second = world.replier()
            running = Task { try await second.run() }
            defer { running.cancel() }
            try await world.clock.waitForSleepers()
            await world.mention(by: Self.pal, "元気？", secondsAfterStart: 150)
            await world.mention(by: Self.friend, "おーい", secondsAfterStart: 151)
            await world.mention(by: Self.person, "再開", secondsAfterStart: 152)
            world.clock.advance(by: 60)
            try await world.clock.waitForSleepers()
            #expect(try await OwnerControl(state: state).current() == nil, "再開 resumed")

            answers = try await world.answers()
            #expect(answers.filter { $0.to == Self.friend }.count == 2, "\(answers)")
            #expect(answers.filter { $0.to == Self.person }.count == 2, "one confirmation per command: \(answers)")
            #expect(!answers.contains { [Self.pal, Self.quiet, Self.stranger].contains($0.to) }, "\(answers)")
            #expect(!answers.contains { $0.text.contains("carol") }, "\(answers)")
            #expect(answers.filter { $0.to == Self.friend }.allSatisfy { ["それな", "わかる", "なるほど", "たしかに"].contains($0.text) }, "\(answers)")
            #expect(!world.log.lines(containing: "their profile says #nobot").isEmpty)
            running.cancel()
            _ = try? await running.value
        }
    }
}
