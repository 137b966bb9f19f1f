import Foundation
import PackagePlugin

/// Compiles the plain SQL files of the package's `Migrations/` folder into the target that applies them,
/// so the `mirror_bot` binary carries its migrations wherever it is copied (container image, buildpack slug).
@main
struct EmbedMigrations: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let migrationsFolder = context.package.directoryURL.appending(path: "Migrations")
        let sqlFiles = try FileManager.default
            .contentsOfDirectory(at: migrationsFolder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(sqlFiles.count) migrations into \(target.name)",
                executable: try context.tool(named: "MigrationEmbedder").url,
                arguments: [output.path()] + sqlFiles.map { $0.path() },
                inputFiles: sqlFiles,
                outputFiles: [output]
            )
        ]
    }
}
