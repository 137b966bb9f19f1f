public import AsyncHTTPClient
import BotCore
public import ExportFormats
public import Foundation
public import NIOCore
import NIOFoundationCompat

/// Where an export comes from, for `mirror_bot import`: a local path, standard input (`-`), or an `https://`
/// address (a presigned download link: on Heroku a one-off dyno cannot see the user's files). Downloads and standard
/// input are streamed to a temporary file, never held in memory, and what they hold (a zip, or one data file) is
/// told by its first bytes.
public enum ExportSource {
    /// The most bytes a download or standard input may bring (an export with media can be large; this is far past
    /// any export's text).
    public static let defaultMaximumBytes: Int64 = 16 << 30

    /// Runs `body` with a local path to the export `argument` names; a temporary copy (in a folder of its own under
    /// `temporaryDirectory`, named as one of `formats` reads it) is removed afterwards, whether it worked or not.
    public static func withLocalPath<Result>(
        _ argument: String, formats: [any ExportFormat], maximumBytes: Int64 = defaultMaximumBytes, httpClient: HTTPClient = downloadClient,
        temporaryDirectory: URL = FileManager.default.temporaryDirectory,
        _ body: (String) async throws -> Result
    ) async throws -> Result {
        let isDownload = argument.lowercased().hasPrefix("https://") || argument.lowercased().hasPrefix("http://")
        guard isDownload || argument == "-" else { return try await body(argument) }
        let folder = temporaryDirectory.appending(path: "mirror_bot-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let received = folder.appending(path: "received")
        if isDownload {
            try await download(argument, to: received, maximumBytes: maximumBytes, httpClient: httpClient)
        } else {
            try copyStandardInput(to: received, maximumBytes: maximumBytes)
        }
        let named = folder.appending(path: try name(of: received, from: isDownload ? shown(argument) : "standard input", formats: formats))
        try FileManager.default.moveItem(at: received, to: named)
        return try await body(named.path)
    }

    /// The address without its query (a presigned link's signature is a secret) for messages.
    static func shown(_ address: String) -> String {
        String(address.split(separator: "?", maxSplits: 1).first ?? Substring(address))
    }

    /// The most redirects a download follows.
    public static let redirectLimit = 5

    /// How long a download may go without a byte from the server (its answer, or the next part of the body) before it
    /// is given up: a server that accepts and never answers is not waited for until the hour's deadline.
    public static let defaultIdleTimeout = TimeAmount.seconds(60)

    /// The client downloads use: it follows no redirect itself, so that each hop is checked here.
    public static let downloadClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: downloadConfiguration())

    /// The configuration of `downloadClient`: no redirect followed, 30 s to connect, `idleTimeout` between reads.
    public static func downloadConfiguration(idleTimeout: TimeAmount = defaultIdleTimeout) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(30), read: idleTimeout)
        return configuration
    }

    /// Why a download failed, in words: a read timeout says how to go on.
    static func reason(_ error: any Error, what: String) -> String {
        if let error = error as? HTTPClientError, error == .readTimeout {
            return
                "\(what): the server sent nothing for too long (it accepted the connection and stopped answering); try again, or download the archive and import the file"
        }
        return "\(what) (\(error))"
    }

    private static func download(_ address: String, to file: URL, maximumBytes: Int64, httpClient: HTTPClient) async throws {
        let source = shown(address)
        var current = address
        var response: HTTPClientResponse
        var hops = 0
        while true {
            // Every hop, redirects included: https, or plain http to this machine when the link itself was (never a
            // downgrade on the way).
            let secure = current.lowercased().hasPrefix("https://")
            guard secure || (isLoopback(current) && !address.lowercased().hasPrefix("https://")) else {
                throw ImportError(
                    file: source,
                    reason: hops == 0
                        ? "only https:// addresses are downloaded (the archive holds private messages and more)"
                        : "it redirects to \(shown(current)), which is not https:// (the archive holds private messages and more): not followed")
            }
            do {
                response = try await httpClient.execute(HTTPClientRequest(url: current), timeout: .hours(1))
            } catch {
                throw ImportError(file: source, reason: reason(error, what: "it could not be downloaded"))
            }
            guard [301, 302, 303, 307, 308].contains(response.status.code), let location = response.headers.first(name: "location") else { break }
            hops += 1
            guard hops <= redirectLimit else {
                throw ImportError(file: source, reason: "it redirects more than \(redirectLimit) times: not followed further")
            }
            guard let next = URL(string: location, relativeTo: URL(string: current))?.absoluteString else {
                throw ImportError(file: source, reason: "it redirects to an address that is not one")
            }
            current = next
        }
        guard response.status == .ok else {
            throw ImportError(
                file: source,
                reason: "the server answered HTTP \(response.status.code) \(response.status.reasonPhrase) (a presigned link expires: make a new one)")
        }
        if let declared = response.headers.first(name: "content-length").flatMap({ Int64($0) }), declared > maximumBytes {
            throw ImportError(file: source, reason: "it is \(declared) bytes, more than the \(maximumBytes) an export may be")
        }
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)  // a failure is the open below's error
        let output = try FileHandle(forWritingTo: file)
        defer { try? output.close() }
        var written: Int64 = 0
        do {
            for try await chunk in response.body {
                written += Int64(chunk.readableBytes)
                guard written <= maximumBytes else {
                    throw ImportError(file: source, reason: "it is more than the \(maximumBytes) bytes an export may be")
                }
                try output.write(contentsOf: chunk.readableBytesView)
            }
        } catch let error as ImportError {
            throw error
        } catch {
            throw ImportError(file: source, reason: reason(error, what: "the download broke off after \(written) bytes"))
        }
    }

    private static func copyStandardInput(to file: URL, maximumBytes: Int64) throws {
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)  // a failure is the open below's error
        let output = try FileHandle(forWritingTo: file)
        defer { try? output.close() }
        var written: Int64 = 0
        while let chunk = try FileHandle.standardInput.read(upToCount: 1 << 20), !chunk.isEmpty {
            written += Int64(chunk.count)
            guard written <= maximumBytes else {
                throw ImportError(file: "standard input", reason: "it is more than the \(maximumBytes) bytes an export may be")
            }
            try output.write(contentsOf: chunk)
        }
        guard written > 0 else {
            throw ImportError(file: "standard input", reason: "it is empty: pipe the archive in, as in `mirror_bot import - < archive.zip`")
        }
    }

    /// The name that tells the import what `file` holds: a zip, or a data file one of `formats` knows by its first bytes.
    private static func name(of file: URL, from source: String, formats: [any ExportFormat]) throws -> String {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        let head = (try handle.read(upToCount: 1 << 16)) ?? Data()
        if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return "export.zip" }
        if let name = formats.lazy.compactMap({ $0.fileName(forHead: head) }).first { return name }
        throw ImportError(file: source, reason: "it is neither a zip nor an archive's data file (\(ExportFiles.listing(formats)))")
    }

    private static func isLoopback(_ address: String) -> Bool {
        guard let host = URL(string: address)?.host else { return false }
        return LoopbackHost.contains(host)
    }
}
