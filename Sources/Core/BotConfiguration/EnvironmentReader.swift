import BotCore
public import Foundation

/// Reads the variables of one environment for the sections of the configuration, collecting a
/// `ConfigurationError.Problem` for each malformed one, so that every problem is reported at once.
public struct EnvironmentReader: Sendable {
    /// The variables, as the process (and `.env`) set them.
    public let environment: [String: String]
    /// What was found malformed so far, in the order variables were read.
    public private(set) var problems: [ConfigurationError.Problem] = []

    /// A reader of `environment`.
    public init(environment: [String: String]) { self.environment = environment }

    /// The variable's value without surrounding spaces; nil when unset or empty.
    public func value(_ name: String) -> String? {
        guard let raw = environment[name]?.trimmingSpaces(), !raw.isEmpty else { return nil }
        return raw
    }

    /// Records a problem with a variable.
    public mutating func report(_ problem: ConfigurationError.Problem) { problems.append(problem) }

    /// Records that `name` is malformed (its value shown unless it is secret), and that it must be `expected`. A value
    /// is shown up to its first control character at most: what follows a line end is another variable's.
    public mutating func malformed(_ name: String, expected: String, shown: String?) {
        let firstLine = shown.map { text in
            text.unicodeScalars.firstIndex { $0.properties.generalCategory == .control }.map { String(text[..<$0]) + "…" } ?? text
        }
        report(.init(variable: name, isMissing: false, expected: expected, shownValue: firstLine))
    }

    /// A URL as an error may show it: any user and password (`user:pw@`) and any query or fragment (a token, a
    /// signature) replaced by `***`, as `DatabaseURL.redacted` and `RedisURL.redacted` hide theirs.
    public static func maskedURL(_ text: String) -> String {
        let schemeEnd = text.range(of: "://")?.upperBound ?? text.startIndex
        var rest = text[schemeEnd...]
        var suffix = ""
        if let query = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            suffix = String(rest[query]) + "***"
            rest = rest[..<query]
        }
        if let at = rest.lastIndex(of: "@") { rest = "***" + rest[at...] }
        return String(text[..<schemeEnd]) + rest + suffix
    }

    /// `true`/`1`/`yes` or `false`/`0`/`no`; `defaultValue` when unset.
    public mutating func flag(_ name: String, default defaultValue: Bool = false) -> Bool {
        guard let text = value(name) else { return defaultValue }
        switch text.lowercased() {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default:
            malformed(name, expected: "true or false", shown: text)
            return defaultValue
        }
    }

    /// A whole number above 0 (or 0 when `allowsZero`) of `meaning`, at most `maximum`; `defaultValue` when unset or
    /// malformed.
    public mutating func count(
        _ name: String, default defaultValue: Int, allowsZero: Bool, maximum: Int = 1_000_000,
        meaning: String
    ) -> Int {
        guard let text = value(name) else { return defaultValue }
        guard let number = Int(text), number > 0 || (allowsZero && number == 0), number <= maximum else {
            malformed(
                name,
                expected:
                    "a whole number \(allowsZero ? "from 0" : "from 1") to \(maximum.formatted(.number.grouping(.never))) of \(meaning), such as \(defaultValue)",
                shown: text)
            return defaultValue
        }
        return number
    }

    /// One of `Choice`'s values, case-insensitive; `defaultValue` when unset or malformed.
    public mutating func choice<Choice: RawRepresentable & CaseIterable>(_ name: String, default defaultValue: Choice, expected: String) -> Choice
    where Choice.RawValue == String {
        guard let text = value(name) else { return defaultValue }
        guard let choice = Choice(rawValue: text.lowercased()) else {
            malformed(name, expected: expected, shown: text)
            return defaultValue
        }
        return choice
    }

    /// An API's base URL (see `apiBaseURL(_:)`); `defaultValue` when unset or malformed.
    public mutating func apiBaseURL(_ name: String, default defaultValue: URL, example: String) -> URL {
        guard let text = value(name) else { return defaultValue }
        guard let url = Self.apiBaseURL(text) else {
            malformed(
                name, expected: "an https:// URL such as \(example) (plain http:// only for localhost or 127.0.0.1)", shown: Self.maskedURL(text))
            return defaultValue
        }
        return url
    }

    /// A server as a person types it on a web page (`mastodon.social`, or its address): `apiBaseURL` of it, `https://`
    /// put in front when no scheme is given; nil for an empty or malformed one.
    public static func typedServerURL(_ typed: String) -> URL? {
        let trimmed = typed.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        return apiBaseURL(trimmed.contains("://") ? trimmed : "https://" + trimmed)
    }

    /// An https URL, or an http URL whose host is the loopback interface, with no user and no path (one trailing `/`
    /// allowed); nil otherwise.
    public static func apiBaseURL(_ text: String) -> URL? {
        let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
        guard let parts = URLParts(trimmed), let url = URL(string: trimmed), parts.user == nil, parts.path == nil || parts.path == "" else {
            return nil
        }
        switch parts.scheme {
        case "https": return url
        case "http": return LoopbackHost.contains(parts.host) ? url : nil
        default: return nil
        }
    }
}

/// One section of the configuration: the variables one module reads for itself (storage, the daemon's behaviour, the
/// status page, each network's).
public protocol ConfigurationSection: Sendable {
    /// Every variable the section reads.
    static var variableNames: [String] { get }
    /// Reads the section from `environment`, recording a problem there for each malformed variable (the section then
    /// holds that variable's default).
    init(reading environment: inout EnvironmentReader)
}
