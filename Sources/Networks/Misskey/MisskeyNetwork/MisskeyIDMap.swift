import BotCore
public import Foundation
public import MisskeyAPI
public import Stores
import Synchronization

/// What each of the bot's numbers stands for on Misskey (see `MisskeyIDs`): every note and user the network hands
/// the bot is numbered here, kept in memory for the run and in the stores' `network_ids` (when attached), so that a
/// number from the archive, a mention log or a slot is turned back into the instance's id.
public final class MisskeyIDMap: Sendable {
    private let known = Mutex<[Int64: String]>([:])
    private let store = Mutex<(any NetworkIDStore)?>(nil)

    /// An empty map; `attach` gives it its store.
    public init() {}

    /// Keeps what is numbered from now on in `store` too (the daemon's and the commands' stores).
    public func attach(_ store: (any NetworkIDStore)?) { self.store.withLock { $0 = store } }

    /// The number of `note` (kept with the others of its batch by `keep`).
    public func number(of note: MisskeyNote) -> Int64? { MisskeyIDs.number(ofNote: note.id, createdAt: note.createdAt) }

    /// Numbers `ids` (notes with their times, users) and keeps them in memory and in the store; throws what the store
    /// throws.
    public func keep(notes: [(id: String, createdAt: Date)] = [], users: [String] = []) async throws {
        var batch: [Int64: String] = [:]
        for note in notes { if let number = MisskeyIDs.number(ofNote: note.id, createdAt: note.createdAt) { batch[number] = note.id } }
        for user in users { batch[MisskeyIDs.number(ofUser: user)] = "user:" + user }
        let fresh = known.withLock { known in
            let fresh = batch.filter { known[$0.key] == nil }
            known.merge(fresh) { old, _ in old }
            return fresh
        }
        if !fresh.isEmpty, let store = store.withLock({ $0 }) { try await store.remember(fresh) }
    }

    /// The note id `number` stands for: kept in memory, else read from the store; nil when neither knows it.
    public func noteID(of number: String) async throws -> String? {
        guard let value = Int64(number) else { return nil }
        let id = try await lookUp(value)
        return id.flatMap { $0.hasPrefix("user:") ? nil : $0 }
    }

    /// The user id `number` stands for, as `noteID(of:)` does for notes.
    public func userID(of number: String) async throws -> String? {
        guard let value = Int64(number), let id = try await lookUp(value), id.hasPrefix("user:") else { return nil }
        return String(id.dropFirst(5))
    }

    /// The note id `number` stands for when this run knows it (the status page's links, which cannot wait).
    public func knownNoteID(of number: String) -> String? {
        guard let value = Int64(number), let id = known.withLock({ $0[value] }), !id.hasPrefix("user:") else { return nil }
        return id
    }

    private func lookUp(_ number: Int64) async throws -> String? {
        if let id = known.withLock({ $0[number] }) { return id }
        guard let store = store.withLock({ $0 }), let id = try await store.ids(of: [number])[number] else { return nil }
        known.withLock { $0[number] = id }
        return id
    }
}
