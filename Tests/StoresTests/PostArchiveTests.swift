import BotConfiguration
import BotCore
import Foundation
import PostgresStores
import Stores
import TestSupport
import Testing

/// A UTC date from its parts.
func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int = 0) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))!
}

/// A post with a given id and time.
func post(_ id: Int64, at date: Date, replyTo user: Int64? = nil, _ text: String? = nil) -> ArchivedPost {
    ArchivedPost(postID: PostID(id), text: text ?? "tweet \(id)", replyUserID: user.map { AccountID($0) }, createdAt: date)
}

@Suite("The post archive")
struct PostArchiveTests {
    let tokyo = TimeZone(identifier: "Asia/Tokyo")!
    let utcZone = TimeZone(identifier: "UTC")!

    @Test("A batch is stored once: posts already stored and repeats within the batch are skipped", arguments: StoreBackends.archives)
    func insertIgnoresDuplicates(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let archive = database.archive(timeZone: utcZone, rowLimit: 100)
            let batch = (1...5).map { post(Int64($0), at: utc(2024, 1, 1, 12, $0)) }
            #expect(try await archive.insert(batch) == 5)
            #expect(try await archive.insert(batch + [batch[0], post(6, at: utc(2024, 1, 1, 13, 0))]) == 1)
            #expect(try await archive.insert([]) == 0)
            #expect(try await archive.count() == 6)
            #expect(try await archive.newestPostID() == 6)
        }
    }

    @Test("Text, reply user and time come back as stored, Unicode and all", arguments: StoreBackends.archives)
    func roundTrip(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let archive = database.archive(timeZone: utcZone, rowLimit: 100)
            let stored = [
                post(1_790_000_000_000_000_001, at: utc(2024, 2, 29, 23, 59, 59), replyTo: 9_000_000_000_000_000_000 / 4, "返信 🍣 & <tags> 'quotes'"),
                post(2, at: utc(2001, 1, 1, 0, 0), replyTo: nil, ""),
            ]
            try await archive.insert(stored)
            #expect(Set(try await archive.newest(limit: 10)) == Set(stored))
        }
    }

    @Test("Posts read by id: those stored, each as stored; an id not stored left out; none asked, none read", arguments: StoreBackends.archives)
    func postsByID(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let archive = database.archive(timeZone: utcZone, rowLimit: 100)
            let stored = (1...5).map { post(Int64($0), at: utc(2024, 1, 1, 12, $0), "投稿 \($0)") }
            try await archive.insert(stored)
            let read = try await archive.posts(withIDs: [PostID(4), PostID(2), PostID(99)])
            #expect(Set(read) == Set([stored[3], stored[1]]))
            #expect(try await archive.posts(withIDs: []).isEmpty)
        }
    }

    @Test("The row cap deletes the oldest posts by created_at, not the newest", arguments: StoreBackends.archives)
    func rowCapDeletesOldest(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let archive = database.archive(timeZone: utcZone, rowLimit: 5)
            // Ids out of date order: the cap must follow created_at.
            let days = [3, 8, 1, 6, 2, 7, 4, 5]
            try await archive.insert(days.enumerated().map { index, day in post(Int64(100 - index), at: utc(2024, 3, day, 10, 0)) })
            let kept = try await archive.newest(limit: 10)
            #expect(kept.count == 5)
            let calendar = Calendar(identifier: .gregorian)
            #expect(kept.map { calendar.dateComponents(in: utcZone, from: $0.createdAt).day! } == [8, 7, 6, 5, 4])
            // An old post arriving late does not push out a newer one.
            try await archive.insert([post(1, at: utc(2020, 1, 1, 0, 0))])
            #expect(try await archive.newest(limit: 10).map(\.postID) == kept.map(\.postID))
        }
    }

    @Test("The minute histogram counts minutes of the day in the human's zone", arguments: StoreBackends.archives)
    func minuteHistogram(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let archive = database.archive(timeZone: tokyo, rowLimit: 100)
            try await archive.prepare()
            try await archive.insert([
                post(1, at: utc(2024, 5, 1, 23, 30)),  // 08:30 in Tokyo
                post(2, at: utc(2024, 5, 2, 23, 30)),  // 08:30
                post(3, at: utc(2024, 5, 2, 14, 59)),  // 23:59, minute 1439
                post(4, at: utc(2024, 5, 2, 15, 0), replyTo: 7),  // 00:00, a reply
            ])
            let histogram = try await archive.minuteHistogram()
            #expect(histogram.count == 1440)
            #expect(histogram[8 * 60 + 30] == 2)
            #expect(histogram[1439] == 1)
            #expect(histogram[0] == 1)
            #expect(histogram.reduce(0, +) == 4)
            let withoutReplies = try await archive.minuteHistogram(includingReplies: false)
            #expect(withoutReplies[0] == 0)
            #expect(withoutReplies.reduce(0, +) == 3)
        }
    }

    @Test("Opening the archive with another zone recomputes the stored minutes", arguments: StoreBackends.archives)
    func zoneChangeRecomputesMinutes(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let inUTC = database.archive(timeZone: utcZone, rowLimit: 100)
            try await inUTC.prepare()
            try await inUTC.insert([post(1, at: utc(2024, 5, 1, 23, 30))])
            #expect(try await inUTC.minuteHistogram()[23 * 60 + 30] == 1)
            let inTokyo = database.archive(timeZone: tokyo, rowLimit: 100)
            try await inTokyo.prepare()
            #expect(try await inTokyo.minuteHistogram()[8 * 60 + 30] == 1)
            #expect(try await inTokyo.minuteHistogram()[23 * 60 + 30] == 0)
        }
    }

    @Test("On a DST day minutes and days follow the local clock (New York, spring forward and fall back)", arguments: StoreBackends.archives)
    func daylightSavingTime(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let newYork = TimeZone(identifier: "America/New_York")!
            let archive = database.archive(timeZone: newYork, rowLimit: 1000)
            try await archive.prepare()
            try await archive.insert([
                post(1, at: utc(2024, 3, 10, 6, 30)),  // 01:30 EST, before the jump
                post(2, at: utc(2024, 3, 10, 7, 30)),  // 03:30 EDT, after it
                post(3, at: utc(2024, 3, 10, 4, 30)),  // 23:30 EST on March 9
                post(4, at: utc(2024, 11, 3, 5, 30)),  // 01:30 EDT, first pass
                post(5, at: utc(2024, 11, 3, 6, 30)),  // 01:30 EST, second pass
            ])
            let histogram = try await archive.minuteHistogram()
            #expect(histogram[1 * 60 + 30] == 3)
            #expect(histogram[3 * 60 + 30] == 1)
            #expect(histogram[23 * 60 + 30] == 1)
            #expect(histogram[2 * 60 + 30] == 0)
            #expect(
                try await archive.postsPerDay() == [
                    DayCount(day: "2024-03-09", count: 1), DayCount(day: "2024-03-10", count: 2), DayCount(day: "2024-11-03", count: 2),
                ])

            // The stored minutes agree with Foundation's calendar for times all over a DST year.
            var generator = SeededGenerator(seed: 7)
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = newYork
            let start = utc(2024, 1, 1, 0, 0).timeIntervalSince1970
            let dates = (0..<300).map { _ in Date(timeIntervalSince1970: start + Double.random(in: 0..<366 * 86_400, using: &generator).rounded()) }
            try await archive.insert(dates.enumerated().map { post(Int64(1000 + $0.offset), at: $0.element) })
            var expected = [Int](repeating: 0, count: 1440)
            for date in dates + [
                utc(2024, 3, 10, 6, 30), utc(2024, 3, 10, 7, 30), utc(2024, 3, 10, 4, 30), utc(2024, 11, 3, 5, 30), utc(2024, 11, 3, 6, 30),
            ] {
                let parts = calendar.dateComponents([.hour, .minute], from: date)
                expected[parts.hour! * 60 + parts.minute!] += 1
            }
            #expect(try await archive.minuteHistogram() == expected)
        }
    }

    @Test("Posts per day include every day that has a post, optionally without replies", arguments: StoreBackends.archives)
    func postsPerDay(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let archive = database.archive(timeZone: tokyo, rowLimit: 100)
            try await archive.prepare()
            try await archive.insert([
                post(1, at: utc(2024, 6, 1, 14, 59)),  // 23:59 June 1 in Tokyo
                post(2, at: utc(2024, 6, 1, 15, 0)),  // 00:00 June 2
                post(3, at: utc(2024, 6, 2, 1, 0), replyTo: 9),  // June 2
                post(4, at: utc(2024, 6, 5, 1, 0)),  // June 5; June 3 and 4 have none
            ])
            #expect(
                try await archive.postsPerDay() == [
                    DayCount(day: "2024-06-01", count: 1), DayCount(day: "2024-06-02", count: 2), DayCount(day: "2024-06-05", count: 1),
                ])
            #expect(try await archive.postsPerDay(includingReplies: false).map(\.count) == [1, 1, 1])
        }
    }

    @Test("The window sample wraps around midnight and never returns replies or excluded posts", arguments: StoreBackends.archives)
    func windowSampleWrapsAroundMidnight(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let archive = database.archive(timeZone: utcZone, rowLimit: 100)
            try await archive.prepare()
            try await archive.insert([
                post(1, at: utc(2024, 1, 1, 23, 50)),  // 10 minutes before midnight
                post(2, at: utc(2024, 1, 2, 0, 10)),  // 10 minutes after
                post(3, at: utc(2024, 1, 2, 0, 20), replyTo: 5),  // in the window, but a reply
                post(4, at: utc(2024, 1, 2, 12, 0)),  // noon
                post(5, at: utc(2024, 1, 2, 23, 29)),  // 31 minutes before midnight
            ])
            var generator = SeededGenerator(seed: 1)
            var found = Set<PostID>()
            for _ in 0..<40 {
                if let picked = try await archive.randomPost(nearMinute: 0, radius: 30, using: &generator) { found.insert(picked.postID) }
            }
            #expect(found == [1, 2])
            // Around 23:59 the window reaches 00:29 on the other side.
            found = []
            for _ in 0..<40 {
                if let picked = try await archive.randomPost(nearMinute: 1439, radius: 30, using: &generator) { found.insert(picked.postID) }
            }
            #expect(found == [1, 2, 5])
            let onlyRemaining = try await archive.randomPost(nearMinute: 0, radius: 30, excluding: [1], using: &generator)
            #expect(onlyRemaining?.postID == 2)
            #expect(try await archive.randomPost(nearMinute: 0, radius: 30, excluding: [1, 2], using: &generator) == nil)
            #expect(try await archive.randomPost(nearMinute: 6 * 60, radius: 30, using: &generator) == nil)
        }
    }

    @Test("The same seed picks the same posts", arguments: StoreBackends.archives)
    func samplingIsDeterministic(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let archive = database.archive(timeZone: utcZone, rowLimit: 1000)
            try await archive.prepare()
            try await archive.insert((0..<200).map { post(Int64($0), at: utc(2024, 1, 1 + $0 / 60, 9, $0 % 60)) })
            func picks(seed: UInt64) async throws -> [PostID] {
                var generator = SeededGenerator(seed: seed)
                var result: [PostID] = []
                for _ in 0..<10 { result.append(try await archive.randomPost(nearMinute: 9 * 60 + 30, radius: 30, using: &generator)!.postID) }
                return result
            }
            let first = try await picks(seed: 42)
            #expect(try await picks(seed: 42) == first)
            #expect(Set(first).count > 1)
        }
    }

    @Test("A reply is sampled from the human's past replies to that very user; none gives nil", arguments: StoreBackends.archives)
    func replySample(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let archive = database.archive(timeZone: utcZone, rowLimit: 100)
            try await archive.insert([
                post(1, at: utc(2024, 1, 1, 1, 0), replyTo: 77),
                post(2, at: utc(2024, 1, 1, 2, 0), replyTo: 77),
                post(3, at: utc(2024, 1, 1, 3, 0), replyTo: 88),
                post(4, at: utc(2024, 1, 1, 4, 0)),
            ])
            var generator = SeededGenerator(seed: 3)
            var found = Set<PostID>()
            for _ in 0..<30 { found.insert(try await archive.randomReply(toUser: 77, using: &generator)!.postID) }
            #expect(found == [1, 2])
            #expect(try await archive.randomReply(toUser: 77, excluding: [1, 2], using: &generator) == nil)
            #expect(try await archive.randomReply(toUser: 12345, using: &generator) == nil)
        }
    }

    @Test("Clearing empties the archive", arguments: StoreBackends.archives)
    func clear(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let archive = database.archive(timeZone: utcZone, rowLimit: 100)
            try await archive.insert([post(1, at: Date())])
            try await archive.removeAll()
            #expect(try await archive.count() == 0)
            #expect(try await archive.newestPostID() == nil)
        }
    }

    @Test("An unreachable database gives one readable error naming the server, without the password")
    func unreachableDatabase() async throws {
        let closedPort = try TestServers.databaseURL().port == 1 ? 2 : 1
        let url = DatabaseURLFixture.url(port: closedPort)
        let database = try PostgresStoreSet(url: url, logger: TestServers.logger)
        let error = try await #require(throws: ArchiveError.self) { try await database.checkReachable() }
        #expect(error.description.contains("127.0.0.1:\(closedPort)"))
        #expect(!error.description.contains("topsecret"))
        #expect(!error.description.contains("\n"))
    }
}

enum DatabaseURLFixture {
    static func url(port: Int) -> DatabaseURL {
        DatabaseURL(host: "127.0.0.1", port: port, username: "nobody", password: "topsecret", database: "none", tlsMode: .disable)
    }
}

@Suite("Minute windows")
struct MinuteWindowTests {
    @Test("Windows inside the day, across midnight either way, and wider than the day")
    func windows() {
        #expect(MinuteWindow(around: 600, radius: 30) == MinuteWindow.make(570...630, nil))
        #expect(MinuteWindow(around: 10, radius: 30) == MinuteWindow.make(0...40, 1420...1439))
        #expect(MinuteWindow(around: 1439, radius: 30) == MinuteWindow.make(1409...1439, 0...29))
        #expect(MinuteWindow(around: 0, radius: 720) == MinuteWindow.make(0...1439, nil))
        #expect(MinuteWindow(around: -1, radius: 0) == MinuteWindow.make(1439...1439, nil))
        let window = MinuteWindow(around: 1430, radius: 30)
        #expect((0..<1440).filter(window.contains).count == 61)
    }
}

extension MinuteWindow {
    static func make(_ first: ClosedRange<Int>, _ second: ClosedRange<Int>?) -> MinuteWindow {
        var window = MinuteWindow(around: 0, radius: 0)
        window.first = first
        window.second = second
        return window
    }
}
