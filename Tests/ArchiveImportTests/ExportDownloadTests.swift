import ArchiveImport
import AsyncHTTPClient
import Foundation
import NetworkRegistry
import TestSupport
import Testing

/// `mirror_bot import https://…`: a download that stops is given up, and leaves nothing behind.
@Suite("Downloading an export")
struct ExportDownloadTests {
    @Test(
        "A server that accepts and never answers: the download gives up after the idle timeout with a readable error, and leaves no temporary folder (issue 43)"
    )
    func silentServerGivenUp() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let client = HTTPClient(
            eventLoopGroupProvider: .singleton, configuration: ExportSource.downloadConfiguration(idleTimeout: .milliseconds(500)))
        let address = "http://127.0.0.1:\(listener.port)/export.zip"
        do {
            try await Self.expectGivenUp(address, client: client)
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    /// Downloads `address` with `client` into a temporary folder: it must fail saying the server sent nothing for too
    /// long (the idle timeout's error, not the hour's), within the test's bound, and leave the folder empty. How soon is
    /// no assertion: under load the machine's scheduling, not the timeout, decides it.
    static func expectGivenUp(_ address: String, client: HTTPClient) async throws {
        try await TestServers.withTemporaryFolder { folder async throws in
            // Raced against a bound: a download that waits on fails the test in 30 s, saying what it waited for.
            let outcome = try await withThrowingTaskGroup(of: String?.self) { group in
                group.addTask {
                    do {
                        _ = try await ExportSource.withLocalPath(
                            address, formats: NetworkRegistry.exportFormats, httpClient: client, temporaryDirectory: folder
                        ) { _ in }
                        return "downloaded"
                    } catch {
                        return "\(error)"
                    }
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(30))
                    return nil
                }
                let first = try await group.next() ?? nil
                group.cancelAll()
                return first
            }
            let message = try #require(outcome, "the download from a server that never answers was still waiting after 30 s: no idle timeout")
            #expect(message.contains("Cannot import http://127.0.0.1") && message.contains("the server sent nothing for too long"), "\(message)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "a temporary folder was left behind")
        }
    }
}
