public import Foundation
import ZIPFoundation

/// The data files of an X archive ("Download your archive": `data/tweets.js`, `data/like.js`) or a Mastodon archive
/// (`outbox.json`, `likes.json`), read from the `.zip`, its extracted folder, or a single data file.
public struct ExportFiles: Sendable {
    /// One data file: its name (as found, such as `data/tweets-part1.js`) and bytes.
    public struct File: Sendable {
        /// The file's path in the archive or folder.
        public var name: String
        /// Its bytes.
        public var data: Data
    }

    /// `data/tweets.js`, `data/tweets-partN.js` (and the pre-2022 `data/tweet.js`), in order.
    public var tweetFiles: [File]
    /// `data/like.js` and `data/like-partN.js`.
    public var likeFiles: [File]
    /// A Mastodon export's `outbox.json`.
    public var outboxFile: File?
    /// A Mastodon export's `likes.json`.
    public var mastodonLikesFile: File?

    /// Reads the data files at `path`; throws `ImportError` when there is nothing to import.
    public init(path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ImportError(file: path, reason: "there is no such file or folder")
        }
        var files: [File] = []
        if isDirectory.boolValue {
            let root = URL(fileURLWithPath: path)
            let dataFolder = root.appending(path: "data")
            let folder = FileManager.default.fileExists(atPath: dataFolder.path) ? dataFolder : root
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where Self.kind(of: name) != nil {
                let url = folder.appending(path: name)
                files.append(File(name: url.path, data: try Self.read(url)))
            }
        } else if path.lowercased().hasSuffix(".zip") {
            let archive: ZIPFoundation.Archive
            do {
                archive = try ZIPFoundation.Archive(url: URL(fileURLWithPath: path), accessMode: .read)
            } catch {
                throw ImportError(file: path, reason: "it is not a readable zip archive (\(error))")
            }
            for entry in archive where entry.type == .file {
                let name = entry.path
                guard let last = name.split(separator: "/").last, let kind = Self.kind(of: String(last)),
                      name.hasPrefix("data/") || !name.contains("/") || kind == .outbox || kind == .mastodonLikes else { continue }
                var data = Data()
                do {
                    _ = try archive.extract(entry, skipCRC32: false) { data.append($0) }
                } catch {
                    throw ImportError(file: "\(path): \(name)", reason: "it cannot be extracted (\(error))")
                }
                files.append(File(name: "\(path): \(name)", data: data))
            }
        } else {
            guard Self.kind(of: URL(fileURLWithPath: path).lastPathComponent) != nil else {
                throw ImportError(file: path, reason: "expected the archive's .zip, its folder, or a tweets.js / like.js (X) or outbox.json / likes.json (Mastodon) file")
            }
            files.append(File(name: path, data: try Self.read(URL(fileURLWithPath: path))))
        }
        let ordered = files.sorted { Self.order($0.name) < Self.order($1.name) }
        tweetFiles = ordered.filter { Self.kind(of: $0.name) == .tweets }
        likeFiles = ordered.filter { Self.kind(of: $0.name) == .likes }
        // A Mastodon export has one of each, at the top of the zip or folder.
        outboxFile = ordered.filter { Self.kind(of: $0.name) == .outbox }.min { $0.name.count < $1.name.count }
        mastodonLikesFile = ordered.filter { Self.kind(of: $0.name) == .mastodonLikes }.min { $0.name.count < $1.name.count }
        guard !tweetFiles.isEmpty || !likeFiles.isEmpty || outboxFile != nil || mastodonLikesFile != nil else {
            throw ImportError(file: path, reason: "it holds no data/tweets.js, tweets-partN.js, tweet.js or like.js (X), nor outbox.json or likes.json (Mastodon)")
        }
    }

    enum Kind { case tweets, likes, outbox, mastodonLikes }

    /// What a file name holds, or nil for files the import does not read.
    static func kind(of name: String) -> Kind? {
        // A zip entry is named `archive.zip: path/in/zip`; the file's own name is the last part of either.
        let entry = name.components(separatedBy: ": ").last ?? name
        let file = String(entry.split(separator: "/").last ?? Substring(entry))
        if file == "outbox.json" { return .outbox }
        if file == "likes.json" { return .mastodonLikes }
        guard file.hasSuffix(".js") else { return nil }
        let base = String(file.dropLast(3))
        func matches(_ stem: String) -> Bool {
            base == stem || (base.hasPrefix(stem + "-part") && Int(base.dropFirst(stem.count + 5)) != nil)
        }
        if matches("tweets") || matches("tweet") { return .tweets }
        if matches("like") { return .likes }
        return nil
    }

    /// Sorts `tweets.js` before `tweets-part1.js` before `tweets-part2.js` ... (numerically, not by text).
    private static func order(_ name: String) -> (String, Int) {
        let file = String(name.split(separator: "/").last ?? Substring(name)).dropLast(3)
        if let range = file.range(of: "-part"), let number = Int(file[range.upperBound...]) { return (String(file[..<range.lowerBound]), number) }
        return (String(file), 0)
    }

    private static func read(_ url: URL) throws -> Data {
        do { return try Data(contentsOf: url) } catch {
            throw ImportError(file: url.path, reason: "it cannot be read (\((error as NSError).localizedDescription))")
        }
    }
}

/// A file of the archive that cannot be imported, and where.
public struct ImportError: Error, Equatable, CustomStringConvertible {
    /// The file (for zip entries, `archive.zip: data/tweets.js`).
    public var file: String
    /// What is wrong and where in the file.
    public var reason: String
    /// "Cannot import FILE: REASON. Nothing was imported."
    public var description: String { "Cannot import \(file): \(reason). Nothing was imported." }
}
