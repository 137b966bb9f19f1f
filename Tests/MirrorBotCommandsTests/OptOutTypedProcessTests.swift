import Foundation
import TestSupport
import Testing

@Suite("optout add: the bot's network says whether what was typed is one of its ids")
struct OptOutTypedProcessTests {
    /// `optout list --json` as (account_id, handle) pairs.
    static func listed(_ environment: [String: String]) async throws -> [[String?]] {
        let run = try await MirrorBotProcess.run(["optout", "list", "--json"], environment: environment)
        #expect(run.status == 0, "\(run.standardError)")
        let rows = try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [[String: Any]] ?? []
        return rows.map { [$0["account_id"] as? String, $0["handle"] as? String] }
    }

    @Test(
        "Each network's ids are filed as ids, anything else and anything with @ in front as a handle",
        arguments: [
            // (NETWORK, typed, expected id, expected handle)
            ("misskey", "9xu1001", "9xu1001", nil), ("misskey", "a1b2c3d4e5f6g7h8", "a1b2c3d4e5f6g7h8", nil),
            ("misskey", "@hanako1990", nil, "hanako1990"), ("misskey", "hanako_mirror", nil, "hanako_mirror"),
            ("bluesky", "did:plc:abc123xyz", "did:plc:abc123xyz", nil), ("bluesky", "bob.bsky.social", nil, "bob.bsky.social"),
            ("mastodon", "109999", "109999", nil), ("mastodon", "9xu1001", nil, "9xu1001"), ("x", "did:plc:abc", nil, "did:plc:abc"),
        ] as [(String, String, String?, String?)])
    func typed(network: String, typed: String, id: String?, handle: String?) async throws {
        try await TestServers.withTemporaryFolder { folder in
            let environment = ["MIRROR_BOT_DATA": folder.appending(path: "bot.sqlite").path, "NETWORK": network]
            let add = try await MirrorBotProcess.run(["optout", "add", typed], environment: environment)
            #expect(add.status == 0, "\(add.standardError)")
            #expect(add.standardOutput.contains("is on the opt-out list"), "\(add.standardOutput)")
            #expect(try await Self.listed(environment) == [[id, handle]])
            // Removed by what was typed.
            let remove = try await MirrorBotProcess.run(["optout", "remove", typed], environment: environment)
            #expect(remove.status == 0, "\(remove.standardError)")
            #expect(try await Self.listed(environment).isEmpty)
        }
    }
}
