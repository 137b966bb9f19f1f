public import Foundation
import ZIPFoundation

/// The data files of an X archive ("Download your archive": `data/tweets.js`, `data/like.js`), a Mastodon archive
/// (`outbox.json`, `likes.json`) or a Bluesky repository export (a `.car` file), from the `.zip`, its extracted folder,
/// or a single data file. A zip's entries are
/// extracted to a temporary folder (removed with this value), never held in memory, each refused when it inflates
/// past what it declared or past `Limits.entryBytes`.
public final class ExportFiles: Sendable {
    /// One data file on disk: its name as found (such as `archive.zip: data/tweets-part1.js`) and where it is.
    public struct File: Sendable {
        /// The file's name in the archive or folder, for errors.
        public var name: String
        /// Where its bytes are.
        public var url: URL
    }

    /// How much an export may hold.
    public struct Limits: Sendable {
        /// The most bytes one zip entry may inflate to (an export's largest file is a few hundred megabytes).
        public var entryBytes: Int64
        /// The most bytes all the data files extracted from one zip may inflate to together.
        public var totalBytes: Int64
        /// The most entries a zip may list (an X export with its media lists tens of thousands).
        public var entries: Int
        /// The most data files (`tweets-partN.js`, `like.js`, `outbox.json`, ...) a zip may hold.
        public var dataFiles: Int
        /// Limits; the defaults take any real export and refuse a zip bomb, however it is built.
        public init(entryBytes: Int64 = 4 << 30, totalBytes: Int64 = 8 << 30, entries: Int = 1_000_000, dataFiles: Int = 1_000) {
            self.entryBytes = entryBytes
            self.totalBytes = totalBytes
            self.entries = entries
            self.dataFiles = dataFiles
        }
    }

    /// `data/tweets.js`, `data/tweets-partN.js` (and the pre-2022 `data/tweet.js`), in order.
    public let tweetFiles: [File]
    /// `data/like.js` and `data/like-partN.js`.
    public let likeFiles: [File]
    /// An X archive's `data/account.js`: whose archive it is.
    public let accountFile: File?
    /// A Mastodon export's `outbox.json`.
    public let outboxFile: File?
    /// A Mastodon export's `likes.json`.
    public let mastodonLikesFile: File?
    /// A Bluesky repository export (`*.car`).
    public let repositoryFile: File?
    /// A Misskey notes export (`notes-<date>.json`).
    public let misskeyNotesFile: File?
    private let temporaryFolder: URL?

    /// Finds the data files at `path`; throws `ImportError` when there is nothing to import or a zip is not sound.
    public init(path: String, limits: Limits = Limits()) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ImportError(file: path, reason: "there is no such file or folder")
        }
        var files: [File] = []
        var temporary: URL?
        if isDirectory.boolValue {
            let root = URL(fileURLWithPath: path)
            for folder in [root.appending(path: "data"), root] {
                for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where Self.kind(of: name) != nil {
                    files.append(File(name: folder.appending(path: name).path, url: folder.appending(path: name)))
                }
            }
        } else if Self.isZip(path) {
            let folder = FileManager.default.temporaryDirectory.appending(path: "mirror_bot-import-\(UUID().uuidString)")
            temporary = folder
            do {
                files = try Self.extract(zip: path, into: folder, limits: limits)
            } catch {
                try? FileManager.default.removeItem(at: folder)
                throw error
            }
        } else {
            guard Self.kind(of: URL(fileURLWithPath: path).lastPathComponent) != nil else {
                throw ImportError(
                    file: path,
                    reason: path.lowercased().hasSuffix(".zip")
                        ? "it is not a readable zip archive (no zip header)"
                        : "expected the archive's .zip, its folder, or a tweets.js / like.js (X), outbox.json / likes.json (Mastodon), .car (Bluesky) or notes-<date>.json (Misskey) file"
                )
            }
            files.append(File(name: path, url: URL(fileURLWithPath: path)))
        }
        temporaryFolder = temporary
        let ordered = files.sorted { Self.order($0.name) < Self.order($1.name) }
        tweetFiles = ordered.filter { Self.kind(of: $0.name) == .tweets }
        likeFiles = ordered.filter { Self.kind(of: $0.name) == .likes }
        accountFile = ordered.filter { Self.kind(of: $0.name) == .xAccount }.min { $0.name.count < $1.name.count }
        // A Mastodon export has one of each, at the top of the zip or folder.
        outboxFile = ordered.filter { Self.kind(of: $0.name) == .outbox }.min { $0.name.count < $1.name.count }
        mastodonLikesFile = ordered.filter { Self.kind(of: $0.name) == .mastodonLikes }.min { $0.name.count < $1.name.count }
        repositoryFile = ordered.first { Self.kind(of: $0.name) == .blueskyRepository }
        misskeyNotesFile = ordered.last { Self.kind(of: $0.name) == .misskeyNotes }
        guard
            !tweetFiles.isEmpty || !likeFiles.isEmpty || outboxFile != nil || mastodonLikesFile != nil || repositoryFile != nil
                || misskeyNotesFile != nil
        else {
            if let temporary { try? FileManager.default.removeItem(at: temporary) }
            throw ImportError(
                file: path,
                reason:
                    "it holds no data/tweets.js, tweets-partN.js, tweet.js or like.js (X), nor outbox.json or likes.json (Mastodon), nor a .car (Bluesky), nor a notes-<date>.json (Misskey)"
            )
        }
    }

    deinit {
        if let temporaryFolder { try? FileManager.default.removeItem(at: temporaryFolder) }
    }

    enum Kind { case tweets, likes, xAccount, outbox, mastodonLikes, blueskyRepository, misskeyNotes }

    /// What a file name holds, or nil for files the import does not read.
    static func kind(of name: String) -> Kind? {
        // A zip entry is named `archive.zip: path/in/zip`; the file's own name is the last part of either.
        let entry = name.components(separatedBy: ": ").last ?? name
        let file = String(entry.split(separator: "/").last ?? Substring(entry))
        if file == "outbox.json" { return .outbox }
        if file == "likes.json" { return .mastodonLikes }
        if file.lowercased().hasSuffix(".car") { return .blueskyRepository }
        // Misskey names its export `notes-2026-11-22-09-00-00.json`.
        if file.hasPrefix("notes") && file.hasSuffix(".json") { return .misskeyNotes }
        guard file.hasSuffix(".js") else { return nil }
        let base = String(file.dropLast(3))
        func matches(_ stem: String) -> Bool {
            base == stem || (base.hasPrefix(stem + "-part") && Int(base.dropFirst(stem.count + 5)) != nil)
        }
        if matches("tweets") || matches("tweet") { return .tweets }
        if matches("like") { return .likes }
        if base == "account" { return .xAccount }
        return nil
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
    private static func extract(zip path: String, into folder: URL, limits: Limits) throws -> [File] {
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
            guard let last = name.split(separator: "/").last, let kind = Self.kind(of: String(last)),
                name.hasPrefix("data/") || !name.contains("/") || kind == .outbox || kind == .mastodonLikes
            else { continue }
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
            files.append(File(name: shown, url: target))
        }
        return files
    }

    /// What identifies an entry's data: two entries alike in all three share it.
    private struct EntryData: Hashable {
        var checksum: CRC32
        var compressedSize: UInt64
        var uncompressedSize: UInt64
    }

    /// Sorts `tweets.js` before `tweets-part1.js` before `tweets-part2.js` ... (numerically, not by text).
    private static func order(_ name: String) -> (String, Int) {
        let entry = name.components(separatedBy: ": ").last ?? name
        let file = String(entry.split(separator: "/").last ?? Substring(entry)).split(separator: ".").first.map(String.init) ?? entry
        if let range = file.range(of: "-part"), let number = Int(file[range.upperBound...]) { return (String(file[..<range.lowerBound]), number) }
        return (file, 0)
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
