import Foundation
import NetworkRegistry
import Testing

@testable import ArchiveImport
@testable import ExportFormats

extension StreamingImportTests {
    /// `zip` with each central directory record changed by `patch` (given the record's offset in the bytes and its
    /// order), written to a new file.
    static func patchingCentralRecords(of zip: URL, _ patch: (inout Data, Int, Int) -> Void) throws -> URL {
        var bytes = try Data(contentsOf: zip)
        var search = bytes.startIndex
        var order = 0
        while let found = bytes.range(of: Data([0x50, 0x4B, 0x01, 0x02]), in: search..<bytes.endIndex) {
            patch(&bytes, found.lowerBound, order)
            order += 1
            search = found.upperBound
        }
        let url = FileManager.default.temporaryDirectory.appending(path: "patched-\(UUID().uuidString).zip")
        try bytes.write(to: url)
        return url
    }

    @Test(
        "Entries sharing one block of data under sizes a byte apart are refused before anything is extracted: each must declare what its local header does, and no two may overlap (issue 43: 477 MB were written first)"
    )
    func overlappingEntriesRefusedBeforeExtraction() throws {
        let big =
            "window.YTD.tweets.part1 = [\n"
            + (0..<400).map { ExportFixture.post(1_000 + $0, "猫 \($0)", at: "Sat Aug 12 16:10:37 +0000 2023") }
            .joined(separator: ",\n") + "\n]"
        let single = try ExportFixture.zip(["tweets-part1.js": big])
        defer { try? FileManager.default.removeItem(at: single) }
        let overlapping = try Self.overlapping(single, copies: 3)
        defer { try? FileManager.default.removeItem(at: overlapping) }
        func add(_ value: UInt32, at offset: Int, in bytes: inout Data) {
            let old = UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
            withUnsafeBytes(of: (old &+ value).littleEndian) { bytes.replaceSubrange(offset..<(offset + 4), with: $0) }
        }
        // Each copy declares a byte more than the one before: no two alike by checksum and sizes.
        let apart = try Self.patchingCentralRecords(of: overlapping) { bytes, record, order in add(UInt32(order), at: record + 24, in: &bytes) }
        defer { try? FileManager.default.removeItem(at: apart) }
        let sizes = try #require(throws: ImportError.self) { _ = try ExportFiles(path: apart.path, formats: NetworkRegistry.exportFormats) }
        #expect(sizes.file.hasSuffix("data/tweets-part2.js"), "\(sizes)")
        #expect(sizes.reason.contains("its local header declares") && sizes.reason.contains("damaged or crafted"), "\(sizes)")
        // Sizes as the local header's, checksums told apart: the data still lies over the first entry's.
        let sameSizes = try Self.patchingCentralRecords(of: overlapping) { bytes, record, order in add(UInt32(order), at: record + 16, in: &bytes) }
        defer { try? FileManager.default.removeItem(at: sameSizes) }
        let overlap = try #require(throws: ImportError.self) { _ = try ExportFiles(path: sameSizes.path, formats: NetworkRegistry.exportFormats) }
        #expect(overlap.reason.contains("overlaps that of data/tweets-part") && overlap.reason.contains("damaged or crafted"), "\(overlap)")
        // The zip is otherwise sound: one copy is read.
        let sound = try Self.overlapping(single, copies: 1)
        defer { try? FileManager.default.removeItem(at: sound) }
        #expect(try ExportFiles(path: sound.path, formats: NetworkRegistry.exportFormats).files.count == 1)
    }
}
