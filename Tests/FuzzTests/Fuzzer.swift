import Foundation
import SeededRandom
import Testing

/// A mutation fuzzer over a parser's committed corpus (`Tests/FuzzTests/Corpus/<target>/`): each round takes a
/// corpus entry and changes it a few times (bits flipped, bytes set, the target's interesting tokens inserted, ranges
/// deleted, repeated or spliced from another entry), then hands the bytes to the property under test.
///
/// Bounded and deterministic by default (`FUZZ_ITERATIONS`, 1,500 rounds per target; `FUZZ_SEED`, fixed), so that CI
/// runs it on every change; by hand, `FUZZ_ITERATIONS=200000 FUZZ_SEED=$RANDOM swift test --filter FuzzTests` runs
/// longer. In that mode each input is written to `.build/fuzz-current-input` before it is tried, so that a crash
/// (which ends the process) leaves the input behind: add it to the corpus once fixed.
struct Fuzzer {
    /// The target's name: its corpus folder.
    let target: String
    /// The corpus entries.
    let corpus: [[UInt8]]
    /// Tokens worth inserting for this target (its syntax, and numbers and characters that break parsers).
    let tokens: [[UInt8]]
    var random: SplitMix64

    /// Rounds per target.
    static var iterations: Int { Int(ProcessInfo.processInfo.environment["FUZZ_ITERATIONS"] ?? "") ?? 1_500 }
    /// Whether this is a long run by hand (each input kept on disk while it is tried).
    static var isLong: Bool { ProcessInfo.processInfo.environment["FUZZ_ITERATIONS"] != nil }
    static var seed: UInt64 { UInt64(ProcessInfo.processInfo.environment["FUZZ_SEED"] ?? "") ?? 0x6D69_7272_6F72 }

    /// Tokens that break parsers of any kind.
    static let commonTokens: [String] = [
        "", "\0", "\n", "\r", "\r\n", "\t", " ", "\"", "'", "\\", "%", "%00", "=", ":", "|", "&", ";", "#", "@", "[", "]", "{", "}",
        "<", ">", "0", "-1", "9223372036854775807", "-9223372036854775808", "18446744073709551616", "1e308", "1e13", "-0", "nan", "inf",
        "0x7fffffff", "4294967296", "\u{0301}", "\u{FEFF}", "\u{FFFD}", "𝕏", "猫", "\u{202E}", String(repeating: "A", count: 300),
    ]

    /// A fuzzer of `target` with its own `tokens`, and `byteTokens` for a binary format (bytes that are not UTF-8).
    init(_ target: String, tokens: [String] = [], byteTokens: [[UInt8]] = [], file: String = #filePath) throws {
        self.target = target
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent().appending(path: "Corpus/\(target)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        corpus = try names.map { Array(try Data(contentsOf: folder.appending(path: $0))) }
        self.tokens = (Self.commonTokens + tokens).map { Array($0.utf8) } + byteTokens
        random = SplitMix64(seed: Self.seed ^ UInt64(truncatingIfNeeded: target.utf8.reduce(5381) { ($0 &* 33) &+ Int($1) }))
    }

    /// Runs `property` on every corpus entry as it is, then on `iterations` mutated ones. The property records its own
    /// expectations; a thrown error is a finding, reported with the input.
    mutating func run(_ property: ([UInt8]) throws -> Void) {
        run(generating: { $0.mutated() }, property)
    }

    /// Runs `property` on every corpus entry as it is, then on `iterations` inputs made by `generate`, which is given
    /// this fuzzer (its random numbers, its corpus, `mutated(_:)`): for a target whose inputs are better made knowing
    /// their structure (a JSON tree, a CAR file's blocks) than by changing bytes alone.
    mutating func run(generating generate: (inout Fuzzer) -> [UInt8], _ property: ([UInt8]) throws -> Void) {
        #expect(!corpus.isEmpty, "the corpus of \(target) is empty")
        for entry in corpus { check(entry, property) }
        for _ in 0..<Self.iterations {
            let input = generate(&self)
            check(input, property)
        }
    }

    /// A number from 0 to `bound - 1` (`bound` above 0).
    mutating func below(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }

    /// One of `choices` (not empty).
    mutating func pick<Element>(_ choices: [Element]) -> Element { choices[below(choices.count)] }

    private func check(_ input: [UInt8], _ property: ([UInt8]) throws -> Void) {
        if Self.isLong { try? Data(input).write(to: URL(fileURLWithPath: ".build/fuzz-current-input")) }
        do {
            try property(input)
        } catch {
            Issue.record("\(target): \(error) for the input (base64) \(Data(input).base64EncodedString())")
        }
    }

    /// A corpus entry changed one to eight times.
    mutating func mutated() -> [UInt8] {
        mutated(corpus[Int(random.next() % UInt64(corpus.count))])
    }

    /// `input` changed one to eight times.
    mutating func mutated(_ input: [UInt8]) -> [UInt8] {
        var bytes = input
        for _ in 0...(random.next() % 8) {
            let position = bytes.isEmpty ? 0 : Int(random.next() % UInt64(bytes.count + 1))
            switch random.next() % 7 {
            case 0 where !bytes.isEmpty:  // a bit flipped
                let index = min(position, bytes.count - 1)
                bytes[index] ^= 1 << (random.next() % 8)
            case 1 where !bytes.isEmpty:  // a byte set
                bytes[min(position, bytes.count - 1)] = UInt8(truncatingIfNeeded: random.next())
            case 2, 3:  // a token inserted
                bytes.insert(contentsOf: tokens[Int(random.next() % UInt64(tokens.count))], at: position)
            case 4 where !bytes.isEmpty:  // a range deleted
                let length = Int(random.next() % UInt64(min(bytes.count - min(position, bytes.count - 1), 64))) + 1
                let start = min(position, bytes.count - 1)
                bytes.removeSubrange(start..<min(bytes.count, start + length))
            case 5 where !bytes.isEmpty:  // a range repeated
                let start = min(position, bytes.count - 1)
                let range = start..<min(bytes.count, start + Int(random.next() % 32) + 1)
                let piece = Array(bytes[range])
                for _ in 0..<(random.next() % 16) { bytes.insert(contentsOf: piece, at: range.upperBound) }
            default:  // spliced from another entry
                let other = corpus[Int(random.next() % UInt64(corpus.count))]
                guard !other.isEmpty else { continue }
                let start = Int(random.next() % UInt64(other.count))
                bytes.insert(contentsOf: other[start..<min(other.count, start + Int(random.next() % 64) + 1)], at: position)
            }
        }
        return bytes
    }
}
