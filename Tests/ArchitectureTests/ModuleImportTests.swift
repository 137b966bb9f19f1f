import Foundation
import Testing

/// The direction of dependencies, checked on the source files themselves: a module that imports one it should not
/// (the daemon importing `XAPI` or `RedisClient`, a store's protocol importing its implementation, C outside its one
/// wrapper) fails here, and the README's architecture table names every module of the tree.
@Suite("Architecture: modules import only what they may")
struct ModuleImportTests {
    /// The modules every module may not import, unless listed as allowed for it below.
    static let restricted: Set<String> = [
        "XAPI", "XNetwork", "FakeX", "MastodonAPI", "MastodonNetwork", "FakeMastodon", "RedisClient", "RedisWordCounts", "SQLiteWordCounts", "CHiredis", "CMeCab", "BotAssembly",
        "MirrorBotCommands", "DemoReport", "GRDB", "PostgresNIO", "Hummingbird", "AsyncHTTPClient", "StatusPage",
    ]

    /// What each module may import of the restricted ones. A module not listed may import none of them.
    static let allowed: [String: Set<String>] = [
        // The stores: the archive speaks both dialects; each word-count store its own engine.
        "Archive": ["GRDB", "PostgresNIO"],
        "RedisClient": ["CHiredis"],
        "RedisWordCounts": ["RedisClient"],
        "SQLiteWordCounts": ["GRDB"],
        "Tokenizer": ["CMeCab"],
        // X: the client, its place behind the network protocol, and its fake.
        "XAPI": ["AsyncHTTPClient"],
        // The import downloads an export from a link.
        "ArchiveImport": ["AsyncHTTPClient"],
        "XNetwork": ["XAPI"],
        "FakeX": ["XAPI", "Hummingbird"],
        // Mastodon likewise; its fake shares fake X's JSON writer.
        "MastodonAPI": ["AsyncHTTPClient"],
        "MastodonNetwork": ["MastodonAPI"],
        "FakeMastodon": ["MastodonAPI", "FakeX", "Hummingbird"],
        // The composition root chooses the implementations; the commands and the demo are the outer layer.
        "BotAssembly": ["XAPI", "XNetwork", "MastodonAPI", "MastodonNetwork", "RedisClient", "RedisWordCounts", "SQLiteWordCounts", "StatusPage"],
        // The status page serves HTTP; only the composition root starts it.
        "StatusPage": ["Hummingbird"],
        "MirrorBotCommands": ["BotAssembly", "XAPI", "XNetwork", "MastodonAPI", "RedisClient"],
        "mirror_bot": ["MirrorBotCommands"],
        "DemoReport": ["FakeX", "XAPI"],
        "demo-report": ["DemoReport", "FakeX"],
        "fake-x": ["FakeX", "FakeMastodon"],
    ]

    /// Modules that import nothing of this package at all.
    static let leaves: Set<String> = ["WordCounts", "BotClock", "SeededRandom", "PostText", "BotConfiguration"]

    static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The modules of `Sources/` (folders holding Swift files), each with the modules its files import.
    static func sourceModules() throws -> [String: Set<String>] {
        let sources = root.appending(path: "Sources")
        var modules: [String: Set<String>] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: sources.path) {
            let folder = sources.appending(path: name)
            guard let files = FileManager.default.enumerator(atPath: folder.path) else { continue }
            var imports = Set<String>()
            var hasSwift = false
            for case let file as String in files where file.hasSuffix(".swift") {
                hasSwift = true
                imports.formUnion(Self.imports(in: try String(contentsOf: folder.appending(path: file), encoding: .utf8)))
            }
            if hasSwift { modules[name] = imports }
        }
        return modules
    }

    /// The modules `source` imports (`import X`, `public import X`, `@preconcurrency import X`, `import struct X.Y`).
    static func imports(in source: String) -> Set<String> {
        var found = Set<String>()
        for line in source.split(separator: "\n") {
            var words = line.split(separator: " ").map(String.init)
            while let first = words.first, first.hasPrefix("@") || ["public", "internal", "package", "private", "fileprivate"].contains(first) {
                words.removeFirst()
            }
            guard words.first == "import", words.count >= 2 else { continue }
            let module = words.count >= 3 && ["struct", "class", "enum", "protocol", "func", "var", "typealias"].contains(words[1]) ? words[2] : words[1]
            found.insert(String(module.split(separator: ".")[0]))
        }
        return found
    }

    /// The imports of `module` it should not make.
    static func violations(of module: String, imports: Set<String>, modulesOfThePackage: Set<String>) -> [String] {
        var wrong = imports.intersection(restricted).subtracting(allowed[module] ?? [])
        if leaves.contains(module) { wrong.formUnion(imports.intersection(modulesOfThePackage)) }
        return wrong.subtracting([module]).sorted()
    }

    @Test("Every module of Sources imports only what the dependency direction allows")
    func importsFollowTheDirection() throws {
        let modules = try Self.sourceModules()
        #expect(modules.count >= 25, "found \(modules.keys.sorted())")
        for (module, imports) in modules.sorted(by: { $0.key < $1.key }) {
            let wrong = Self.violations(of: module, imports: imports, modulesOfThePackage: Set(modules.keys))
            #expect(wrong.isEmpty, "\(module) imports \(wrong.joined(separator: ", ")), which it should not (see the README's Architecture)")
        }
    }

    @Test("The check finds a forbidden import: the daemon importing XAPI or RedisClient, a leaf importing the archive")
    func theCheckCanFail() {
        let daemon = Self.imports(in: "import Archive\npublic import XAPI\n@preconcurrency import RedisClient\nimport struct Foundation.Date\n")
        #expect(daemon == ["Archive", "XAPI", "RedisClient", "Foundation"])
        #expect(Self.violations(of: "Daemon", imports: daemon, modulesOfThePackage: ["Archive", "XAPI", "RedisClient"]) == ["RedisClient", "XAPI"])
        #expect(Self.violations(of: "WordCounts", imports: ["Archive", "Foundation"], modulesOfThePackage: ["Archive", "WordCounts"]) == ["Archive"])
        #expect(Self.violations(of: "XNetwork", imports: ["XAPI", "SocialNetwork"], modulesOfThePackage: ["XAPI", "SocialNetwork"]).isEmpty)
    }

    @Test("The README's architecture table names every module of the tree, and no module that is gone")
    func readmeMatchesTheTree() throws {
        let modules = Set(try Self.sourceModules().keys).union(["CHiredis", "CMeCab"])
        let readme = try String(contentsOf: Self.root.appending(path: "README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "\n## Architecture\n").dropFirst().first?.components(separatedBy: "\n## ").first)
        var named = Set<String>()
        for line in section.split(separator: "\n") where line.hasPrefix("| `") {
            named.insert(String(line.dropFirst(3).prefix { $0 != "`" }))
        }
        #expect(modules.subtracting(named).isEmpty, "missing from the README's Architecture: \(modules.subtracting(named).sorted())")
        #expect(named.subtracting(modules).isEmpty, "in the README's Architecture but not in Sources/: \(named.subtracting(modules).sorted())")
    }
}
