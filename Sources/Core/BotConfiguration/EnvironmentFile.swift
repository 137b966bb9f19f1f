import Foundation

/// A `.env` file in the `heroku local` convention: `KEY=value` lines, `#` comments, optional `export`,
/// values optionally in single quotes (verbatim) or double quotes (with `\n`, `\r`, `\t`, `\"` and `\\` escapes).
public struct EnvironmentFile: Sendable, Equatable {
    /// The variables the file sets, in file order (a later line wins).
    public var variables: [String: String]

    /// A line that is not `KEY=value`.
    public struct SyntaxError: Error, Equatable, CustomStringConvertible {
        /// The file's path as given.
        public var path: String
        /// 1-based line number.
        public var line: Int
        /// What is wrong.
        public var reason: String
        /// "PATH:LINE: reason".
        public var description: String { "\(path):\(line): \(reason); lines must look like KEY=value." }
    }

    /// Parses a file's text; `path` only names the file in errors.
    public init(parsing text: String, path: String = ".env") throws {
        variables = [:]
        for (index, rawLine) in Self.lines(of: text).enumerated() {
            var line = rawLine.drop { $0 == " " || $0 == "\t" }
            if line.hasSuffix("\r") { line = line.dropLast() }
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("export ") { line = line.dropFirst("export ".count).drop { $0 == " " } }
            guard let equals = line.firstIndex(of: "=") else {
                throw SyntaxError(path: path, line: index + 1, reason: "no '=' in this line")
            }
            let key = String(line[..<equals]).trimmingSpaces()
            guard !key.isEmpty, key.allSatisfy({ $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }) else {
                // The text is not quoted: a line that is no assignment may be a piece of a secret.
                throw SyntaxError(path: path, line: index + 1, reason: "what comes before '=' is not a variable name (ASCII letters, digits and _)")
            }
            let rawValue = String(line[line.index(after: equals)...]).trimmingSpaces()
            guard let value = Self.unquoted(rawValue) else {
                throw SyntaxError(path: path, line: index + 1, reason: "the value's quotes are not closed")
            }
            variables[key] = value
        }
    }

    /// The lines of `text`, split at LF, CRLF (one character in Swift, so splitting at "\n" alone misses it) and a lone
    /// CR (an old Mac editor's: read as one line, its error quoted the next line's secret).
    static func lines(of text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
    }

    /// The value with quotes removed and escapes applied; nil when a quote is left open.
    private static func unquoted(_ value: String) -> String? {
        // By Unicode scalars: a quote followed by a combining mark is one Character, yet still a quote.
        let scalars = value.unicodeScalars
        guard let first = scalars.first, first == "\"" || first == "'" else {
            // An unquoted value ends at a comment that follows whitespace.
            if let comment = value.range(of: " #") { return String(value[..<comment.lowerBound]).trimmingSpaces() }
            return value
        }
        guard scalars.count >= 2, scalars.last == first else { return nil }
        let inner = scalars.dropFirst().dropLast()
        if first == "'" { return String(String.UnicodeScalarView(inner)) }
        var result = String.UnicodeScalarView()
        var escaping = false
        for scalar in inner {
            if escaping {
                switch scalar {
                case "n": result.append("\n")
                case "r": result.append("\r")
                case "t": result.append("\t")
                default: result.append(scalar)
                }
                escaping = false
            } else if scalar == "\\" {
                escaping = true
            } else {
                result.append(scalar)
            }
        }
        if escaping { return nil }  // a closing quote escaped: the quotes are not closed
        return String(result)
    }
}

extension String {
    func trimmingSpaces() -> String {
        String(self.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

extension EnvironmentFile {
    /// `text` (a `.env` file's) with `values` set: each variable's existing line replaced in place, the others
    /// appended; every other line (comments, other variables) kept as it was. Values are double-quoted, with `\`,
    /// `"`, line feeds, carriage returns and tabs escaped, when they hold anything but letters, digits and `-_.`: any
    /// value reads back as it was written.
    public static func setting(_ values: [(String, String)], in text: String) -> String {
        var lines = text.isEmpty ? [] : Self.lines(of: text).map(String.init)
        if lines.last == "" { lines.removeLast() }
        for (name, value) in values {
            let quoted =
                !value.isEmpty && value.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) } ? value : Self.quoted(value)
            let line = "\(name)=\(quoted)"
            let index = lines.firstIndex { existing in
                var trimmed = existing.drop { $0 == " " || $0 == "\t" }
                if trimmed.hasPrefix("export ") { trimmed = trimmed.dropFirst("export ".count).drop { $0 == " " } }
                return trimmed.hasPrefix(name + "=") || trimmed.hasPrefix(name + " =")
            }
            if let index { lines[index] = line } else { lines.append(line) }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `value` in double quotes, escaped as the parser reads it back.
    static func quoted(_ value: String) -> String {
        var result = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

extension EnvironmentFile {
    /// The process environment over the `.env` file's variables at `path` (if it exists): a variable set in the real
    /// environment wins over the file.
    public static func processEnvironment(under path: String? = ".env") throws -> [String: String] {
        var file: EnvironmentFile?
        if let path, FileManager.default.fileExists(atPath: path) {
            file = try EnvironmentFile(parsing: try String(contentsOfFile: path, encoding: .utf8), path: path)
        }
        return merged(environment: ProcessInfo.processInfo.environment, file: file)
    }

    /// The variables of `environment` over those of `file`: a variable set in the real environment wins.
    public static func merged(environment: [String: String], file: EnvironmentFile?) -> [String: String] {
        (file?.variables ?? [:]).merging(environment) { _, real in real }
    }
}

extension EnvironmentFile {
    /// A secret file that could not be written as one.
    public struct SecretFileError: Error, CustomStringConvertible {
        /// The file.
        public var path: String
        /// What failed (the system's words).
        public var reason: String
        /// One line.
        public var description: String { "Could not write \(path) readable by you only (\(reason)); nothing was changed." }
    }

    /// Writes `text` to `path` readable and writable by the owner only from its first byte: a new file beside it,
    /// created with mode 0600, written whole and flushed, then renamed over `path` (the old file, if any, stays whole
    /// until then). Throws `SecretFileError` when any step fails; a half-written file is removed.
    public static func writeSecret(_ text: String, toFile path: String) throws {
        let temporary = path + ".mirror_bot-\(getpid())-\(UInt32.random(in: .min ... .max))"
        func failure(_ step: String) -> SecretFileError { SecretFileError(path: path, reason: "\(step): \(String(cString: strerror(errno)))") }
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("creating it") }
        var written = 0
        let bytes = Array(text.utf8)
        var failed: SecretFileError?
        while written < bytes.count, failed == nil {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 { failed = failure("writing it") } else { written += count }
        }
        if failed == nil, fsync(descriptor) != 0 { failed = failure("flushing it") }
        if close(descriptor) != 0, failed == nil { failed = failure("closing it") }
        if failed == nil, rename(temporary, path) != 0 { failed = failure("putting it in place") }
        if let failed {
            unlink(temporary)
            throw failed
        }
    }
}
