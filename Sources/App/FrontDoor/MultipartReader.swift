import Foundation

/// A `multipart/form-data` body (RFC 7578) read as it arrives: each part's headers, then its bytes in pieces, so that a
/// file of any size passes through in bounded memory. Fed the body's chunks in order; answers what each chunk
/// completed. A body that is not what it claims (no boundary where one must be, headers past 8 KiB, no end) throws
/// `MultipartMalformed`.
struct MultipartReader {
    /// What the body held, in order.
    enum Event: Equatable {
        /// A part begins: its field's name, and the file name a browser gives a file's part.
        case part(name: String, filename: String?)
        /// Some of the current part's bytes.
        case bytes([UInt8])
        /// The current part ended.
        case partEnd
    }

    private enum Phase { case preamble, headers, content, done }

    private let delimiter: [UInt8]  // CRLF "--" boundary
    private var phase = Phase.preamble
    private var pending: [UInt8] = []

    /// The most a part's headers may hold.
    static let headerLimit = 8_192

    /// A reader for a body with `contentType`'s boundary, or nil when it names none (not a multipart form).
    init?(contentType: String) {
        guard contentType.lowercased().hasPrefix("multipart/form-data"), let boundary = Self.parameter("boundary", in: contentType),
            !boundary.isEmpty, boundary.utf8.count <= 70
        else { return nil }
        delimiter = Array("\r\n--\(boundary)".utf8)
        // The body's first delimiter has no CRLF before it: one is supplied.
        pending = [13, 10]
    }

    /// Whether the closing delimiter was read.
    var isFinished: Bool { phase == .done }

    /// Reads `chunk`: the events it completes.
    mutating func feed(_ chunk: some Collection<UInt8>) throws -> [Event] {
        pending.append(contentsOf: chunk)
        var events: [Event] = []
        var start = 0
        defer { pending.removeFirst(start) }
        while true {
            switch phase {
            case .done:
                start = pending.count  // the epilogue is ignored
                return events
            case .preamble:
                guard let at = find(delimiter, from: start) else {
                    // Only the tail that could begin a delimiter is kept.
                    start = max(start, pending.count - delimiter.count)
                    return events
                }
                start = at
                guard let (next, closing) = try afterDelimiter(at) else { return events }
                start = next
                phase = closing ? .done : .headers
            case .headers:
                guard let end = find([13, 10, 13, 10], from: start) else {
                    if pending.count - start > Self.headerLimit { throw MultipartMalformed("a part's headers run past 8 KiB") }
                    return events
                }
                guard end - start <= Self.headerLimit else { throw MultipartMalformed("a part's headers run past 8 KiB") }
                let headers = String(decoding: pending[start..<end], as: UTF8.self)
                start = end + 4
                events.append(try Self.part(headers))
                phase = .content
            case .content:
                guard let at = find(delimiter, from: start) else {
                    // Everything but a tail that could begin the delimiter is the part's.
                    let safe = pending.count - (delimiter.count - 1)
                    if safe > start {
                        events.append(.bytes(Array(pending[start..<safe])))
                        start = safe
                    }
                    return events
                }
                if at > start { events.append(.bytes(Array(pending[start..<at]))) }
                start = at
                // The part ends once what follows its delimiter is known.
                guard let (next, closing) = try afterDelimiter(at) else { return events }
                events.append(.partEnd)
                start = next
                phase = closing ? .done : .headers
            }
        }
    }

    /// What follows the delimiter at `at`: `--` ends the body, CRLF begins a part's headers (transport padding may come
    /// between). Where the next part or the end begins, and whether it is the end; nil when more bytes are needed.
    private func afterDelimiter(_ at: Int) throws -> (Int, Bool)? {
        var index = at + delimiter.count
        while index < pending.count, pending[index] == 32 || pending[index] == 9 { index += 1 }
        guard pending.count - index >= 2 else {
            if index - at - delimiter.count > 64 { throw MultipartMalformed("a boundary is followed by neither a part nor the end") }
            return nil
        }
        switch (pending[index], pending[index + 1]) {
        case (45, 45): return (index + 2, true)
        case (13, 10): return (index + 2, false)
        default: throw MultipartMalformed("a boundary is followed by neither a part nor the end")
        }
    }

    /// Where `needle` first occurs in `pending` at or after `from`.
    private func find(_ needle: [UInt8], from: Int) -> Int? {
        guard let first = needle.first, pending.count - from >= needle.count else { return nil }
        var index = from
        let last = pending.count - needle.count
        return pending.withUnsafeBufferPointer { buffer -> Int? in
            guard let base = buffer.baseAddress else { return nil }
            // memchr and memcmp: a file's bytes pass at memory speed.
            while index <= last {
                guard let found = memchr(base + index, Int32(first), last - index + 1) else { return nil }
                let hit = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                if memcmp(base + hit, needle, needle.count) == 0 { return hit }
                index = hit + 1
            }
            return nil
        }
    }

    /// A part's `Content-Disposition`: `form-data` with its `name` and, for a file, its `filename`.
    static func part(_ headers: String) throws -> Event {
        for line in headers.split(separator: "\r\n") {
            let pair = line.split(separator: ":", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "content-disposition" else { continue }
            let value = String(pair[1])
            guard value.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("form-data"), let name = parameter("name", in: value) else {
                break
            }
            return .part(name: name, filename: parameter("filename", in: value))
        }
        throw MultipartMalformed("a part has no form-data name")
    }

    /// The value of `name` among a header's `; name=value` parameters, quoted or not (a quoted one's `\"` unescaped).
    static func parameter(_ name: String, in header: String) -> String? {
        var rest = Substring(header)
        while let semicolon = rest.firstIndex(of: ";") {
            rest = rest[rest.index(after: semicolon)...].drop { $0 == " " || $0 == "\t" }
            guard let equals = rest.firstIndex(of: "=") else { return nil }
            let key = rest[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            rest = rest[rest.index(after: equals)...]
            var value = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                var escaped = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if escaped {
                        value.append(character)
                        escaped = false
                    } else if character == "\\" {
                        escaped = true
                    } else if character == "\"" {
                        break
                    } else {
                        value.append(character)
                    }
                }
            } else {
                let end = rest.firstIndex(of: ";") ?? rest.endIndex
                value = rest[..<end].trimmingCharacters(in: .whitespaces)
                rest = rest[end...]
            }
            if key == name { return value }
        }
        return nil
    }
}

/// A multipart body that is not what it claims, in a sentence.
struct MultipartMalformed: Error, CustomStringConvertible {
    /// What is wrong.
    var description: String

    init(_ description: String) { self.description = description }
}
