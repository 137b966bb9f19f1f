import Foundation
import PackagePlugin

/// Compiles the plain SQL files of the package's `Migrations/` folder (Postgres) and `Migrations/sqlite/` (the
/// embedded SQLite file) into the target that applies them, so the `mirror_bot` binary carries its migrations
/// wherever it is copied (container image, buildpack slug).
@main
struct EmbedMigrations: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let postgresFolder = context.package.directoryURL.appending(path: "Migrations")
        let sqliteFolder = postgresFolder.appending(path: "sqlite")
        let postgresFiles = try Self.sqlFiles(in: postgresFolder)
        let sqliteFiles = try Self.sqlFiles(in: sqliteFolder)
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(postgresFiles.count) Postgres and \(sqliteFiles.count) SQLite migrations into \(target.name)",
                executable: try context.tool(named: "MigrationEmbedder").url,
                arguments: [output.path()] + postgresFiles.map { $0.path() } + ["--sqlite"] + sqliteFiles.map { $0.path() },
                inputFiles: postgresFiles + sqliteFiles,
                outputFiles: [output]
            )
        ]
    }

    private static func sqlFiles(in folder: URL) throws -> [URL] {
        try FileManager.default
            .contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }
}
