import Foundation
import Testing

/// The README is short and points into `docs/`, a page per topic; every link between them leads somewhere.
@Suite("The README and docs/")
struct DocumentationTests {
    static let root = ModuleImportTests.root
    /// The README's largest size: read in five minutes; the rest lives in docs/.
    static let readmeLimit = 25_000

    /// The Markdown files a reader follows links through: the README and every page of docs/.
    static func pages() throws -> [String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appending(path: "docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return ["README.md"] + docs
    }

    /// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens.
    static func anchor(of heading: String) -> String {
        String(heading.lowercased().filter { $0.isLetter || $0.isNumber || $0 == " " || $0 == "-" || $0 == "_" })
            .replacingOccurrences(of: " ", with: "-")
    }

    /// The anchors of `text`'s headings.
    static func anchors(in text: String) -> Set<String> {
        var found = Set<String>()
        var inCode = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inCode.toggle() }
            guard !inCode, let match = line.wholeMatch(of: /#{1,6} (.+)/) else { continue }
            found.insert(anchor(of: String(match.1)))
        }
        return found
    }

    /// The links of the page at `path` (relative to the root) that lead nowhere: a missing file, or a heading its
    /// target does not have. `read` gives a file's text, nil when it does not exist.
    static func brokenLinks(of path: String, text: String, read: (String) -> String?) -> [String] {
        let folder = (path as NSString).deletingLastPathComponent
        var broken: [String] = []
        for match in text.matches(of: /\]\(([^)\s]+)\)/) {
            let target = String(match.1)
            guard !target.contains("://"), !target.hasPrefix("mailto:") else { continue }
            let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let file = parts[0].isEmpty ? path : normalized((folder as NSString).appendingPathComponent(parts[0]))
            guard let linked = read(file) else {
                broken.append("\(target): no file \(file)")
                continue
            }
            if parts.count == 2, file.hasSuffix(".md"), !anchors(in: linked).contains(parts[1]) {
                broken.append("\(target): no heading #\(parts[1]) in \(file)")
            }
        }
        return broken
    }

    /// `path` (relative to the root) with its `.` and `..` resolved.
    static func normalized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") where part != "." {
            if part == "..", let last = parts.last, last != ".." { parts.removeLast() } else { parts.append(part) }
        }
        return parts.joined(separator: "/")
    }

    static func read(_ path: String) -> String? {
        let url = root.appending(path: path)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else { return nil }
        return isFolder.boolValue ? "" : (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }

    @Test("The README is at most 25 KB and links to every page of docs/")
    func readmeIsShort() throws {
        let readme = try #require(Self.read("README.md"))
        #expect(readme.utf8.count <= Self.readmeLimit, "README.md is \(readme.utf8.count) bytes")
        for page in try Self.pages().dropFirst() {
            #expect(readme.contains("](\(page))") || readme.contains("](\(page)#"), "README.md does not link to \(page)")
        }
    }

    @Test("Every link of the README and docs/ leads to a file that exists, and to a heading it has")
    func linksLeadSomewhere() throws {
        for page in try Self.pages() {
            let text = try #require(Self.read(page))
            let broken = Self.brokenLinks(of: page, text: text, read: Self.read)
            #expect(broken.isEmpty, "\(page): \(broken)")
        }
    }

    @Test("The link check finds a missing page, a missing heading and a path that climbs wrongly; it accepts good ones")
    func theCheckCanFail() {
        let files = ["docs/x.md": "# X\n\n## Costs of the X API\n```\n# not a heading\n```\n", "Package.swift": "// swift-tools-version"]
        let text =
            "[a](x.md#costs-of-the-x-api) [b](x.md#not-a-heading) [c](y.md) [d](../Package.swift) [e](Package.swift) [f](#x) [g](https://example.com/z)"
        let broken = Self.brokenLinks(of: "docs/fleet.md", text: text) { files[$0] ?? ($0 == "docs/fleet.md" ? "# Fleet" : nil) }
        #expect(
            broken == [
                "x.md#not-a-heading: no heading #not-a-heading in docs/x.md", "y.md: no file docs/y.md",
                "Package.swift: no file docs/Package.swift", "#x: no heading #x in docs/fleet.md",
            ])
        #expect(Self.anchor(of: "A day of likes like the person's") == "a-day-of-likes-like-the-persons")
        #expect(Self.anchor(of: "The status page (`PORT`)") == "the-status-page-port")
    }
}
