import BotCore
import FakeX
import Foundation
import PostText
import Remix
import SeededRandom
import Stores
import Tokenizer

/// How good the remixes of a generated person are (`script/bench-remix`): for each persona seed, the person's posts
/// (no replies, retweets, links or mentions: what the bot may post on X) are split into 80% the bot knows and 20% held
/// out. At the minute of each held-out post a remix is written as the poster writes it (up to 60 sources within ±30 minutes of
/// the minute, widened while there are fewer than 20; never what any of the person's posts says, never a remix written
/// before in the run) and the share of slots filled and the overlaps are counted. A bigram model
/// of the held-out posts' morphemes (add-one smoothing) then scores, per morpheme: the held-out posts themselves (the
/// ceiling), the remixes, and the held-out posts with their morphemes shuffled (the floor).
@main
struct RemixBenchmark {
    static func main() throws {
        let arguments = CommandLine.arguments.dropFirst()
        let seeds = arguments.compactMap { UInt64($0) }
        let tokenizer = try PostTokenizer()
        let timeZone = TimeZone(identifier: "Asia/Tokyo")!
        var rows: [Row] = []
        for seed in seeds.isEmpty ? [1, 2, 3] : seeds {
            let persona = FakeXPersona(.init(randomSeed: seed, dayStart: Date(timeIntervalSince1970: 1_795_273_200), timeZone: timeZone))
            let posts = persona.seed.tweets.filter {
                $0.authorID == persona.human.id && $0.inReplyToUserID == nil && $0.retweetOf == nil
                    && !PostLinks.containsLink($0.text) && !ArchiveRules.mentionsSomeone($0.text)
            }
            rows.append(try measure(posts: posts, seed: seed, tokenizer: tokenizer, timeZone: timeZone))
        }
        print(
            "persona  posts  slots  filled  overlap p50  p90   max    log-lik/morpheme: held-out  remixes  shuffled  (remix place 0=floor 1=ceiling)  ms/remix"
        )
        for row in rows {
            print(
                String(
                    format: "%7llu  %5d  %5d  %5.1f%%  %11.2f  %4.2f  %4.2f  %35.3f  %7.3f  %8.3f  %31.2f  %8.1f",
                    row.seed, row.posts, row.slots, 100 * Double(row.filled) / Double(max(1, row.slots)), row.overlap(0.5), row.overlap(0.9),
                    row.overlaps.max() ?? 0, row.ceiling, row.remixes, row.floor, (row.remixes - row.floor) / (row.ceiling - row.floor),
                    row.millisecondsPerSlot))
        }
        let allOverlaps = rows.flatMap(\.overlaps)
        var histogram: [(Double, Int)] = []
        for tenth in 0..<6 {
            let low = Double(tenth) / 10
            let high = Double(tenth + 1) / 10
            let count = allOverlaps.filter { overlap in (tenth == 0 ? overlap >= 0 : overlap > low + 1e-9) && overlap <= high + 1e-9 }.count
            histogram.append((low, count))
        }
        print("overlap of the remixes (longest run shared with one post / morphemes):")
        for (low, count) in histogram { print(String(format: "  %.1f-%.1f  %5d", low, low + 0.1, count)) }
        if let example = rows.first?.examples {
            print("examples:")
            example.prefix(8).forEach { print("  \($0)") }
        }
    }

    struct Row {
        var seed: UInt64
        var posts: Int, slots: Int, filled: Int
        var overlaps: [Double]
        var ceiling: Double, remixes: Double, floor: Double
        var millisecondsPerSlot: Double
        var examples: [String]

        func overlap(_ quantile: Double) -> Double {
            let sorted = overlaps.sorted()
            return sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * quantile))]
        }
    }

    static func measure(posts: [FakeXSeed.Tweet], seed: UInt64, tokenizer: PostTokenizer, timeZone: TimeZone) throws -> Row {
        var random = SplitMix64(seed: seed)
        var known: [FakeXSeed.Tweet] = []
        var heldOut: [FakeXSeed.Tweet] = []
        for post in posts { if Double.random(in: 0..<1, using: &random) < 0.2 { heldOut.append(post) } else { known.append(post) } }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        func minute(_ date: Date) -> Int {
            let parts = calendar.dateComponents([.hour, .minute], from: date)
            return parts.hour! * 60 + parts.minute!
        }
        let knownMinutes = known.map { minute($0.createdAt) }
        let remixer = Remixer(tokenizer: tokenizer, length: .xWeighted(280))
        var remixes: [String] = []
        let personsTexts = Set(posts.map(\.text))
        var posted = Set<String>()
        var overlaps: [Double] = []
        let started = ContinuousClock.now
        for slot in heldOut {
            let at = minute(slot.createdAt)
            var sources: [RemixSource] = []
            for radius in [30, 60, 120, 240, 480, 720] where sources.count < 20 {
                let near = known.indices.filter { index in
                    let distance = abs(knownMinutes[index] - at)
                    return min(distance, 1_440 - distance) <= radius
                }.shuffled(using: &random)
                sources = Array(near.prefix(60)).map { RemixSource(id: PostID(known[$0].id), text: known[$0].text) }
            }
            // As the picker does: never what any of the person's posts says (held-out ones included), never twice.
            let written = remixer.remix(of: sources, using: &random) { !personsTexts.contains($0) && !posted.contains($0) }
            if case .success(let remix) = written {
                remixes.append(remix.text)
                posted.insert(remix.text)
                overlaps.append(remix.overlap)
            }
        }
        let elapsed = started.duration(to: .now)
        let milliseconds = Double(elapsed.components.seconds) * 1_000 + Double(elapsed.components.attoseconds) / 1e15

        let heldOutTokens = try heldOut.map { try tokenizer.morphemes(in: $0.text).map(\.surface) }
        let model = Bigram(posts: heldOutTokens)
        let remixTokens = try remixes.map { try tokenizer.morphemes(in: $0).map(\.surface) }
        let shuffled = heldOutTokens.map { $0.shuffled(using: &random) }
        return Row(
            seed: seed, posts: posts.count, slots: heldOut.count, filled: remixes.count, overlaps: overlaps,
            ceiling: model.meanLogLikelihood(heldOutTokens), remixes: model.meanLogLikelihood(remixTokens),
            floor: model.meanLogLikelihood(shuffled), millisecondsPerSlot: milliseconds / Double(max(1, heldOut.count)),
            examples: remixes)
    }
}

/// A bigram model of morphemes with add-one smoothing; posts start and end with a boundary.
struct Bigram {
    var pairs: [String: [String: Int]] = [:]
    var firsts: [String: Int] = [:]
    var vocabulary: Set<String> = ["</s>"]

    init(posts: [[String]]) {
        for post in posts {
            let padded = ["<s>"] + post + ["</s>"]
            vocabulary.formUnion(post)
            for (first, second) in zip(padded, padded.dropFirst()) {
                pairs[first, default: [:]][second, default: 0] += 1
                firsts[first, default: 0] += 1
            }
        }
    }

    /// The mean natural-log probability per morpheme (the end of each post counted as one) of `posts`.
    func meanLogLikelihood(_ posts: [[String]]) -> Double {
        let size = Double(vocabulary.count + 1)  // one more for every morpheme never seen
        var total = 0.0
        var count = 0
        for post in posts {
            let padded = ["<s>"] + post + ["</s>"]
            for (first, second) in zip(padded, padded.dropFirst()) {
                total += log((Double(pairs[first]?[second] ?? 0) + 1) / (Double(firsts[first] ?? 0) + size))
                count += 1
            }
        }
        return count == 0 ? .nan : total / Double(count)
    }
}
