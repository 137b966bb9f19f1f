public import BotConfiguration
import Foundation
import RedisClient
import RedisWordCounts
import SQLiteStores
public import Stores
public import WordCounts

/// Chooses where the favorite filter's word counts live for a configuration.
public enum WordCountStores {
    /// Redis when `REDIS_URL` (or `REDISTOGO_URL`) is set, under `REDIS_KEY_PREFIX`; otherwise the embedded SQLite
    /// file `MIRROR_BOT_DATA` (created if needed), through `archive`'s pool when the archive is that same file.
    /// Returns the store and a line saying which it is (no secrets).
    public static func open(
        for storage: StorageSection, sharing archive: (any StoreSet)? = nil,
        busyTimeout: Int = StoreSettings.commandBusyTimeout
    ) throws -> (store: any WordCountBackend, description: String) {
        if let url = storage.redis {
            let tls = url.usesTLS ? (storage.redisTLSCertificateAuthority == nil ? ", TLS not verified" : ", TLS verified by REDIS_TLS_CA") : ""
            if storage.redisCluster {
                let cluster = RedisClusterConnection(seed: url, certificateAuthority: storage.redisTLSCertificateAuthority)
                return (
                    RedisWordCounts(connection: cluster, keyPrefix: storage.redisKeys),
                    "Redis Cluster through \(url.redacted)\(tls), keys under the hash tag \(storage.redisKeys)"
                )
            }
            let connection = RedisConnection(url: url, certificateAuthority: storage.redisTLSCertificateAuthority)
            return (RedisWordCounts(connection: connection, keyPrefix: storage.redisKeys), "Redis at \(url.redacted)\(tls)")
        }
        let path = storage.embeddedDataPath
        let description = "the SQLite file \(path) (REDIS_URL is not set)"
        do {
            // The archive in that same file shares its pool (one pool per file for the whole process).
            if let archive, let shared = try archive.sharedWordCounts(now: { Date() }) { return (shared, description) }
            return (try SQLiteWordCounts(path: path, busyTimeout: busyTimeout), description)
        } catch let error as WordCountsUnavailable {
            throw error
        } catch {
            throw WordCountsUnavailable(store: "the SQLite file \(path) (MIRROR_BOT_DATA)", reason: "\(error)")
        }
    }
}
