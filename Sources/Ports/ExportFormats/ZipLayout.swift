import Foundation
import ZIPFoundation

/// Where a zip's entries lie, read from its central directory and local headers (ZIPFoundation keeps both to itself):
/// before anything is extracted, each wanted entry's local header must declare the sizes the central directory does
/// (unless it defers them to a data descriptor), and no two entries' data may overlap. A crafted zip lists one block
/// of data under many names with sizes a byte apart, which the check by checksum and sizes lets through; each then
/// inflated to its full size (477 MB written before the refusal).
enum ZipLayout {
    /// One central directory record: where its local header is, and the sizes it declares.
    struct Record {
        var localHeaderOffset: UInt64
        var compressedSize: UInt64
        var uncompressedSize: UInt64
    }

    /// Throws `ImportError` when an entry of `wanted` (by its index in the central directory) has a local header that
    /// disagrees with the central directory on its sizes, or lies over another's data.
    static func check(zip path: String, wanted: [(index: Int, entry: Entry, name: String)]) throws {
        guard !wanted.isEmpty else { return }
        let data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        func refused(_ name: String, _ reason: String) -> ImportError { ImportError(file: "\(path): \(name)", reason: reason) }
        let records = try centralDirectory(of: data, path: path)
        var spans: [(start: UInt64, end: UInt64, name: String)] = []
        for (index, entry, name) in wanted {
            guard index < records.count else {
                throw refused(name, "it is not in the zip's central directory as listed: the zip is damaged or crafted")
            }
            let record = records[index]
            guard record.compressedSize == entry.compressedSize, record.uncompressedSize == entry.uncompressedSize else {
                throw refused(name, "its central directory record cannot be read alike twice: the zip is damaged or crafted")
            }
            let offset = record.localHeaderOffset
            guard offset <= UInt64(data.count), UInt64(data.count) - offset >= 30, data.u32(at: Int(offset)) == 0x0403_4B50 else {
                throw refused(name, "its local header is not where the central directory says: the zip is damaged or crafted")
            }
            let header = Int(offset)
            let flags = data.u16(at: header + 6)
            let (localCompressed, localUncompressed) = (UInt64(data.u32(at: header + 18)), UInt64(data.u32(at: header + 22)))
            let usesDescriptor = flags & (1 << 3) != 0
            let zip64 = localCompressed == 0xFFFF_FFFF || localUncompressed == 0xFFFF_FFFF
            if !usesDescriptor && !zip64 && (localCompressed != record.compressedSize || localUncompressed != record.uncompressedSize) {
                throw refused(
                    name,
                    "its local header declares \(localUncompressed) bytes (\(localCompressed) compressed), the central directory \(record.uncompressedSize) (\(record.compressedSize)): the zip is damaged or crafted"
                )
            }
            let start = offset
            let end = offset + 30 + UInt64(data.u16(at: header + 26)) + UInt64(data.u16(at: header + 28)) + record.compressedSize
            spans.append((start, end, name))
        }
        let ordered = spans.sorted { $0.start < $1.start }
        for (previous, next) in zip(ordered, ordered.dropFirst()) where next.start < previous.end {
            throw refused(next.name, "its data overlaps that of \(previous.name): the zip is damaged or crafted")
        }
    }

    /// The central directory's records, in order.
    static func centralDirectory(of data: Data, path: String) throws -> [Record] {
        let damaged = ImportError(file: path, reason: "its central directory cannot be read: the zip is damaged or crafted")
        // The end record: the last signature within the last 64 KiB and 22 bytes (its comment may hold up to 65,535).
        let searchStart = max(0, data.count - 22 - 65_535)
        guard data.count >= 22, let end = (searchStart...(data.count - 22)).reversed().first(where: { data.u32(at: $0) == 0x0605_4B50 }) else {
            throw damaged
        }
        var count = UInt64(data.u16(at: end + 10))
        var start = UInt64(data.u32(at: end + 16))
        if count == 0xFFFF || start == 0xFFFF_FFFF {
            // Zip64: its locator stands just before the end record, and points at the zip64 end record.
            let locator = end - 20
            guard locator >= 0, data.u32(at: locator) == 0x0706_4B50 else { throw damaged }
            let record = data.u64(at: locator + 8)
            guard data.count >= 56, record <= UInt64(data.count - 56), data.u32(at: Int(record)) == 0x0606_4B50 else { throw damaged }
            count = data.u64(at: Int(record) + 32)
            start = data.u64(at: Int(record) + 48)
        }
        var records: [Record] = []
        var position = start
        for _ in 0..<count {
            guard position <= UInt64(data.count), UInt64(data.count) - position >= 46, data.u32(at: Int(position)) == 0x0201_4B50 else {
                throw damaged
            }
            let at = Int(position)
            var record = Record(
                localHeaderOffset: UInt64(data.u32(at: at + 42)), compressedSize: UInt64(data.u32(at: at + 20)),
                uncompressedSize: UInt64(data.u32(at: at + 24)))
            let (nameLength, extraLength, commentLength) = (Int(data.u16(at: at + 28)), Int(data.u16(at: at + 30)), Int(data.u16(at: at + 32)))
            guard data.count - at - 46 >= nameLength + extraLength + commentLength else { throw damaged }
            // Zip64 extra field (0x0001): the 8-byte values, in this order, of the fields saturated above.
            var extra = at + 46 + nameLength
            let extraEnd = extra + extraLength
            while extra + 4 <= extraEnd {
                let (tag, size) = (data.u16(at: extra), Int(data.u16(at: extra + 2)))
                guard extra + 4 + size <= extraEnd else { break }
                if tag == 0x0001 {
                    var field = extra + 4
                    func next() -> UInt64? {
                        guard field + 8 <= extra + 4 + size else { return nil }
                        defer { field += 8 }
                        return data.u64(at: field)
                    }
                    if record.uncompressedSize == 0xFFFF_FFFF { record.uncompressedSize = next() ?? record.uncompressedSize }
                    if record.compressedSize == 0xFFFF_FFFF { record.compressedSize = next() ?? record.compressedSize }
                    if record.localHeaderOffset == 0xFFFF_FFFF { record.localHeaderOffset = next() ?? record.localHeaderOffset }
                }
                extra += 4 + size
            }
            records.append(record)
            position += UInt64(46 + nameLength + extraLength + commentLength)
        }
        return records
    }
}

extension Data {
    /// The little-endian integer at `offset` (from the data's start).
    fileprivate func u16(at offset: Int) -> UInt16 { UInt16(self[startIndex + offset]) | UInt16(self[startIndex + offset + 1]) << 8 }
    fileprivate func u32(at offset: Int) -> UInt32 { UInt32(u16(at: offset)) | UInt32(u16(at: offset + 2)) << 16 }
    fileprivate func u64(at offset: Int) -> UInt64 { UInt64(u32(at: offset)) | UInt64(u32(at: offset + 4)) << 32 }
}
