import Foundation
import GRDB
import PostgresNIO
import PostgresStores
import SQLiteStores
import Stores
import TestSupport
import Testing

@Suite("Which archived posts contain a link")
struct LinkMarkTests {
    static let utc = TimeZone(identifier: "UTC")!
    static let day = Date(timeIntervalSince1970: 1_717_200_000)  // 2024-06-01 00:00 UTC

    @Test("Tweets stored before links were marked are marked when the archive is prepared", arguments: StoreBackends.databases)
    func oldRowsMarked(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let archive = database.archive(timeZone: Self.utc, rowLimit: 100)
            try await archive.prepare()
            let morning = Self.day.addingTimeInterval(8 * 3_600 - 10 * 86_400)
            try await archive.insert([
                ArchivedPost(postID: 1, text: "朝 https://example.com", createdAt: morning),
                ArchivedPost(postID: 2, text: "朝ごはん", createdAt: morning),
            ])
            // As a database migrated from before the mark has it: no mark at all.
            if let postgres = database as? PostgresStoreSet { try await postgres.client.query("UPDATE tweets SET has_link = NULL") }
            if let sqlite = database as? SQLiteStoreSet { try await sqlite.pool.write { try $0.execute(sql: "UPDATE tweets SET has_link = NULL") } }
            try await archive.prepare()
            var generator = SystemRandomNumberGenerator()
            for _ in 0..<10 {
                let pick = try await archive.randomPost(nearMinute: 480, radius: 30, allowingLinks: false, using: &generator)
                #expect(pick?.postID == 2)
            }
        }
    }
}
