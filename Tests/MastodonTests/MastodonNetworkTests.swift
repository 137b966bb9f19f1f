import BotClock
import BotCore
import FakeMastodon
import Foundation
import MastodonAPI
import MastodonNetwork
import SocialNetwork
import TestSupport
import Testing

/// Mastodon behind the network protocol, against the fake instance: what the bot reads, what it never copies, how it
/// posts and answers.
@Suite("Mastodon as a MirrorNetwork")
struct MastodonNetworkTests {
    @Test("Who each token belongs to")
    func whoAmI() async throws {
        try await withFakeMastodon { _, url async throws in
            let network = MastodonMirrorNetwork(client: MastodonFixture.client(url))
            // With the profile's text and the bot flag, for the disclosure's check.
            #expect(
                try await network.whoAmI(.human) == NetworkUser(id: MastodonFixture.personID, handle: "person", profile: "", markedAutomated: false))
            let bot = try await network.whoAmI(.bot)
            #expect(bot == NetworkUser(id: MastodonFixture.botID, handle: "mirror", profile: "", markedAutomated: true))
            #expect(network.capabilities.disclosure?.problem(bot: bot, person: try await network.whoAmI(.human), networkName: "Mastodon") == nil)
            var unflagged = bot
            unflagged.markedAutomated = false
            #expect(
                network.capabilities.disclosure?.problem(bot: unflagged, person: bot, networkName: "Mastodon")?
                    .hasPrefix("@mirror is not marked as automated on Mastodon: in Preferences → Profile tick") == true)
        }
    }

    @Test("The person's statuses as written text, page after page by Link; private, direct, warned and boosted ones never handed over")
    func personsStatuses() async throws {
        try await withFakeMastodon(MastodonFixture.seed(publicStatuses: 45)) { server, url async throws in
            let network = MastodonMirrorNetwork(client: MastodonFixture.client(url))
            var pages: [NetworkPage] = []
            for try await page in network.posts(of: MastodonFixture.personID, since: nil, maxPosts: 1_000, for: .learning) { pages.append(page) }
            let posts = pages.flatMap(\.posts)
            #expect(pages.count == 2)  // 50 statuses, 40 a page
            #expect(posts.count == 46)  // 45 public + 1 unlisted
            #expect(posts.allSatisfy { !$0.isRepost && $0.authorID == MastodonFixture.personID })
            #expect(!posts.contains { ["followers only", "a direct message", "behind a warning"].contains($0.text) || $0.text.contains("ネタバレ") })
            #expect(posts.contains { $0.text == "今日の投稿 3 & more\n二行目" })
            #expect(posts.contains { $0.text == "unlisted one" })
            // The newest id read is the person's newest status; the third page asked for was empty.
            #expect(pages.first?.newestID == MastodonFixture.statusID(49))
            #expect(await server.requestCounts()[GetAccountStatuses.name] == 3)

            // Since the newest: nothing new, one call; since an older one: only what is newer.
            var again: [NetworkPost] = []
            for try await page in network.posts(of: MastodonFixture.personID, since: MastodonFixture.statusID(49), maxPosts: 1_000, for: .learning) {
                again += page.posts
            }
            #expect(again.isEmpty)
            var newer: [NetworkPost] = []
            for try await page in network.posts(of: MastodonFixture.personID, since: MastodonFixture.statusID(42), maxPosts: 1_000, for: .learning) {
                newer += page.posts
            }
            #expect(newer.map(\.id) == [MastodonFixture.statusID(49), MastodonFixture.statusID(44), MastodonFixture.statusID(43)])
        }
    }

    @Test("Reading since an id stops at it: the home timeline's and the mentions' next links (which carry no since_id) are not followed past it")
    func readsOnlyWhatIsNewer() async throws {
        try await withFakeMastodon(MastodonFixture.seed(publicStatuses: 45)) { server, url async throws in
            let network = MastodonMirrorNetwork(client: MastodonFixture.client(url))
            var newer: [NetworkPost] = []
            for try await page in network.homeTimeline(
                of: MastodonFixture.botID, as: .bot, since: MastodonFixture.statusID(40), maxPosts: nil,
                perPage: 5, includingReposts: false, for: .liking)
            { newer += page.posts }
            // The person's 41st to 45th public statuses and their unlisted one (the private one is the person's own
            // followers', the bot follows them: it is in its timeline too); the boost is left out.
            #expect(newer.allSatisfy { MastodonMirrorNetwork.isNewer($0.id, than: MastodonFixture.statusID(40)) })
            #expect(newer.count >= 5)
            let reads = await server.requestCounts()[GetHomeTimeline.name] ?? 0
            #expect(reads <= 3, "\(reads) pages read for a handful of new statuses")
        }
    }

    @Test("With POST_CW the warned status is copied with its warning, and posted behind it")
    func warningsCopied() async throws {
        try await withFakeMastodon { server, url async throws in
            let network = MastodonMirrorNetwork(client: MastodonFixture.client(url), copyingWarnings: true)
            var posts: [NetworkPost] = []
            for try await page in network.posts(of: MastodonFixture.personID, since: nil, maxPosts: 100, for: .learning) { posts += page.posts }
            let warned = try #require(posts.first { $0.text == "behind a warning" })
            #expect(warned.contentWarning == "ネタバレ")
            #expect(posts.filter { $0.contentWarning != nil }.count == 1)
            #expect(!posts.contains { $0.text == "followers only" })
            _ = try await network.post(warned.text, warning: warned.contentWarning, slot: "slot 2023-11-15 07:00", for: .posts)
            let posted = try #require(await server.posted().last)
            #expect(posted.spoilerText == "ネタバレ" && posted.content == "<p>behind a warning</p>")
        }
    }

    @Test("Mentions come from notifications: the status, its author, and the notification's id as the newest id")
    func mentions() async throws {
        try await withFakeMastodon { _, url async throws in
            let network = MastodonMirrorNetwork(client: MastodonFixture.client(url))
            var pages: [NetworkPage] = []
            for try await page in network.mentions(of: MastodonFixture.botID, since: nil, perPage: 40, for: .replies) { pages.append(page) }
            let mentions = pages.flatMap(\.posts)
            #expect(mentions.count == 2)
            let mention = try #require(mentions.first { $0.authorID == MastodonFixture.friendID })
            #expect(mention.authorHandle == "friend" && mention.text == "@mirror hi" && !mention.authorAsksNoBots)
            // The stranger's profile says #nobot: the mention says so, and the replier leaves it unanswered.
            #expect(mentions.first { $0.authorID == MastodonFixture.strangerID }?.authorAsksNoBots == true)
            let newest = try #require(pages.first?.newestID)
            #expect(newest != mentions[0].id)
            var again: [NetworkPost] = []
            for try await page in network.mentions(of: MastodonFixture.botID, since: newest, perPage: 40, for: .replies) { again += page.posts }
            #expect(again.isEmpty)
        }
    }

    @Test("Posts go out unlisted, and a reply is never more public than the mention it answers")
    func visibility() async throws {
        try await withFakeMastodon { server, url async throws in
            let network = MastodonMirrorNetwork(client: MastodonFixture.client(url))
            let postID = try #require(try await network.post("いい天気 & <br>", warning: nil, slot: "slot 2023-11-15 07:00", for: .posts))
            let mentionID = MastodonFixture.statusID(10)  // the friend's followers-only mention
            let replyID = try #require(try await network.reply("@friend やあ", warning: nil, to: mentionID, for: .replies))
            let posted = await server.posted()
            #expect(posted.map(\.id) == [postID, replyID])
            #expect(posted[0].visibility == "unlisted" && posted[1].visibility == "private" && posted[1].inReplyToID == mentionID)
            // The instance stored the text as HTML; read back, it is what was posted.
            #expect(try await network.postExists(postID, as: .bot, for: .posts))
            // An answer that does not name its mentioner starts with them: Mastodon notifies only whom a status mentions.
            let unaddressed = try #require(try await network.reply("またね", warning: nil, to: MastodonFixture.statusID(11), for: .replies))
            #expect(await server.posted().last.map { ($0.id, $0.content) } ?? ("", "") == (unaddressed, "<p>@stranger またね</p>"))
            let publicNetwork = MastodonMirrorNetwork(client: MastodonFixture.client(url), postVisibility: .public)
            _ = try await publicNetwork.post("public one", warning: nil, slot: "slot 2023-11-15 08:00", for: .posts)
            #expect(await server.posted().last?.visibility == "public")
        }
    }

    @Test("A create whose answer was lost is sent again with the same Idempotency-Key, and the instance makes one status")
    func idempotentRetry() async throws {
        try await withFakeMastodon { server, url async throws in
            let clock = ManualBotClock(now: MastodonFixture.start)
            let network = MastodonMirrorNetwork(client: MastodonFixture.client(url, clock: clock))
            await server.add(fault: FakeMastodonFault(kind: .dropAfterHandling, endpoint: PostStatus.name))
            async let posting = network.post("一度だけ", warning: nil, slot: "slot 2023-11-15 09:00", for: .posts)
            try await clock.waitForSleepers(count: 1)  // the backoff after the lost answer
            clock.advance(by: 60)
            let id = try await posting
            let posted = await server.posted()
            #expect(posted.count == 1 && posted.first?.id == id)
            #expect(await server.requestCounts()[PostStatus.name] == 2)
            // The status page's count: two calls, the lost one failed, the last succeeded at the retry (a minute later).
            // (The instance's character limit was read first, once.)
            #expect(network.endpointCalls().map(\.endpoint) == [GetInstance.name, PostStatus.name])
            #expect(
                network.endpointCalls().last
                    == EndpointCalls(
                        endpoint: PostStatus.name, account: "bot", calls: 2, failures: 1,
                        lastSuccessAt: MastodonFixture.start.addingTimeInterval(60)))
        }
    }

    @Test("One status per slot and one answer per mention, however often sent: the keys come from the slot and the mention")
    func keysFromSlotAndMention() async throws {
        try await withFakeMastodon { server, url async throws in
            let network = MastodonMirrorNetwork(client: MastodonFixture.client(url))
            let first = try await network.post("朝の投稿", warning: nil, slot: "slot 2023-11-15 07:00", for: .posts)
            // After a restart the slot may be picked again with another text: the instance answers with the first status.
            let again = try await network.post("別の投稿", warning: nil, slot: "slot 2023-11-15 07:00", for: .posts)
            let next = try await network.post("朝の投稿", warning: nil, slot: "slot 2023-11-15 08:00", for: .posts)
            #expect(first == again && next != first)
            let mentionID = MastodonFixture.statusID(10)
            let reply = try await network.reply("@friend やあ", warning: nil, to: mentionID, for: .replies)
            let replyAgain = try await network.reply("@friend おはよう", warning: nil, to: mentionID, for: .replies)
            #expect(reply == replyAgain)
            #expect(await server.posted().count == 3)
        }
    }

    @Test("Whether a status is still there: a lookup, 404 once deleted")
    func postExists() async throws {
        try await withFakeMastodon { server, url async throws in
            let network = MastodonMirrorNetwork(client: MastodonFixture.client(url))
            let id = MastodonFixture.statusID(2)
            #expect(try await network.postExists(id, as: .human, for: .learning))
            #expect(await server.delete(statusID: id))
            #expect(try await network.postExists(id, as: .human, for: .learning) == false)
        }
    }

    @Test("The bot deletes its own status (forget); one already gone is false; another's status is never deleted")
    func deletesOwnStatus() async throws {
        try await withFakeMastodon { server, url async throws in
            let network = MastodonMirrorNetwork(client: MastodonFixture.client(url))
            let own = try #require(try await network.post("消される投稿", warning: nil, slot: "slot 2023-11-15 10:00", for: .posts))
            #expect(try await network.deletePost(own, for: .posts))
            #expect(await server.posted().isEmpty)
            #expect(await server.deletedByAPI() == [own])
            #expect(try await network.deletePost(own, for: .posts) == false)
            let persons = MastodonFixture.statusID(2)
            #expect(try await network.deletePost(persons, for: .posts) == false)
            #expect(try await network.postExists(persons, as: .human, for: .learning))
        }
    }

    @Test("The person's favourites, most recent first, by Link only; favouriting as the bot")
    func favourites() async throws {
        try await withFakeMastodon { server, url async throws in
            let network = MastodonMirrorNetwork(client: MastodonFixture.client(url))
            var pages: [NetworkPage] = []
            for try await page in network.likes(of: MastodonFixture.personID, perPage: 2, maxPosts: nil, for: .learning) { pages.append(page) }
            #expect(pages.map { $0.posts.map(\.id) } == [[MastodonFixture.statusID(1), MastodonFixture.statusID(2)], [MastodonFixture.statusID(3)]])
            try await network.like(MastodonFixture.statusID(4), as: MastodonFixture.botID, for: .liking)
            let favourited = await server.favourited()
            #expect(favourited.count == 1 && favourited.first?.statusID == MastodonFixture.statusID(4))
        }
    }

    @Test("A refused token and a missing scope are refusals in the bot's words, naming what to do")
    func refusals() async throws {
        try await withFakeMastodon { _, url async throws in
            let revoked = MastodonMirrorNetwork(client: MastodonFixture.client(url, botToken: "nope"))
            await #expect {
                try await revoked.whoAmI(.bot)
            } throws: { error in
                guard case NetworkError.refused(let text, _)? = error as? NetworkError else { return false }
                return text.contains("401") && text.contains("Preferences → Development")
            }
            // The person's token is read-only: posting as the person is outside its scopes.
            let client = MastodonFixture.client(url)
            await #expect {
                try await client.send(PostStatus(text: "x", visibility: .unlisted, key: "k"), as: .human)
            } throws: { error in
                guard case MastodonAPIError.forbidden(_, _, let detail)? = error as? MastodonAPIError else { return false }
                return detail.contains("outside the authorized scopes")
            }
        }
    }

    @Test("Under a lease that lapsed, a status and a deletion are not sent (unavailable, saying why) and nothing reaches the instance; reads go on")
    func writesFencedByTheLease() async throws {
        try await withFakeMastodon { server, url async throws in
            try await expectWritesFencedOffByALapsedLease(on: MastodonMirrorNetwork(client: MastodonFixture.client(url)))
            #expect(await server.posted().count == 1)
            #expect(await server.deletedByAPI().isEmpty)
        }
    }
}
