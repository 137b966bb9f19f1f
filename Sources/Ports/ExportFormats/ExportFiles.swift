public import Foundation
import ZIPFoundation

/// The data files of an archive export, found by the formats that read them (each network's folder has its own): from
/// the `.zip`, its extracted folder, or a single data file. A zip's entries are extracted to a temporary folder
/// (removed with this value), never held in memory, each refused when it inflates past what it declared or past
/// `Limits.entryBytes`.
public final class ExportFiles: Sendable {
    /// One data file on disk: its name as found (such as `archive.zip: data/tweets-part1.js`) and where it is.
    public struct File: Sendable {
        /// The file's name in the archive or folder, for errors.
        public var name: String
        /// Its path inside the zip or folder (`data/tweets.js`), or a single file's own name: what formats read.
        public var path: String
        /// Where its bytes are.
        public var url: URL

        /// A file from its parts; `path` is the last part of `name` unless given.
        public init(name: String, path: String? = nil, url: URL) {
            self.name = name
            self.path = path ?? String(name.split(separator: "/").last ?? Substring(name))
            self.url = url
        }

        /// The file's own name, without the folders it is in (`tweets-part1.js`).
        public var fileName: String { String(path.split(separator: "/").last ?? Substring(path)) }
    }

    /// How much an export may hold.
    public struct Limits: Sendable {
        /// The most bytes one zip entry may inflate to (an export's largest file is a few hundred megabytes).
        public var entryBytes: Int64
        /// The most bytes all the data files extracted from one zip may inflate to together.
        public var totalBytes: Int64
        /// The most entries a zip may list (an export with its media lists tens of thousands).
        public var entries: Int
        /// The most data files a zip may hold.
        public var dataFiles: Int
        /// Limits; the defaults take any real export and refuse a zip bomb, however it is built.
        public init(entryBytes: Int64 = 4 << 30, totalBytes: Int64 = 8 << 30, entries: Int = 1_000_000, dataFiles: Int = 1_000) {
            self.entryBytes = entryBytes
            self.totalBytes = totalBytes
            self.entries = entries
            self.dataFiles = dataFiles
        }
    }

    /// The format whose files these are.
    public let format: any ExportFormat
    /// Its data files, in order (`tweets.js` before `tweets-part1.js` before `tweets-part2.js`).
    public let files: [File]
    private let temporaryFolder: URL?

    /// Finds the data files at `path` that one of `formats` reads; throws `ImportError` when there is nothing to import,
    /// when the files are of more than one format, or a zip is not sound.
    public init(path: String, formats: [any ExportFormat], limits: Limits = Limits()) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ImportError(file: path, reason: "there is no such file or folder")
        }
        let read = { (inside: String) in formats.contains { $0.reads(inside) } }
        var files: [File] = []
        var temporary: URL?
        if isDirectory.boolValue {
            let root = URL(fileURLWithPath: path)
            for folder in ["data", ""] {
                let url = folder.isEmpty ? root : root.appending(path: folder)
                for name in (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? [] {
                    let inside = folder.isEmpty ? name : "\(folder)/\(name)"
                    guard read(inside) else { continue }
                    files.append(File(name: url.appending(path: name).path, path: inside, url: url.appending(path: name)))
                }
            }
        } else if Self.isZip(path) {
            let folder = FileManager.default.temporaryDirectory.appending(path: "mirror_bot-import-\(UUID().uuidString)")
            temporary = folder
            do {
                files = try Self.extract(zip: path, into: folder, limits: limits, reading: read)
            } catch {
                try? FileManager.default.removeItem(at: folder)
                throw error
            }
        } else {
            let name = URL(fileURLWithPath: path).lastPathComponent
            guard read(name) else {
                throw ImportError(
                    file: path,
                    reason: path.lowercased().hasSuffix(".zip")
                        ? "it is not a readable zip archive (no zip header)"
                        : "expected the archive's .zip, its folder, or a \(Self.listing(formats)) file")
            }
            files.append(File(name: path, path: name, url: URL(fileURLWithPath: path)))
        }
        let ordered = files.sorted { Self.order($0.path) < Self.order($1.path) }
        let found = formats.filter { format in ordered.contains { format.reads($0.path) } }
        guard let format = found.first, found.count == 1 else {
            if let temporary { try? FileManager.default.removeItem(at: temporary) }
            throw ImportError(
                file: path,
                reason: found.isEmpty
                    ? "it holds no \(Self.listing(formats)) file"
                    : "it holds the files of \(found.count) networks' exports (\(found.map(\.network).joined(separator: ", "))): import each archive on its own"
            )
        }
        self.format = format
        self.files = ordered
        temporaryFolder = temporary
    }

    deinit {
        if let temporaryFolder { try? FileManager.default.removeItem(at: temporaryFolder) }
    }

    /// "tweets.js / like.js (X), outbox.json / likes.json (Mastodon) or .car (Bluesky)": the files `formats` read.
    public static func listing(_ formats: [any ExportFormat]) -> String {
        let each = formats.map { "\($0.fileNames) (\($0.network))" }
        return each.count < 2 ? each.joined() : each.dropLast().joined(separator: ", ") + " or " + (each.last ?? "")
    }

    /// Whether the file at `path` starts as a zip does (`PK\3\4`), whatever it is called.
    static func isZip(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 4)) == Data([0x50, 0x4B, 0x03, 0x04])
    }

    /// Extracts the zip's data files into `folder`, each checked against what it declared and against the limits: an
    /// entry's size, all of them together, how many there are, and entries that share their data (a crafted zip
    /// lists one compressed block under many names, to inflate it many times).
    private static func extract(zip path: String, into folder: URL, limits: Limits, reading read: (String) -> Bool) throws -> [File] {
        let archive: ZIPFoundation.Archive
        do {
            archive = try ZIPFoundation.Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch {
            throw ImportError(file: path, reason: "it is not a readable zip archive (\(error))")
        }
        // What to extract, checked before anything is written.
        var wanted: [(index: Int, entry: Entry, name: String)] = []
        var declaredTotal: Int64 = 0
        var seen: [EntryData: String] = [:]
        for (index, entry) in archive.enumerated() {
            guard index < limits.entries else {
                throw ImportError(file: path, reason: "it lists more than \(limits.entries) entries: not an export")
            }
            guard entry.type == .file else { continue }
            let name = entry.path
            guard read(name) else { continue }
            let shown = "\(path): \(name)"
            let declared = Int64(clamping: entry.uncompressedSize)
            guard declared <= limits.entryBytes else {
                throw ImportError(file: shown, reason: "it declares \(declared) bytes, more than the \(limits.entryBytes) an export's file may hold")
            }
            declaredTotal += declared
            guard declaredTotal <= limits.totalBytes else {
                throw ImportError(file: shown, reason: "the export's data files declare more than \(limits.totalBytes) bytes together")
            }
            guard wanted.count < limits.dataFiles else {
                throw ImportError(file: shown, reason: "the export holds more than \(limits.dataFiles) data files")
            }
            let data = EntryData(checksum: entry.checksum, compressedSize: entry.compressedSize, uncompressedSize: entry.uncompressedSize)
            if declared > 0, let first = seen[data] {
                throw ImportError(file: shown, reason: "it holds the same data as \(first): the zip is damaged or crafted")
            }
            seen[data] = name
            wanted.append((index, entry, name))
        }
        try ZipLayout.check(zip: path, wanted: wanted.map { ($0.index, $0.entry, $0.name) })
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var files: [File] = []
        var writtenTotal: Int64 = 0
        for (index, entry, name) in wanted {
            let last = name.split(separator: "/").last.map(String.init) ?? name
            let shown = "\(path): \(name)"
            let declared = Int64(clamping: entry.uncompressedSize)
            let target = folder.appending(path: "\(index)-\(last)")
            _ = FileManager.default.createFile(atPath: target.path, contents: nil)  // a failure is the open below's error
            guard let output = FileHandle(forWritingAtPath: target.path) else {
                throw ImportError(file: shown, reason: "it cannot be extracted to \(folder.path)")
            }
            defer { try? output.close() }
            var written: Int64 = 0
            do {
                _ = try archive.extract(entry, skipCRC32: false) { chunk in
                    written += Int64(chunk.count)
                    writtenTotal += Int64(chunk.count)
                    guard written <= declared, written <= limits.entryBytes, writtenTotal <= limits.totalBytes else { throw ZipEntryOverflow() }
                    try output.write(contentsOf: chunk)
                }
            } catch is ZipEntryOverflow {
                throw ImportError(
                    file: shown, reason: "it inflates past the \(min(declared, limits.entryBytes)) bytes it declared: the zip is damaged or crafted")
            } catch let error as ImportError {
                throw error
            } catch {
                throw ImportError(file: shown, reason: "it cannot be extracted (\(error))")
            }
            files.append(File(name: shown, path: name, url: target))
        }
        return files
    }

    /// What identifies an entry's data: two entries alike in all three share it.
    private struct EntryData: Hashable {
        var checksum: CRC32
        var compressedSize: UInt64
        var uncompressedSize: UInt64
    }

    /// Sorts `tweets.js` before `tweets-part1.js` before `tweets-part2.js` ... (numerically, not by text), then files
    /// at the top before those in folders.
    private static func order(_ path: String) -> (String, Int, Int) {
        let last = String(path.split(separator: "/").last ?? Substring(path))
        let file = last.split(separator: ".").first.map(String.init) ?? last
        let depth = path.split(separator: "/").count
        if let range = file.range(of: "-part"), let number = Int(file[range.upperBound...]) {
            return (String(file[..<range.lowerBound]), number, depth)
        }
        return (file, 0, depth)
    }
}

/// An entry that wrote more than it declared or than the limit.
private struct ZipEntryOverflow: Error {}

/// A file of the archive that cannot be imported, and where.
public struct ImportError: Error, Equatable, CustomStringConvertible {
    /// The file (for zip entries, `archive.zip: data/tweets.js`).
    public var file: String
    /// What is wrong and where in the file.
    public var reason: String
    /// "Cannot import FILE: REASON. Nothing was imported.", on one line: control characters from the file (a name or
    /// a value quoted in the reason) are shown escaped.
    public var description: String { Self.oneLine("Cannot import \(file): \(reason). Nothing was imported.") }

    /// The error for `file`, saying `reason`.
    public init(file: String, reason: String) {
        self.file = file
        self.reason = reason
    }

    /// `text` with its control characters escaped (`\n`, `\u{1B}`).
    static func oneLine(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}" {
                result.append(contentsOf: scalar.escaped(asASCII: true).unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }
}
