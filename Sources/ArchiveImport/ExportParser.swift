import Foundation

/// Parses the archive's data files: `window.YTD.tweets.part0 = [ {"tweet": {...}}, ... ]` and
/// `window.YTD.like.part0 = [ {"like": {...}}, ... ]`.
enum ExportParser {
    /// A tweet as the archive writes it: numbers as strings, `full_text` HTML-escaped,
    /// `created_at` like `Sat Aug 12 16:10:37 +0000 2023`.
    struct Tweet: Decodable {
        var idStr: String?
        var id: String?
        var fullText: String?
        var text: String?
        var createdAt: String
        var inReplyToUserIdStr: String?
        var entities: Entities?

        struct Entities: Decodable {
            var urls: [Link]?
        }

        struct Link: Decodable {
            var url: String
            var expandedUrl: String?
        }
    }

    /// A like: the archive has no author, and `fullText` is sometimes missing.
    struct Like: Decodable {
        var tweetId: String
        var fullText: String?
        var expandedUrl: String?
    }

    private struct TweetEntry: Decodable { var tweet: Tweet }
    private struct LikeEntry: Decodable { var like: Like }

    static func tweets(in file: ExportFiles.File) throws -> [Tweet] {
        try entries(TweetEntry.self, in: file).map(\.tweet)
    }

    static func likes(in file: ExportFiles.File) throws -> [Like] {
        try entries(LikeEntry.self, in: file).map(\.like)
    }

    /// The JSON array after `window.YTD.<name>.partN =`, decoded; errors say where the file is broken.
    private static func entries<Entry: Decodable>(_ type: Entry.Type, in file: ExportFiles.File) throws -> [Entry] {
        let bytes = file.data
        guard let start = bytes.firstIndex(of: UInt8(ascii: "[")) else {
            throw ImportError(file: file.name, reason: "no JSON array found; expected `window.YTD.tweets.part0 = [ ... ]`")
        }
        let prefix = String(decoding: bytes[bytes.startIndex..<start], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard prefix.isEmpty || (prefix.hasPrefix("window.YTD.") && prefix.hasSuffix("=")) else {
            throw ImportError(file: file.name, reason: "it starts with `\(prefix.prefix(40))`, not `window.YTD.<name>.partN =`")
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            return try decoder.decode([Entry].self, from: bytes[start...])
        } catch DecodingError.dataCorrupted(let context) {
            throw ImportError(file: file.name, reason: "the JSON is malformed or cut short (\(describe(context, bytes: bytes.count - start, offset: start)))")
        } catch DecodingError.keyNotFound(let key, let context) {
            throw ImportError(file: file.name, reason: "\(place(context.codingPath)) has no \"\(key.stringValue)\"")
        } catch DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context) {
            throw ImportError(file: file.name, reason: "\(place(context.codingPath)): \(context.debugDescription)")
        }
    }

    /// "entry 12 (tweet.created_at)", counting entries from 1 as a person would.
    private static func place(_ path: [any CodingKey]) -> String {
        guard let first = path.first, let index = first.intValue else { return path.map(\.stringValue).joined(separator: ".") }
        let rest = path.dropFirst().map(\.stringValue).joined(separator: ".")
        return "entry \(index + 1)" + (rest.isEmpty ? "" : " (\(rest))")
    }

    private static func describe(_ context: DecodingError.Context, bytes: Int, offset: Int) -> String {
        let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
        let detail = underlying ?? context.debugDescription
        let location = context.codingPath.isEmpty ? "" : " at \(place(context.codingPath))"
        return "\(detail)\(location); the array starts at byte \(offset) and runs \(bytes) bytes"
    }
}

/// `Sat Aug 12 16:10:37 +0000 2023`, the archive's time format, parsed without a DateFormatter (fast, thread-safe).
enum ExportDate {
    private static let months = ["Jan": 1, "Feb": 2, "Mar": 3, "Apr": 4, "May": 5, "Jun": 6,
                                 "Jul": 7, "Aug": 8, "Sep": 9, "Oct": 10, "Nov": 11, "Dec": 12]

    static func parse(_ text: String) -> Date? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, let month = months[String(parts[1])], let day = Int(parts[2]), let year = Int(parts[5]) else { return nil }
        let clock = parts[3].split(separator: ":").compactMap { Int($0) }
        let zone = parts[4]
        guard clock.count == 3, zone.count == 5, let zoneHours = Int(zone.dropFirst().prefix(2)), let zoneMinutes = Int(zone.suffix(2)),
              (1...31).contains(day), (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...60).contains(clock[2]) else { return nil }
        let sign = zone.first == "-" ? -1 : 1
        let seconds = daysSince1970(year: year, month: month, day: day) * 86_400 + clock[0] * 3_600 + clock[1] * 60 + clock[2]
            - sign * (zoneHours * 3_600 + zoneMinutes * 60)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
