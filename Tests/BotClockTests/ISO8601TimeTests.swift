import BotClock
import Foundation
import Testing

/// The networks' times, bounded where they enter: a year no store can hold is not taken for a time.
@Suite("ISO 8601 times from the networks")
struct ISO8601TimeTests {
    struct Dated: Decodable { var createdAt: Date }

    static func decoded(_ text: String) throws -> Date {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = ISO8601Time.decodingStrategy
        return try decoder.decode(Dated.self, from: Data(#"{"createdAt": "\#(text)"}"#.utf8)).createdAt
    }

    @Test(
        "Times of 1970 to 9999 are read, with or without fractions; a year past 9999 or before 1970 is no time (nil), and in a page it reads as 1970 rather than making the page unreadable (issue 43)"
    )
    func bounded() throws {
        #expect(ISO8601Time.date(from: "2026-11-22T00:00:00.000Z") == Date(timeIntervalSince1970: 1_795_305_600))
        #expect(ISO8601Time.date(from: "2026-11-22T00:00:00Z") == Date(timeIntervalSince1970: 1_795_305_600))
        #expect(ISO8601Time.date(from: "9999-12-31T23:59:59Z") != nil)
        for bogus in ["99999-01-01T00:00:00Z", "+99999-01-01T00:00:00Z", "10000-01-01T00:00:00Z", "1969-12-31T23:59:59Z", "0001-01-01T00:00:00Z"] {
            #expect(ISO8601Time.date(from: bogus) == nil, "\(bogus)")
        }
        #expect(try Self.decoded("2026-11-22T00:00:00.000Z") == Date(timeIntervalSince1970: 1_795_305_600))
        #expect(try Self.decoded("99999-01-01T00:00:00Z") == Date(timeIntervalSince1970: 0))
        #expect(throws: DecodingError.self) { try Self.decoded("yesterday") }
    }
}
