/// How likely the human is to post in each of the 1,440 minutes of the day: minute n has probability
/// (posts posted in minute n) / (all posts), kept as a cumulative array searched by bisection.
public struct MinuteDistribution: Sendable, Equatable {
    /// Minutes in a day.
    public static let minutesPerDay = 1440

    /// Posts per minute of the day (index 0 is 00:00).
    public let weights: [Int]
    /// Running sums of `weights`: cumulative[n] = weights[0] + ... + weights[n].
    public let cumulative: [Int]

    /// The distribution of a 1,440-entry histogram (shorter ones are padded with zeros, negatives count as zero).
    public init(histogram: [Int]) {
        var weights = Array(histogram.prefix(Self.minutesPerDay).map { max(0, $0) })
        weights += [Int](repeating: 0, count: Self.minutesPerDay - weights.count)
        self.weights = weights
        var running = 0
        cumulative = weights.map {
            running += $0
            return running
        }
    }

    /// All posts counted.
    public var total: Int { cumulative.last ?? 0 }

    /// The probability of minute `minute`.
    public func probability(of minute: Int) -> Double {
        total == 0 ? 0 : Double(weights[minute]) / Double(total)
    }

    /// The minute whose cumulative range holds `point` (0 ≤ point < total): the first n with cumulative[n] > point.
    public func minute(at point: Int) -> Int {
        var low = 0
        var high = Self.minutesPerDay - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] > point { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// `count` distinct minutes drawn without replacement, in ascending order: each draw follows the distribution
    /// of the minutes not drawn yet (the drawn minute's weight is removed and the rest renormalised), by bisection
    /// on the cumulative array. At most as many minutes as have any weight; none when the histogram is empty.
    ///
    /// The original deleted a drawn minute from its array, which shifted every later minute by one and made
    /// minute 1439 unreachable; here indices never move.
    public func drawWithoutReplacement(count: Int, using generator: inout some RandomNumberGenerator) -> [Int] {
        let available = weights.filter { $0 > 0 }.count
        let wanted = min(max(0, count), available)
        guard wanted > 0 else { return [] }
        var remaining = self
        var drawn: [Int] = []
        drawn.reserveCapacity(wanted)
        for _ in 0..<wanted {
            let point = Int.random(in: 0..<remaining.total, using: &generator)
            let minute = remaining.minute(at: point)
            drawn.append(minute)
            var weights = remaining.weights
            weights[minute] = 0
            remaining = MinuteDistribution(histogram: weights)
        }
        return drawn.sorted()
    }
}
