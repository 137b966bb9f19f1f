import Foundation

/// Runs measured blocks several times and prints a table: median and best wall time, and throughput.
struct BenchmarkRunner {
    struct Result {
        var name: String
        var items: Int
        var unit: String
        var samples: [Duration]
        var target: String

        var median: Duration { samples.sorted()[samples.count / 2] }
        var best: Duration { samples.min()! }
        var perSecond: Double { Double(items) / median.seconds }
    }

    let iterations: Int
    private(set) var results: [Result] = []

    /// Measures `body` `iterations` times after one warm-up run; `prepare` runs before each, unmeasured.
    mutating func measure(
        isolation: isolated (any Actor)? = #isolation,
        _ name: String, items: Int, unit: String, target: String, iterations runs: Int? = nil,
        prepare: () async throws -> Void = {}, _ body: () async throws -> Void
    ) async throws {
        let clock = ContinuousClock()
        try await prepare()
        try await body()  // warm-up: connections opened, caches filled, code paged in
        var samples: [Duration] = []
        for _ in 0..<(runs ?? iterations) {
            try await prepare()
            samples.append(try await clock.measure { try await body() })
        }
        let result = Result(name: name, items: items, unit: unit, samples: samples, target: target)
        results.append(result)
        print(
            String(
                format: "  %-48@ median %9.2f ms  best %9.2f ms  %12.0f %@/s   target: %@",
                name as NSString, result.median.seconds * 1000, result.best.seconds * 1000,
                result.perSecond, unit as NSString, target as NSString))
    }

    /// The process's peak resident memory, in MiB.
    static var peakMemoryMiB: Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_maxrss) / 1024
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
