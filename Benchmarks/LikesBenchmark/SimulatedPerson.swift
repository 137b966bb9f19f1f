import BotClock
import BotCore
import Classifier
import Foundation
import SeededRandom
import Stores

/// A generated person's 180 days before the simulation: the timeline they saw (about 90 posts a day, 06:00 to
/// midnight), their likes (a day's count of their own: quiet days, busy days; at their hours: two or three peaks of
/// their own; each like given to a post of the last six hours their liking rule likes), and their own posts (a few a
/// day, at hours near the ones they like in).
struct SimulatedPerson {
    static let zone = TimeZone(identifier: "Asia/Tokyo")!
    static let historyDays = 180

    /// A liked post: the like, and when the post was made.
    struct Liked {
        var like: PersonLike
        var postedAt: Date
    }
    /// A post as the classifier learns it.
    struct Learned {
        var id: String
        var post: FavoriteClassifier.Post
    }

    var persona: LikingPersona
    let end: Date
    private(set) var likes: [Liked] = []
    private(set) var likedTexts: [Learned] = []
    private(set) var seenTexts: [Learned] = []
    private(set) var ownPosts: [ArchivedPost] = []
    private(set) var dailyLikes = LikeDaysBenchmark.Daily(counts: [])
    /// Their likes by hour of the day.
    private(set) var likeHours = [Int](repeating: 0, count: 24)
    /// The share of the timeline they liked.
    private(set) var timelineLikeShare = 0.0
    let peaks: [(minute: Int, weight: Double)]

    init(seed: UInt64) {
        var generator = SplitMix64(seed: seed &* 31 &+ 7)
        persona = LikingPersona(seed: seed)
        // 2026-11-01 00:00 Tokyo: the simulation starts here, the history ends here.
        end = Date(timeIntervalSince1970: 1_793_458_800)
        let candidates = [450, 735, 1_110, 1_305, 1_410]
        peaks = candidates.shuffled(using: &generator).prefix(Int.random(in: 2...3, using: &generator)).map {
            ($0, Double.random(in: 0.5...1.5, using: &generator))
        }
        let trials = Int.random(in: 7...12, using: &generator)
        let chance = Double.random(in: 0.35...0.55, using: &generator)
        var counts: [Int] = []
        var seenOnTimeline = 0
        var likedOnTimeline = 0
        var nextID: Int64 = 1
        let start = end.addingTimeInterval(-Double(Self.historyDays * 86_400))
        for day in 0..<Self.historyDays {
            let dayStart = start.addingTimeInterval(Double(day * 86_400))
            var posts: [(id: Int64, at: Date, post: LikingPersona.Post)] = []
            for minute in timelineMinutes(using: &generator) {
                posts.append((nextID, dayStart.addingTimeInterval(Double(minute * 60)), persona.post()))
                nextID += 1
            }
            posts.sort { $0.at < $1.at }
            // A quiet day one time in six; else a binomial count of likes.
            let wanted =
                Double.random(in: 0..<1, using: &generator) < 1.0 / 6
                ? 0 : (0..<trials).filter { _ in Double.random(in: 0..<1, using: &generator) < chance }.count
            var given = 0
            var likedIDs = Set<Int64>()
            for _ in 0..<wanted {
                let at = dayStart.addingTimeInterval(Double(likeMinute(using: &generator) * 60 + Int.random(in: 0..<60, using: &generator)))
                let choices = posts.filter { $0.at <= at && $0.at > at.addingTimeInterval(-6 * 3_600) && $0.post.liked && !likedIDs.contains($0.id) }
                guard let chosen = choices.randomElement(using: &generator) else { continue }
                likedIDs.insert(chosen.id)
                likes.append(Liked(like: PersonLike(postID: PostID(chosen.id), likedAt: at, isExact: true), postedAt: chosen.at))
                likedTexts.append(Learned(id: String(chosen.id), post: .init(text: chosen.post.text, authorUsername: chosen.post.author)))
                likeHours[LocalTime(of: at, in: Self.zone).minute / 60] += 1
                given += 1
            }
            counts.append(given)
            for post in posts where !likedIDs.contains(post.id) {
                seenTexts.append(Learned(id: String(post.id), post: .init(text: post.post.text, authorUsername: post.post.author)))
            }
            seenOnTimeline += posts.count
            likedOnTimeline += likedIDs.count
            // Their own posts: zero to four a day, at their hours give or take an hour.
            for _ in 0..<Int.random(in: 0...4, using: &generator) {
                let minute = (likeMinute(using: &generator) + Int.random(in: -60...60, using: &generator) + 1_440) % 1_440
                ownPosts.append(
                    ArchivedPost(
                        postID: PostID(5_000_000 + ownPosts.count), text: "自分の投稿 \(ownPosts.count)",
                        createdAt: dayStart.addingTimeInterval(Double(minute * 60))))
            }
        }
        dailyLikes = LikeDaysBenchmark.Daily(counts: counts)
        // What the calibration aims at: the share of the posts they saw that they liked, as `train classifier` reads it.
        timelineLikeShare = Double(likedOnTimeline) / Double(max(1, seenOnTimeline))
    }

    /// A minute the person likes in: near one of their peaks (a normal spread of 45 minutes), by the peaks' weights.
    func likeMinute(using generator: inout SplitMix64) -> Int {
        let total = peaks.map(\.weight).reduce(0, +)
        var point = Double.random(in: 0..<total, using: &generator)
        var peak = peaks[0].minute
        for candidate in peaks {
            if point < candidate.weight {
                peak = candidate.minute
                break
            }
            point -= candidate.weight
        }
        // Box-Muller.
        let u = max(1e-12, Double.random(in: 0..<1, using: &generator))
        let v = Double.random(in: 0..<1, using: &generator)
        let spread = sqrt(-2 * log(u)) * cos(2 * .pi * v) * 45
        return ((peak + Int(spread.rounded())) % 1_440 + 1_440) % 1_440
    }

    /// The minutes of a day's timeline posts: about 90, from 06:00 to midnight.
    func timelineMinutes(using generator: inout SplitMix64) -> [Int] {
        (0..<Int.random(in: 75...105, using: &generator)).map { _ in Int.random(in: 360..<1_440, using: &generator) }.sorted()
    }
}
