import BotClock
import Foundation
import Testing

@Suite("Local time: the one place days and times of day are written")
struct LocalTimeTests {
    @Test("A moment's minute and day on a zone's clock, its HH:MM, and the UTC day X bills by")
    func minuteDayAndClockTime() throws {
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        let moment = Date(timeIntervalSince1970: 1_763_823_600)  // 2025-11-22T15:00:00Z = 2025-11-23 00:00 in Tokyo
        let local = LocalTime(of: moment, in: tokyo)
        #expect(local.day == "2025-11-23")
        #expect(local.minute == 0)
        #expect(local.clockTime == "00:00")
        #expect(LocalTime.utcDay(of: moment) == "2025-11-22")
        #expect(LocalTime.clockTime(605) == "10:05")
    }

    @Test("A day string is read back, and what is not a day is refused")
    func parsesDays() {
        #expect(LocalTime.parts(ofDay: "2026-11-22")! == (2026, 11, 22))
        #expect(LocalTime.parts(ofDay: "2026-11") == nil)
        #expect(LocalTime.parts(ofDay: "2026-xx-22") == nil)
        #expect(LocalTime.parts(ofDay: "2026-11-22-1") == nil)
        #expect(LocalTime.date(of: 0, on: "not a day", in: .gmt) == nil)
        #expect(LocalTime.date(of: 61, on: "2026-11-22", in: .gmt) == Date(timeIntervalSince1970: 1_795_309_260))
    }
}
