import Archive
import ServiceLifecycle

/// The archive's database as a service of the group: runs the Postgres pool (nothing to run for SQLite) until the
/// group shuts down; it is the first service, so it stops after the others have finished with it.
struct ArchiveDatabaseService: Service {
    let database: ArchiveDatabase

    func run() async throws {
        try? await cancelWhenGracefulShutdown { await database.run() }
    }
}
