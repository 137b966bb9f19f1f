import Foundation
import Logging
import Stores
import Synchronization

/// The daemon's lease on the SQLite file: an exclusive `flock` on `<file>.lock` (the kernel lets it go when the process
/// ends), its holder written in that file.
final class SQLiteLease: DaemonLease {
    let holder: LeaseHolder
    private let descriptor: Mutex<Int32?>

    private init(descriptor: Int32, holder: LeaseHolder) {
        self.descriptor = Mutex(descriptor)
        self.holder = holder
    }

    deinit { release(take()) }

    private func take() -> Int32? {
        descriptor.withLock { held in
            defer { held = nil }
            return held
        }
    }

    private func release(_ descriptor: Int32?) {
        guard let descriptor else { return }
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// Takes the lease of the file `database` holds, or throws `LeaseHeld` naming who holds it.
    static func acquire(on database: SQLiteStoreSet) throws -> SQLiteLease {
        let holder = LeaseHolder.thisProcess()
        let lockPath = database.path + ".lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw ArchiveError(operation: "taking the daemon's lease", reason: "\(lockPath) cannot be opened (\(String(cString: strerror(errno))))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let text = (try? String(contentsOfFile: lockPath, encoding: .utf8)) ?? ""
            close(descriptor)
            throw LeaseHeld(holder: LeaseHolder(json: text), store: database.location)
        }
        let data = Data(holder.json.utf8)
        _ = ftruncate(descriptor, 0)
        _ = data.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, data.count, 0) }
        return SQLiteLease(descriptor: descriptor, holder: holder)
    }

    /// A lock on a file holds as long as the process does.
    func isHeld(logger: Logger) async -> Bool { descriptor.withLock { $0 != nil } }

    func release() async { release(take()) }
}
