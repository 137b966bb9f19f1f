import BlueskyAPI
import Foundation

/// Makes JSON inputs for the fuzzer inside a corpus entry's structure: the entry is parsed, one or two of its values
/// (at any depth, most often of the same type) are replaced by a value of another type or another of the same type, removed, or given a key more,
/// and the tree is written back as JSON; so that most rounds reach what a decoder does with a document it can read,
/// rather than stopping at its first syntax error. A quarter of the rounds change bytes as for any target.
enum JSONMutator {
    /// Strings worth trying in place of any string.
    static let strings = [
        "", " ", "at://", "at://did:plc:abc/app.bsky.feed.post/3jzfcijpj2z2a", "at://did:plc:abc/app.bsky.feed.post/",
        "at://did:plc:abc//3jzfcijpj2z2a", "at://a/b/c/d", "at://did:plc:abc/app.bsky.feed.post/2222222222222",
        "at://did:plc:abc/app.bsky.feed.post/zzzzzzzzzzzzz", "did:plc:", "mention", "reply", "follow", "like",
        "app.bsky.feed.post", "app.bsky.feed.like", "2025-11-24T16:00:00.000Z", "\u{0}", "\n", "猫", "𝕏", "\u{301}",
    ]

    /// A new input from one of `fuzzer`'s corpus entries.
    static func generate(_ fuzzer: inout Fuzzer) -> [UInt8] {
        let entry = fuzzer.pick(fuzzer.corpus)
        guard fuzzer.below(4) != 0, var value = try? JSONDecoder().decode(JSONValue.self, from: Data(entry)) else { return fuzzer.mutated(entry) }
        for _ in 0...fuzzer.below(2) { mutate(&value, &fuzzer) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Array((try? encoder.encode(value)) ?? Data(entry))
    }

    /// Changes one value somewhere in `value`: an object or array has one of its members removed, added or changed
    /// (most often deeper down); any other value is replaced.
    static func mutate(_ value: inout JSONValue, _ fuzzer: inout Fuzzer) {
        switch value {
        case .object(var object) where !object.isEmpty:
            let key = fuzzer.pick(object.keys.sorted())
            switch fuzzer.below(10) {
            case 0: object[key] = nil
            case 1:
                object[fuzzer.pick(["$type", "uri", "cid", "record", "reply", "facets", "labels", "text", "createdAt", "x"])] = replacement(
                    object[key]!, &fuzzer)
            case 2: object[key] = replacement(object[key]!, &fuzzer)
            default: mutate(&object[key]!, &fuzzer)
            }
            value = .object(object)
        case .array(var array) where !array.isEmpty:
            let index = fuzzer.below(array.count)
            switch fuzzer.below(8) {
            case 0: array.remove(at: index)
            case 1: array.append(array[index])
            case 2: array[index] = replacement(array[index], &fuzzer)
            default: mutate(&array[index], &fuzzer)
            }
            value = .array(array)
        default:
            value = replacement(value, &fuzzer)
        }
    }

    /// Another value for `value`: of the same type three times in four, of any type otherwise.
    static func replacement(_ value: JSONValue, _ fuzzer: inout Fuzzer) -> JSONValue {
        if fuzzer.below(4) != 0 {
            switch value {
            case .string(let text):
                // The string changed as bytes are, kept valid UTF-8.
                return .string(fuzzer.below(2) == 0 ? fuzzer.pick(strings) : String(decoding: fuzzer.mutated(Array(text.utf8)), as: UTF8.self))
            case .integer: return .integer(fuzzer.pick([0, -1, 1, 12, Int64.max, Int64.min, 1 << 53]))
            case .bool(let flag): return .bool(!flag)
            default: break
            }
        }
        let choices: [JSONValue] = [
            .null, .bool(false), .integer(0), .integer(-1), .number(0.5), .number(1e300), .string(fuzzer.pick(strings)),
            .array([]), .array([value]), .object([:]), .object(["$type": .string("app.bsky.feed.post")]),
        ]
        return fuzzer.pick(choices)
    }
}
