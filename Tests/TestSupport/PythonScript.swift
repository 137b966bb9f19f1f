public import Foundation

/// The repository's Python validators (`script/*.py`), run with the machine's python3.
public enum PythonScript {
    /// The repository's root folder.
    public static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Runs `script/<name>` with `arguments`; returns its exit status and its output (standard output and error).
    /// Waited for off the concurrency pool (see `OffThePool`): a validator runs for seconds under CI's load.
    public static func run(_ name: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await python([repositoryRoot.appending(path: "script/\(name)").path] + arguments)
    }

    /// Runs the Python `code` with `arguments` (`sys.argv[1...]`); returns its exit status and its output.
    public static func runInline(_ code: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await python(["-c", code] + arguments)
    }

    private static func python(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await OffThePool.run { try pythonBlocking(arguments) }
    }

    private static func pythonBlocking(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        // A validator reads a document and ends in seconds; five minutes is a hang even under CI's load.
        try process.waitUntilExit(within: .seconds(300), "python3 \(arguments.prefix(1).joined()) to end")
        return (process.terminationStatus, text)
    }
}
