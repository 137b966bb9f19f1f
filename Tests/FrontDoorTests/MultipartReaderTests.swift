import Foundation
import Testing

@testable import FrontDoor

@Suite("The front door's upload: a multipart form read as it arrives")
struct MultipartReaderTests {
    static let boundary = "----formdata-mirror-7f3a"

    /// A form as a browser sends it: the token, then a file whose bytes hold near-boundaries and every byte value.
    static func body(file: [UInt8]) -> [UInt8] {
        var body = Array("preamble to ignore\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\ntoken-123\r\n".utf8)
        body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"archive\"; filename=\"my \\\"old\\\" tweets.zip\"\r\n".utf8)
        body += Array("Content-Type: application/zip\r\n\r\n".utf8)
        body += file
        body += Array("\r\n--\(boundary)--\r\nepilogue".utf8)
        return body
    }

    static let file: [UInt8] = Array("PK\u{3}\u{4}\r\n--\(boundary.dropLast())x\r\n-\r\n--".utf8) + (0...255).map(UInt8.init) + Array("\r\n\r\n".utf8)

    /// The events of `body` fed in `chunks` of the given sizes (the last one taking the rest), its byte events joined.
    static func read(_ body: [UInt8], chunkSize: Int) throws -> (events: [MultipartReader.Event], finished: Bool) {
        var reader = try #require(MultipartReader(contentType: "multipart/form-data; boundary=\"\(boundary)\""))
        var events: [MultipartReader.Event] = []
        var offset = 0
        while offset < body.count {
            let end = min(body.count, offset + chunkSize)
            for event in try reader.feed(body[offset..<end]) {
                if case .bytes(let more) = event, case .bytes(let before) = events.last {
                    events[events.count - 1] = .bytes(before + more)
                } else {
                    events.append(event)
                }
            }
            offset = end
        }
        return (events, reader.isFinished)
    }

    @Test("Every way the body can be cut into chunks gives the same parts: the token, then the file's bytes exactly, near-boundaries included")
    func everyCut() throws {
        let body = Self.body(file: Self.file)
        let expected: [MultipartReader.Event] = [
            .part(name: "csrf", filename: nil), .bytes(Array("token-123".utf8)), .partEnd,
            .part(name: "archive", filename: "my \"old\" tweets.zip"), .bytes(Self.file), .partEnd,
        ]
        for size in 1...body.count {
            let (events, finished) = try Self.read(body, chunkSize: size)
            #expect(events == expected, "chunks of \(size) bytes")
            #expect(finished, "chunks of \(size) bytes")
        }
    }

    @Test("A body cut short is not finished; one whose parts have no name, headers past 8 KiB, or junk after a boundary is malformed")
    func malformed() throws {
        let body = Self.body(file: Self.file)
        let (_, finished) = try Self.read(Array(body.prefix(body.count - 20)), chunkSize: 50)
        #expect(!finished)

        let nameless = Array("--\(Self.boundary)\r\nContent-Type: text/plain\r\n\r\nx\r\n--\(Self.boundary)--".utf8)
        #expect(throws: MultipartMalformed.self) { _ = try Self.read(nameless, chunkSize: 10) }
        let longHeaders = Array("--\(Self.boundary)\r\nX-Padding: \(String(repeating: "a", count: 9_000))\r\n\r\n".utf8)
        #expect(throws: MultipartMalformed.self) { _ = try Self.read(longHeaders, chunkSize: 1_000) }
        let junk = Array("--\(Self.boundary)junk\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx\r\n--\(Self.boundary)--".utf8)
        #expect(throws: MultipartMalformed.self) { _ = try Self.read(junk, chunkSize: 10) }
    }

    @Test("Only a multipart form with a boundary is read")
    func contentTypes() {
        #expect(MultipartReader(contentType: "application/x-www-form-urlencoded") == nil)
        #expect(MultipartReader(contentType: "multipart/form-data") == nil)
        #expect(MultipartReader(contentType: "multipart/form-data; boundary=") == nil)
        #expect(MultipartReader(contentType: "Multipart/Form-Data; charset=utf-8; boundary=abc") != nil)
    }

    @Test("An upload is kept under the browser's file name, reduced to safe characters; never a path")
    func uploadNames() {
        #expect(FrontDoorServer.uploadName("twitter-2026-11-01.zip") == "twitter-2026-11-01.zip")
        #expect(FrontDoorServer.uploadName("../../etc/passwd") == "passwd")
        #expect(FrontDoorServer.uploadName("C:\\Users\\h\\outbox.json") == "outbox.json")
        #expect(FrontDoorServer.uploadName("..") == "archive")
        #expect(FrontDoorServer.uploadName("ノート.json") == "archive.json")
        #expect(FrontDoorServer.uploadName(nil) == "archive")
    }
}
