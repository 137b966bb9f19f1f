public import BotConfiguration
import Foundation
public import Archive
import RedisClient
import RedisWordCounts
import SQLiteWordCounts
public import WordCounts

/// Chooses where the favorite filter's word counts live for a configuration.
public enum WordCountStores {
    /// Redis when `REDIS_URL` (or `REDISTOGO_URL`) is set, under `REDIS_KEY_PREFIX`; otherwise the embedded SQLite
    /// file `MIRROR_BOT_DATA` (created if needed), through `archive`'s pool when the archive is that same file.
    /// Returns the store and a line saying which it is (no secrets).
    public static func open(for configuration: Configuration, sharing archive: ArchiveDatabase? = nil,
                            busyTimeout: Int = ArchiveDatabase.commandBusyTimeout) throws -> (store: any WordCountBackend, description: String) {
        if let url = configuration.redis {
            let connection = RedisConnection(url: url, certificateAuthority: configuration.redisTLSCertificateAuthority)
            let tls = url.usesTLS ? (configuration.redisTLSCertificateAuthority == nil ? ", TLS not verified" : ", TLS verified by REDIS_TLS_CA") : ""
            return (RedisWordCounts(connection: connection, keyPrefix: configuration.redisKeyPrefix), "Redis at \(url.redacted)\(tls)")
        }
        let path = configuration.embeddedDataPath
        let description = "the SQLite file \(path) (REDIS_URL is not set)"
        do {
            if let archive, let shared = try SQLiteWordCounts(sharing: archive) { return (shared, description) }
            return (try SQLiteWordCounts(path: path, busyTimeout: busyTimeout), description)
        } catch {
            throw WordCountsUnavailable(store: "the SQLite file \(path) (MIRROR_BOT_DATA)", reason: "\(error)")
        }
    }
}
