public import Foundation

/// Times as the networks' APIs write them: ISO 8601, with or without fractional seconds.
public enum ISO8601Time {
    /// The moment `text` names, or nil when it is not an ISO 8601 time.
    public static func date(from text: String) -> Date? {
        (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))) ?? (try? Date(text, strategy: Date.ISO8601FormatStyle()))
    }

    /// `date` in UTC with milliseconds, as the AT Protocol writes times (`2026-11-22T00:00:00.000Z`).
    public static func string(from date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// A JSON decoding strategy reading such times, failing with the text that is not one.
    public static let decodingStrategy = JSONDecoder.DateDecodingStrategy.custom { decoder in
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let date = date(from: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(text) is not an ISO 8601 time")
        }
        return date
    }
}
