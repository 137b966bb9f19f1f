import Foundation

/// This process's memory as Linux reports it in `/proc/self/status`, for the closing summary and the benchmarks.
public struct ProcessMemory: Sendable, Equatable {
    /// Resident memory now, in bytes (`VmRSS`).
    public var resident: Int
    /// The most resident memory so far, in bytes (`VmHWM`).
    public var peak: Int
    /// Of the resident memory, what the process allocated (`RssAnon`), in bytes.
    public var anonymous: Int
    /// Of the resident memory, mapped files: the program, its libraries, the MeCab dictionary (`RssFile`), in bytes.
    public var files: Int

    /// The current figures; nil where `/proc` is not available (not Linux).
    public static func current() -> ProcessMemory? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        return parse(status)
    }

    /// The figures of a `/proc/PID/status` text; nil when they are missing.
    static func parse(_ status: String) -> ProcessMemory? {
        func kilobytes(_ field: String) -> Int? {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return nil }
            return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }
        }
        guard let resident = kilobytes("VmRSS"), let peak = kilobytes("VmHWM") else { return nil }
        return ProcessMemory(
            resident: resident * 1024, peak: peak * 1024, anonymous: (kilobytes("RssAnon") ?? 0) * 1024,
            files: (kilobytes("RssFile") ?? 0) * 1024)
    }

    /// "23.4 MiB resident: 15.0 MiB allocated, 8.4 MiB mapped files (peak 30.1 MiB)".
    public var description: String {
        func mebibytes(_ bytes: Int) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
        return "\(mebibytes(resident)) resident: \(mebibytes(anonymous)) allocated, \(mebibytes(files)) mapped files (peak \(mebibytes(peak)))"
    }
}
