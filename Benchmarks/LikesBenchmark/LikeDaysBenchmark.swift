import BotClock
import BotCore
import Classifier
import Daemon
import Foundation
import InMemoryStores
import Logging
import SQLiteStores
import SeededRandom
import SocialNetwork
import Stores
import Tokenizer

/// `likes-benchmark days`: the bot's days of likes beside the person's, by the real favoriter (its two loops, on a
/// virtual clock) over simulated days of a home timeline. For each generated person (`LikingPersona`'s texts and
/// liking rule, with a day of liking of their own: how many, at which hours), it reports likes per day (bot vs
/// person), the likes' hours (Jensen-Shannon divergence from the person's; the share in hours where the person
/// gives at least 5% of their likes) and the precision of what was liked, beside today's figures (before planning:
/// every post above the threshold liked when the poll saw it). Two variants: like times known (Misskey's
/// reactions), and unknown (Mastodon, X with LIKES=on: likes dated by the liked post, minutes from posting hours).
///
/// Usage: likes-benchmark days [SEEDS (comma-separated, default 1,2,3)] [DAYS (default 30)]; LIKE_WAIT_HOURS (default 2) is how long a
/// slot with nothing kept waits for a post. Run by `script/bench-likes`.
enum LikeDaysBenchmark {
    static func main(_ arguments: [String]) async throws {
        let seeds = (arguments.first ?? "1,2,3").split(separator: ",").compactMap { UInt64($0) }
        let days = arguments.dropFirst().first.flatMap(Int.init) ?? 30
        print("Like days: \(days) simulated days a person, the real favoriter on a virtual clock (5-minute polls, planned like slots).")
        print("person: likes a day over their 180 days (mean, min-max); bot: likes a day over the simulated days (mean, min-max, first day);")
        print("JSD: Jensen-Shannon divergence (base 2) of the likes' hours from the person's; in-hours: share of likes in hours where the person")
        print("gives >= 5% of their likes; precision: share of likes the person's rule would have liked. Before: every post above the threshold.")
        print("")
        print(
            "| seed | like times | person a day | bot a day (first day) | planned a day, skipped (no post) | before a day | JSD bot / before | in-hours bot / before | precision bot / before |"
        )
        print("| ---: | --- | --- | --- | --- | ---: | --- | --- | --- |")
        var passes: [String] = []
        for seed in seeds {
            let person = SimulatedPerson(seed: seed)
            for timesKnown in [true, false] {
                let result = try await simulate(person, days: days, likeTimesKnown: timesKnown, seed: seed)
                let personMean = person.dailyLikes.mean
                print(
                    String(
                        format: "| %llu | %@ | %.2f (%d-%d) | %.2f (%d-%d; %d) | %.2f, %d%% | %.1f | %.3f / %.3f | %.0f%% / %.0f%% | %.3f / %.3f |",
                        seed, timesKnown ? "known (Misskey)" : "unknown (Mastodon, X)", personMean, person.dailyLikes.min, person.dailyLikes.max,
                        result.botDaily.mean, result.botDaily.min, result.botDaily.max, result.botDaily.first,
                        Double(result.planned) / Double(days), result.planned == 0 ? 0 : result.skippedNoPost * 100 / result.planned,
                        result.beforeDaily.mean, result.botJSD, result.beforeJSD, result.botInHours * 100, result.beforeInHours * 100,
                        result.botPrecision, result.beforePrecision))
                let withinRange = (person.dailyLikes.min...person.dailyLikes.max).contains(result.botDaily.first)
                let meanClose = abs(result.botDaily.mean - personMean) <= 0.2 * personMean
                passes.append(
                    "seed \(seed), like times \(timesKnown ? "known" : "unknown"): first day in the person's range: \(withinRange ? "yes" : "NO"); "
                        + "mean within 20%: \(meanClose ? "yes" : "NO"); >= 70% in the person's hours: \(result.botInHours >= 0.7 ? "yes" : "NO"); "
                        + "precision at least before's: \(precisionVerdict(result))")
            }
        }
        print("")
        for line in passes { print(line) }
    }

    /// Whether the bot's precision is at least before's: yes; else by how much, beside the standard error of the bot's
    /// (a binomial share of the likes made: at 60-120 likes, about 0.05).
    static func precisionVerdict(_ result: Result) -> String {
        guard result.botPrecision < result.beforePrecision else { return "yes" }
        let likes = Double(max(1, result.botDaily.counts.reduce(0, +)))
        let error = (result.botPrecision * (1 - result.botPrecision) / likes).squareRoot()
        let gap = result.beforePrecision - result.botPrecision
        return String(format: "%@ (%.3f under, one standard error %.3f)", gap <= error ? "within one standard error" : "NO", gap, error)
    }

    struct Daily {
        var counts: [Int]
        var mean: Double { counts.isEmpty ? 0 : Double(counts.reduce(0, +)) / Double(counts.count) }
        var min: Int { counts.min() ?? 0 }
        var max: Int { counts.max() ?? 0 }
        var first: Int { counts.first ?? 0 }
    }

    struct Result {
        var botDaily: Daily
        var beforeDaily: Daily
        var botJSD: Double, beforeJSD: Double
        var botInHours: Double, beforeInHours: Double
        var botPrecision: Double, beforePrecision: Double
        /// Like slots planned over the days, and those skipped for want of a post above the threshold.
        var planned: Int, skippedNoPost: Int
    }

    static func simulate(_ person: SimulatedPerson, days: Int, likeTimesKnown: Bool, seed: UInt64) async throws -> Result {
        let zone = SimulatedPerson.zone
        let stores = InMemoryStoreSet(settings: StoreSettings(timeZone: zone))
        let archive = stores.archive
        try await archive.insert(person.ownPosts)
        try await stores.likes.recordPersonLikes(
            person.likes.map {
                likeTimesKnown ? $0.like : PersonLike(postID: $0.like.postID, likedAt: $0.postedAt, isExact: false)
            })
        let folder = FileManager.default.temporaryDirectory.appending(path: "like-days-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let classifier = FavoriteClassifier(
            store: try SQLiteWordCounts(path: folder.appending(path: "counts.sqlite").path),
            tokenizer: try PostTokenizer(), threshold: 3)
        // As `train classifier` and the default FAVORITE_RATE_THRESHOLD=auto: the newest 800 likes and 800 posts seen, not
        // liked; the model and threshold chosen by cross-validation.
        let liked = Array(person.likedTexts.suffix(800))
        let seen = Array(person.seenTexts.suffix(800))
        try await classifier.learnOnce(liked.map { ($0.id, $0.post) }, as: .favorite, source: .likes)
        try await classifier.learnOnce(seen.map { ($0.id, $0.post) }, as: .normal, source: .timeline)
        let examples =
            try liked.map { ThresholdCalibration.Example(postID: $0.id, features: try classifier.features(of: $0.post), isFavorite: true) }
            + seen.map { ThresholdCalibration.Example(postID: $0.id, features: try classifier.features(of: $0.post), isFavorite: false) }
        let calibration = ThresholdCalibration.calibrate(
            examples, humanLikeShare: person.timelineLikeShare, models: [.original, .binary], fallbackThreshold: 3)
        classifier.decide(by: calibration)

        // The simulated days' timeline, and the clock at the first day's start.
        var generator = SplitMix64(seed: seed &+ 99)
        var persona = person.persona
        let start = person.end
        var timeline: [SimulatedTimeline.Post] = []
        var nextID: Int64 = 9_000_000
        for day in 0..<days {
            for minute in person.timelineMinutes(using: &generator) {
                let post = persona.post()
                nextID += 1
                timeline.append(
                    .init(
                        id: nextID, text: post.text, author: post.author, liked: post.liked,
                        at: start.addingTimeInterval(Double(day * 86_400 + minute * 60 + Int.random(in: 0..<60, using: &generator)))))
            }
        }
        timeline.sort { $0.at < $1.at }
        for index in timeline.indices { timeline[index].id = 9_000_000 + Int64(index) }
        let clock = ManualBotClock(now: start)
        let network = SimulatedTimeline(posts: timeline, clock: clock)
        let favoriter = Favoriter(
            clock: clock, likes: stores.likes, state: stores.state, archive: archive,
            policy: LikingPolicy(setting: .on, network: network), classifier: classifier, network: network,
            botUserID: "1", humanUserID: "2",
            settings: .init(
                pollInterval: 300,
                waitForPost: ProcessInfo.processInfo.environment["LIKE_WAIT_HOURS"].flatMap(Double.init).map { $0 * 3_600 }
                    ?? Favoriter.Settings().waitForPost),
            logger: Logger(label: "like-days", factory: { _ in SwiftLogNoOpLogHandler() }), seed: seed)
        let running = Task { try await favoriter.run() }
        let end = start.addingTimeInterval(Double(days * 86_400))
        while clock.now() < end {
            try await clock.waitForSleepers(count: 2)
            clock.advanceToNextSleeper()
        }
        try await clock.waitForSleepers(count: 2)
        running.cancel()
        _ = try? await running.value

        // The bot's likes, by day and hour; before: every post above the threshold, liked when a poll saw it.
        let byID = Dictionary(uniqueKeysWithValues: timeline.map { (PostID($0.id), $0) })
        let made = try await stores.likes.likes().filter { $0.likedAt < end }
        var botDays = [Int](repeating: 0, count: days)
        var botHours = [Int](repeating: 0, count: 24)
        for like in made {
            botDays[min(days - 1, Int(like.likedAt.timeIntervalSince(start) / 86_400))] += 1
            botHours[LocalTime(of: like.likedAt, in: zone).minute / 60] += 1
        }
        let verdicts = try await classifier.classify(timeline.map { FavoriteClassifier.Post(text: $0.text, authorUsername: $0.author) })
        let before = zip(timeline, verdicts).filter { $0.1.isFavorite }.map(\.0)
        var beforeDays = [Int](repeating: 0, count: days)
        var beforeHours = [Int](repeating: 0, count: 24)
        for post in before {
            beforeDays[min(days - 1, Int(post.at.timeIntervalSince(start) / 86_400))] += 1
            beforeHours[LocalTime(of: post.at, in: zone).minute / 60] += 1
        }
        var skipped: [String: Int] = [:]
        var planned = 0
        for day in 0..<days {
            let date = LocalTime(of: start.addingTimeInterval(Double(day * 86_400 + 3_600)), in: zone).day
            for slot in try await stores.likes.likeSlots(of: date) ?? [] {
                planned += 1
                if slot.state == .skipped { skipped[String((slot.reason ?? "").prefix(12)), default: 0] += 1 }
            }
        }
        let personHours = person.likeHours
        let total = Double(personHours.reduce(0, +))
        let personsHours = Set(personHours.indices.filter { Double(personHours[$0]) >= 0.05 * total })
        func inHours(_ hours: [Int]) -> Double {
            let all = hours.reduce(0, +)
            return all == 0 ? 0 : Double(personsHours.map { hours[$0] }.reduce(0, +)) / Double(all)
        }
        let botPrecision = made.isEmpty ? 0 : Double(made.filter { byID[$0.postID]?.liked == true }.count) / Double(made.count)
        let beforePrecision = before.isEmpty ? 0 : Double(before.filter(\.liked).count) / Double(before.count)
        return Result(
            botDaily: Daily(counts: botDays), beforeDaily: Daily(counts: beforeDays),
            botJSD: jensenShannon(botHours, personHours), beforeJSD: jensenShannon(beforeHours, personHours),
            botInHours: inHours(botHours), beforeInHours: inHours(beforeHours), botPrecision: botPrecision, beforePrecision: beforePrecision,
            planned: planned, skippedNoPost: skipped.filter { $0.key.hasPrefix("no post") }.values.reduce(0, +))
    }

    /// The Jensen-Shannon divergence (base 2: 0 same, 1 disjoint) of two histograms.
    static func jensenShannon(_ a: [Int], _ b: [Int]) -> Double {
        let sumA = Double(a.reduce(0, +))
        let sumB = Double(b.reduce(0, +))
        guard sumA > 0, sumB > 0 else { return 1 }
        let p = a.map { Double($0) / sumA }
        let q = b.map { Double($0) / sumB }
        func kl(_ x: [Double], _ m: [Double]) -> Double { zip(x, m).reduce(0) { $0 + ($1.0 > 0 ? $1.0 * log2($1.0 / $1.1) : 0) } }
        let m = zip(p, q).map { ($0 + $1) / 2 }
        return (kl(p, m) + kl(q, m)) / 2
    }
}
