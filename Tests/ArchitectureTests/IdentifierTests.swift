import Foundation
import Testing

/// Posts and accounts carry the network's own ids (`PostID`, `AccountID`) through the ports, the stores, the pickers
/// and the daemon: none is a 64-bit number there, so no network's ids have to be folded into one.
@Suite("Ids through the core")
struct IdentifierTests {
    /// The layers an id passes through on its way from a network module to a table and back.
    static let folders = ["Sources/Ports", "Sources/Stores", "Sources/Mirror", "Sources/Runtime", "Sources/Testing/InMemoryStores"]

    /// A declaration of a post's or an account's id (`postID: Int64`, `authorIDs: [Int64]`, `excluded: Set<Int64>` of
    /// posts) typed as a number.
    static var numericID: Regex<(Substring, Substring, Substring?)> {
        #/\b\w*([Pp]ost|[Uu]ser|[Aa]uthor|[Mm]ention|[Cc]onversation|[Aa]ccount|[Rr]eply|[Ss]ource)IDs?\??\s*:\s*(\[|Set<)?U?Int64/#
    }

    @Test("No post or account id is declared as a number in the ports, the stores, the mirror's logic or the daemon")
    func noNumericIDs() throws {
        var found: [String] = []
        for folder in Self.folders {
            let root = ModuleImportTests.root.appending(path: folder)
            guard let files = FileManager.default.enumerator(atPath: root.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: root.appending(path: file), encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                where line.firstMatch(of: Self.numericID) != nil {
                    found.append("\(folder)/\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(found.isEmpty, "ids declared as numbers:\n\(found.joined(separator: "\n"))")
    }

    @Test("The check sees what it checks: a numeric id in any of its forms is found, a row's own sequence number is not")
    func patternFindsNumericIDs() {
        for line in [
            "    public var postID: Int64", "func answers(to authorID: Int64, since date: Date)", "var sourcePostIDs: [Int64]",
            "let mentionID: Int64?", "replyUserID: Set<Int64>",
        ] {
            #expect(line.firstMatch(of: Self.numericID) != nil, "\(line)")
        }
        for line in ["    public var sequence: Int64?", "public var fence: Int64", "let postID: PostID", "authorID: AccountID?"] {
            #expect(line.firstMatch(of: Self.numericID) == nil, "\(line)")
        }
    }
}
