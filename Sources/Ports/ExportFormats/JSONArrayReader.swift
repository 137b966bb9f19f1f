public import Foundation

/// The elements of one JSON array in a file, read a megabyte at a time, so that an export of any size is parsed in
/// little memory: each element's bytes are handed out whole, to be decoded on their own. The array is the first one
/// after `key` (`"orderedItems"` in a Mastodon outbox), or the first of the file after a prefix that `prefix` accepts
/// (X's `window.YTD.tweets.part0 = `). Errors name the file, the byte, and the entry.
public struct JSONArrayReader {
    private let handle: FileHandle
    private let name: String
    private var buffer: [UInt8] = []
    private var position = 0
    /// Bytes consumed before `buffer`.
    private var offset = 0
    private var atEnd = false
    private var started = false
    private var finished = false
    /// Elements handed out so far.
    public private(set) var count = 0

    /// How many bytes are read at a time.
    public static let chunkSize = 1 << 20
    /// The most bytes one element may have: an export's post or status is a few kilobytes, and the reader holds one
    /// element at a time, so this bounds its memory.
    public static let elementLimit = 16 << 20

    /// A reader of the array in the file at `url` (named `name` in errors). With `key`, the array is the value of
    /// the first `"key":`; else it is the first `[` of the file, and `prefix` checks the text before it.
    public init(url: URL, name: String, key: String? = nil, prefix: (String) -> String? = { _ in nil }) throws {
        do { handle = try FileHandle(forReadingFrom: url) } catch {
            throw ImportError(file: name, reason: "it cannot be read (\((error as NSError).localizedDescription))")
        }
        self.name = name
        if let key {
            try skip(past: Array("\"\(key)\"".utf8), what: "no \"\(key)\" array")
            try skipWhitespace()
            guard try nextByte() == UInt8(ascii: ":") else { throw malformed("expected ':' after \"\(key)\"") }
            try skipWhitespace()
            guard try nextByte() == UInt8(ascii: "[") else { throw malformed("\"\(key)\" is not an array") }
        } else {
            var before: [UInt8] = []
            while true {
                guard let byte = try nextByte() else {
                    throw ImportError(file: name, reason: "no JSON array found; expected `window.YTD.tweets.part0 = [ ... ]`")
                }
                if byte == UInt8(ascii: "[") { break }
                if before.count < 200 { before.append(byte) }
            }
            if let problem = prefix(String(decoding: before, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) {
                throw ImportError(file: name, reason: problem)
            }
        }
        started = true
    }

    /// The next element's bytes, or nil after the array's `]`.
    public mutating func next() throws -> Data? {
        guard !finished else { return nil }
        try skipWhitespace()
        guard let first = try peekByte() else { throw cutShort() }
        if first == UInt8(ascii: "]") {
            position += 1
            finished = true
            return nil
        }
        if count > 0 {
            guard first == UInt8(ascii: ",") else { throw malformed("expected ',' or ']' after entry \(count)") }
            position += 1
            try skipWhitespace()
        }
        var element: [UInt8] = []
        var depth = 0
        var inString = false
        var escaped = false
        while true {
            guard let byte = try nextByte() else { throw cutShort() }
            element.append(byte)
            guard element.count <= Self.elementLimit else {
                throw ImportError(
                    file: name,
                    reason: "entry \(count + 1) is larger than \(Self.elementLimit >> 20) MiB (at byte \(offset + position)): not an export's entry")
            }
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    if depth == 0 { break }  // a string element ends with its closing quote
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth < 0 { throw malformed("an unbalanced '\(Character(Unicode.Scalar(byte)))' in entry \(count + 1)") }
            default: break
            }
            if depth == 0, !inString {
                // A scalar element ends before the next ',' or ']'; an object or array at its closing bracket.
                if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") { break }
                if let following = try peekByte(), following == UInt8(ascii: ",") || following == UInt8(ascii: "]") || following.isWhitespace {
                    break
                }
            }
        }
        count += 1
        return Data(element)
    }

    /// "the JSON is malformed or cut short (...)" for an array that ends too soon.
    private func cutShort() -> ImportError {
        ImportError(file: name, reason: "the JSON is malformed or cut short (it ends at byte \(offset + position), inside entry \(count + 1))")
    }

    private func malformed(_ what: String) -> ImportError {
        ImportError(file: name, reason: "the JSON is malformed or cut short (\(what), at byte \(offset + position))")
    }

    // MARK: - Bytes

    private mutating func fill() throws -> Bool {
        guard position >= buffer.count else { return true }
        guard !atEnd else { return false }
        offset += buffer.count
        let data: Data?
        do { data = try handle.read(upToCount: Self.chunkSize) } catch {
            throw ImportError(file: name, reason: "it cannot be read (\((error as NSError).localizedDescription))")
        }
        guard let data, !data.isEmpty else {
            atEnd = true
            buffer = []
            position = 0
            return false
        }
        buffer = Array(data)
        position = 0
        return true
    }

    private mutating func peekByte() throws -> UInt8? { try fill() ? buffer[position] : nil }

    private mutating func nextByte() throws -> UInt8? {
        guard try fill() else { return nil }
        defer { position += 1 }
        return buffer[position]
    }

    private mutating func skipWhitespace() throws {
        while let byte = try peekByte(), byte.isWhitespace { position += 1 }
    }

    /// Reads up to and past the first occurrence of `pattern`.
    private mutating func skip(past pattern: [UInt8], what: String) throws {
        var matched = 0
        while matched < pattern.count {
            guard let byte = try nextByte() else { throw ImportError(file: name, reason: "the JSON has \(what)") }
            matched = byte == pattern[matched] ? matched + 1 : (byte == pattern[0] ? 1 : 0)
        }
    }
}

extension UInt8 {
    /// JSON's whitespace: space, tab, line feed, carriage return.
    fileprivate var isWhitespace: Bool { self == 0x20 || self == 0x09 || self == 0x0A || self == 0x0D }
}
