public import BotConfiguration
import Foundation
public import Archive
import RedisClient
public import WordCounts

/// Chooses where the favorite filter's word counts live for a configuration.
public enum WordCountBackends {
    /// Redis when `REDIS_URL` (or `REDISTOGO_URL`) is set, under `REDIS_KEY_PREFIX`; otherwise the embedded SQLite
    /// file `MIRROR_BOT_DATA` (created if needed). Returns the store and a line saying which it is (no secrets).
    public static func open(for configuration: Configuration, busyTimeout: Int = ArchiveDatabase.commandBusyTimeout) throws
        -> (store: any WordCountBackend, description: String) {
        if let url = configuration.redis {
            return (WordCountStore(connection: RedisConnection(url: url), keyPrefix: configuration.redisKeyPrefix), "Redis at \(url.redacted)")
        }
        let path = configuration.embeddedDataPath
        do {
            return (try SQLiteWordCounts(path: path, busyTimeout: busyTimeout), "the SQLite file \(path) (REDIS_URL is not set)")
        } catch {
            throw EmbeddedStoreError(path: path, reason: "\(error)")
        }
    }
}

/// The embedded SQLite file cannot be opened or written.
public struct EmbeddedStoreError: Error, CustomStringConvertible {
    /// The file.
    public var path: String
    /// What went wrong.
    public var reason: String
    /// One readable line.
    public var description: String { "Cannot use the SQLite file \(path) (MIRROR_BOT_DATA): \(reason)" }
}
