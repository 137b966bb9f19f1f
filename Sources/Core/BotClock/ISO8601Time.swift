public import Foundation

/// Times as the networks' APIs write them: ISO 8601, with or without fractional seconds.
public enum ISO8601Time {
    /// The moments a network's time may name: from 1970 to the end of 9999 (what the stores' date columns hold). A post
    /// dated outside them (a client's clock, a hostile server: a Bluesky record's `createdAt` is the client's word) is
    /// not taken for a time at all.
    public static let possible = Date(timeIntervalSince1970: 0)...Date(timeIntervalSince1970: 253_402_300_799)

    /// The moment `text` names, or nil when it is not an ISO 8601 time within `possible`.
    public static func date(from text: String) -> Date? {
        let parsed =
            (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
            ?? (try? Date(text, strategy: Date.ISO8601FormatStyle()))
        return parsed.flatMap { possible.contains($0) ? $0 : nil }
    }

    /// `date` in UTC with milliseconds, as the AT Protocol writes times (`2026-11-22T00:00:00.000Z`).
    public static func string(from date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// A JSON decoding strategy reading such times, failing with the text that is not one. A time outside `possible`
    /// reads as 1970, its start: one post's bogus date does not make a whole page unreadable, and is stored without a
    /// trap, too old for anything the bot does with new posts.
    public static let decodingStrategy = JSONDecoder.DateDecodingStrategy.custom { decoder in
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        let parsed =
            (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
            ?? (try? Date(text, strategy: Date.ISO8601FormatStyle()))
        guard let parsed else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(text) is not an ISO 8601 time")
        }
        return possible.contains(parsed) ? parsed : possible.lowerBound
    }
}
