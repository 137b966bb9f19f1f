import Foundation
import Testing

/// The direction of dependencies, checked on the source files themselves: a module that imports one it should not
/// (the daemon importing `XAPI` or `RedisClient`, a store's protocol importing its implementation, C outside its one
/// wrapper) fails here, and docs/architecture.md's table names every module of the tree.
@Suite("Architecture: modules import only what they may")
struct ModuleImportTests {
    /// The modules every module may not import, unless listed as allowed for it below: every network's modules (read
    /// from the registry's folders), the C wrappers, the stores' engines and implementations, the outer layer.
    static let restricted: Set<String> = Set(NetworkFolders.networkModules.keys).union([
        "RedisClient", "RedisWordCounts", "CHiredis", "CMeCab", "BotAssembly", "MirrorBotCommands", "DemoReport", "GRDB", "PostgresNIO",
        "Hummingbird",
        "AsyncHTTPClient", "StatusPage", "PostgresStores", "SQLiteStores", "InMemoryStores", "ScriptedNetwork", "HTTPCore", "NetworkRegistry",
        "SignIn", "FakeNetworkRegistry", "FrontDoor",
    ])

    /// What a network's module may import of the restricted ones: the modules of its own folder, the loop every API
    /// client's requests run through (HTTPCore) and its HTTP client, the sign-in commands' kit; a fake, the fakes'
    /// kit (FakeKit: the loopback server, the persona every fake serves in its own shape, the registry's protocol).
    static func allowedInANetwork(_ module: String) -> Set<String> {
        guard let network = NetworkFolders.networkModules[module] else { return [] }
        let own = Set(NetworkFolders.networkModules.filter { $0.value == network }.keys)
        return own.union(["HTTPCore", "AsyncHTTPClient", "Hummingbird", "CCBOR", "SignIn"]).union(
            module.hasPrefix("Fake") ? ["FakeKit"] : [])
    }

    /// What each module outside the networks may import of the restricted ones. A module not listed may import none.
    static let allowed: [String: Set<String>] = [
        // The stores: one module per database, each importing its engine only; the protocols import none.
        "PostgresStores": ["PostgresNIO"],
        "SQLiteStores": ["GRDB"],
        "RedisClient": ["CHiredis"],
        "RedisWordCounts": ["RedisClient"],
        "Tokenizer": ["CMeCab"],
        // The loop every API client's requests run through.
        "HTTPCore": ["AsyncHTTPClient"],
        // What the networks' sign-in commands share: the loopback listener for a browser's return.
        "SignIn": ["HTTPCore"],
        // The registry lists each network's definition; the fakes' registry each network's fake server.
        "NetworkRegistry": Set(NetworkFolders.networkModules.keys.filter { $0.hasSuffix("Network") }),
        "FakeNetworkRegistry": Set(NetworkFolders.networkModules.keys.filter { $0.hasPrefix("Fake") }),
        // The import downloads an export from a link.
        "ArchiveImport": ["AsyncHTTPClient"],
        // The composition root chooses the implementations, the network through the registry.
        "BotAssembly": ["NetworkRegistry", "RedisClient", "RedisWordCounts", "PostgresStores", "SQLiteStores", "StatusPage", "FrontDoor"],
        // The status page serves HTTP; only the composition root starts it.
        "StatusPage": ["Hummingbird"],
        // `auth` lists the registry's sign-in commands.
        "MirrorBotCommands": ["BotAssembly", "RedisClient", "NetworkRegistry", "SignIn", "FrontDoor"],
        // The front door serves HTTP; only `mirror_bot web` starts it.
        "FrontDoor": ["Hummingbird"],
        "mirror_bot": ["MirrorBotCommands"],
        // The demo's tools reach the fakes through their registry.
        "demo-report": ["DemoReport", "BotAssembly", "FakeNetworkRegistry"],
        "fake-x": ["FakeNetworkRegistry"],
    ]

    /// Modules that import nothing of this package at all.
    static let leaves: Set<String> = ["BotCore", "WordCounts", "BotClock", "SeededRandom", "PostText"]

    /// Modules that may import no database library nor any store's implementation: the protocols and what uses them.
    static let storeNeutral: Set<String> = [
        "Stores", "Schedule", "Picking", "Training", "Daemon", "StatusPage", "ArchiveImport", "ExportFormats", "XNetwork",
    ]

    static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Each target of `Package.swift` under `Sources/`, read once: its name, its folder (its `path:`, else
    /// `Sources/<name>`), and the names its `dependencies:` list in quotes.
    static let manifestTargets: [(name: String, folder: String, listed: Set<String>)] = {
        guard let manifest = try? String(contentsOf: root.appending(path: "Package.swift"), encoding: .utf8) else { return [] }
        var targets: [(name: String, folder: String, listed: Set<String>)] = []
        for block in manifest.components(separatedBy: ".target(").dropFirst() + manifest.components(separatedBy: ".executableTarget(").dropFirst()
            + manifest.components(separatedBy: ".systemLibrary(").dropFirst()
        {
            let head = block.components(separatedBy: "\n        ),").first ?? block
            guard let name = head.firstMatch(of: /name: "([^"]+)"/).map({ String($0.1) }) else { continue }
            let folder = head.firstMatch(of: /path: "([^"]+)"/).map { String($0.1) } ?? "Sources/\(name)"
            guard folder.hasPrefix("Sources/") else { continue }
            let listed = head.firstMatch(of: /dependencies: \[((?:.|\n)*?)\]/).map { String($0.1) } ?? ""
            targets.append((name, folder, Set(listed.matches(of: /"([^"]+)"/).map { String($0.1) })))
        }
        return targets
    }()

    /// The targets of `Package.swift` under `Sources/`, by folder.
    static func targetFolders() throws -> [String: String] {
        return Dictionary(manifestTargets.map { ($0.folder, $0.name) }) { first, _ in first }
    }

    /// The modules of `Sources/` (each target's folder), each with the modules its files import.
    static func sourceModules() throws -> [String: Set<String>] {
        var modules: [String: Set<String>] = [:]
        for (path, name) in try targetFolders() {
            let folder = root.appending(path: path)
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

    /// The layers of `Sources/`, bottom first: a target may depend on targets of a lower layer, or of its own folder.
    /// Stores, networks and the test doubles are side by side: none may depend on another.
    static let layers: [String: Int] = ["Core": 0, "Ports": 1, "Stores": 2, "Networks": 2, "Testing": 2, "Mirror": 3, "Runtime": 4, "App": 5]

    /// Each target of `Package.swift` under `Sources/`: its layer folder and the targets of ours it depends on.
    static func targetDependencies() throws -> [String: (layer: String, dependencies: Set<String>)] {
        let ours = Set(manifestTargets.map(\.name))
        var targets: [String: (layer: String, dependencies: Set<String>)] = [:]
        for target in manifestTargets { targets[target.name] = (String(target.folder.split(separator: "/")[1]), target.listed.intersection(ours)) }
        return targets
    }

    /// The dependencies of `targets` that point up or sideways, as "Target (Layer) -> Dependency (Layer)".
    static func upwardDependencies(_ targets: [String: (layer: String, dependencies: Set<String>)]) -> [String] {
        var wrong: [String] = []
        for (name, target) in targets.sorted(by: { $0.key < $1.key }) {
            for dependency in target.dependencies.sorted() {
                guard let below = targets[dependency]?.layer else { continue }
                let rank = layers[target.layer] ?? -1
                let dependencyRank = layers[below] ?? Int.max
                if below != target.layer && dependencyRank >= rank { wrong.append("\(name) (\(target.layer)) -> \(dependency) (\(below))") }
            }
        }
        return wrong
    }

    @Test("Sources/ has at most 8 top-level folders, its layers, and every dependency in Package.swift points down a layer or stays in its folder")
    func dependenciesPointDown() throws {
        let top = try FileManager.default.contentsOfDirectory(atPath: Self.root.appending(path: "Sources").path).filter { !$0.hasPrefix(".") }
        #expect(Set(top) == Set(Self.layers.keys), "\(top.sorted())")
        #expect(top.count <= 8)
        let targets = try Self.targetDependencies()
        #expect(targets.count >= 40, "\(targets.count) targets read from Package.swift")
        #expect(Self.upwardDependencies(targets).isEmpty, "\(Self.upwardDependencies(targets))")
        // The check can fail: the core depending on a port, a network on a store, a store on the daemon.
        var wrong = targets
        wrong["BotCore"]?.dependencies.insert("Stores")
        wrong["XNetwork"]?.dependencies.insert("PostgresStores")
        wrong["SQLiteStores"]?.dependencies.insert("Daemon")
        #expect(
            Self.upwardDependencies(wrong) == [
                "BotCore (Core) -> Stores (Ports)", "SQLiteStores (Stores) -> Daemon (Runtime)",
                "XNetwork (Networks) -> PostgresStores (Stores)",
            ])
    }

    /// Every Swift file of `Sources/`, keyed by its module and its path inside the module's folder
    /// (`BotAssembly/NetworkChoice.swift`), wherever the layers put that folder.
    static func sourceFiles() throws -> [String: URL] {
        var files: [String: URL] = [:]
        for (path, name) in try targetFolders() {
            let folder = root.appending(path: path)
            guard let found = FileManager.default.enumerator(atPath: folder.path) else { continue }
            for case let file as String in found where file.hasSuffix(".swift") { files["\(name)/\(file)"] = folder.appending(path: file) }
        }
        return files
    }

    /// The fakes' modules, which stand in for networks and stores and may decide or build anything.
    static let fakeModules =
        NetworkFolders.networkModules.keys.filter { $0.hasPrefix("Fake") }.map { $0 + "/" } + ["ScriptedNetwork/", "InMemoryStores/", "fake-x/"]

    @Test("Every Swift file under Sources belongs to a target of Package.swift")
    func everyFileHasATarget() throws {
        let folders = try Self.targetFolders().keys
        let sources = Self.root.appending(path: "Sources")
        let files = FileManager.default.enumerator(atPath: sources.path)
        var orphans: [String] = []
        while let file = files?.nextObject() as? String {
            guard file.hasSuffix(".swift") else { continue }
            if !folders.contains(where: { ("Sources/" + file).hasPrefix($0 + "/") }) { orphans.append(file) }
        }
        #expect(orphans.isEmpty, "Swift files in no target's folder: \(orphans)")
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
            let module =
                words.count >= 3 && ["struct", "class", "enum", "protocol", "func", "var", "typealias"].contains(words[1]) ? words[2] : words[1]
            found.insert(String(module.split(separator: ".")[0]))
        }
        return found
    }

    /// The imports of `module` it should not make.
    static func violations(of module: String, imports: Set<String>, modulesOfThePackage: Set<String>) -> [String] {
        var wrong = imports.intersection(restricted).subtracting(allowed[module] ?? []).subtracting(allowedInANetwork(module))
        if leaves.contains(module) { wrong.formUnion(imports.intersection(modulesOfThePackage)) }
        if storeNeutral.contains(module) {
            wrong.formUnion(imports.intersection(["GRDB", "PostgresNIO", "PostgresStores", "SQLiteStores", "InMemoryStores"]))
        }
        return wrong.subtracting([module]).sorted()
    }

    @Test("Every module of Sources imports only what the dependency direction allows")
    func importsFollowTheDirection() throws {
        let modules = try Self.sourceModules()
        #expect(modules.count >= 25, "found \(modules.keys.sorted())")
        for (module, imports) in modules.sorted(by: { $0.key < $1.key }) {
            let wrong = Self.violations(of: module, imports: imports, modulesOfThePackage: Set(modules.keys))
            #expect(wrong.isEmpty, "\(module) imports \(wrong.joined(separator: ", ")), which it should not (see docs/architecture.md)")
        }
    }

    @Test("The check finds a forbidden import: the daemon importing XAPI or RedisClient, a leaf importing the archive")
    func theCheckCanFail() {
        let daemon = Self.imports(in: "import Archive\npublic import XAPI\n@preconcurrency import RedisClient\nimport struct Foundation.Date\n")
        #expect(daemon == ["Archive", "XAPI", "RedisClient", "Foundation"])
        #expect(Self.violations(of: "Daemon", imports: daemon, modulesOfThePackage: ["Archive", "XAPI", "RedisClient"]) == ["RedisClient", "XAPI"])
        #expect(
            Self.violations(of: "WordCounts", imports: ["Archive", "Foundation"], modulesOfThePackage: ["Archive", "WordCounts"]) == ["Archive"])
        #expect(Self.violations(of: "XNetwork", imports: ["XAPI", "SocialNetwork"], modulesOfThePackage: ["XAPI", "SocialNetwork"]).isEmpty)
    }

    /// The table of modules of docs/architecture.md (its section Modules).
    static func architectureTable() throws -> String {
        let page = try String(contentsOf: Self.root.appending(path: "docs/architecture.md"), encoding: .utf8)
        return try #require(page.components(separatedBy: "\n## Modules\n").dropFirst().first?.components(separatedBy: "\n## ").first)
    }

    /// The architecture table: each module with the modules of ours its row says it imports.
    static func readmeImports() throws -> [String: Set<String>] {
        let section = try architectureTable()
        var rows: [String: Set<String>] = [:]
        for line in section.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4 else { continue }
            let name = String(cells[1].dropFirst().prefix { $0 != "`" })
            rows[name] = Set(cells[3].matches(of: /`([^`]+)`/).map { String($0.1) })
        }
        return rows
    }

    @Test("docs/architecture.md's Imports column lists exactly the modules of ours each module imports")
    func readmeImportsMatchTheSources() throws {
        let modules = try Self.sourceModules()
        let ours = Set(modules.keys).union(["CHiredis", "CMeCab"])
        let rows = try Self.readmeImports()
        for (module, imports) in modules.sorted(by: { $0.key < $1.key }) {
            let actual = imports.intersection(ours).subtracting([module])
            guard let listed = rows[module] else { continue }  // a missing row is the next test's finding
            #expect(listed == actual, "docs/architecture.md says \(module) imports \(listed.sorted()); its files import \(actual.sorted())")
        }
    }

    @Test("docs/architecture.md's table names every module of the tree, and no module that is gone")
    func readmeMatchesTheTree() throws {
        let modules = Set(try Self.sourceModules().keys).union(["CHiredis", "CMeCab", "CCBOR"])
        let section = try Self.architectureTable()
        var named = Set<String>()
        for line in section.split(separator: "\n") where line.hasPrefix("| `") {
            named.insert(String(line.dropFirst(3).prefix { $0 != "`" }))
        }
        #expect(modules.subtracting(named).isEmpty, "missing from docs/architecture.md: \(modules.subtracting(named).sorted())")
        #expect(named.subtracting(modules).isEmpty, "in docs/architecture.md but not in Sources/: \(named.subtracting(modules).sorted())")
    }

    /// The modules that may import a network's modules: the networks' own and the registries.
    static var networkNamers: Set<String> {
        Set(NetworkFolders.networkModules.keys).union(["NetworkRegistry", "FakeNetworkRegistry"])
    }

    /// The modules of `modules` (each with its imports) that import a network's module without being allowed to.
    static func namingANetwork(_ modules: [String: Set<String>]) -> [String] {
        modules.filter { !networkNamers.contains($0.key) && !$0.value.isDisjoint(with: NetworkFolders.networkModules.keys) }.keys.sorted()
    }

    @Test(
        "Only the networks' modules, the registry and the modules still listed import a network's module; the others ask the module the assembly chose"
    )
    func networksStayInTheirModules() throws {
        let modules = try Self.sourceModules()
        #expect(Self.namingANetwork(modules).isEmpty, "name a network: \(Self.namingANetwork(modules))")
        // The check can fail: the daemon importing X's module, or the memo network's, would be found.
        #expect(
            Self.namingANetwork(["Daemon": ["XNetwork", "SocialNetwork"], "Picking": ["MemoNetwork"], "XNetwork": ["XAPI"]]) == ["Daemon", "Picking"])
    }

    /// The lines of Sources (outside the fakes) that decide which network `NETWORK` names (a `switch` on it, a
    /// comparison with one of its values, an `if case`), by file.
    static func networkDecisions() throws -> [String: Int] {
        var found: [String: Int] = [:]
        for (file, url) in try Self.sourceFiles() {
            guard !Self.fakeModules.contains(where: file.hasPrefix) else { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            let decisions = text.split(separator: "\n").filter { line in
                line.contains(/switch\s+(\w+\.)?network\b/) || line.contains(/\bnetwork\s*[!=]=\s*\./) || line.contains(/case\s+\.(x|mastodon)\s*=/)
            }
            if !decisions.isEmpty { found[file] = decisions.count }
        }
        return found
    }

    @Test("NETWORK is decided in one place: the assembly's choice among the registry's networks, by their keys, never by a switch on a network")
    func networkDecidedOnce() throws {
        let decisions = try Self.networkDecisions()
        #expect(decisions.isEmpty, "\(decisions)")
        var lookups: [String] = []
        for (file, url) in try Self.sourceFiles() where !Self.fakeModules.contains(where: file.hasPrefix) {
            if try String(contentsOf: url, encoding: .utf8).contains(/\.network\((text|place|key)\)/) { lookups.append(file) }
        }
        #expect(lookups == ["BotAssembly/NetworkChoice.swift"], "\(lookups)")
    }

    /// The parts the composition root alone builds: the daemon's services, the status server, a network opened for
    /// a command or for the daemon, the store set.
    nonisolated(unsafe) static let composedParts =
        /\b(Poster|Replier|Favoriter|Learner|Housekeeper|DeletionWatcher|StatusServer|PostgresStoreSet|SQLiteStoreSet)\(|\.(forDaemon|forCommand)\(/

    /// The files of Sources (outside the fakes) that build one of `composedParts`, by module; `sources` maps a file's
    /// module and path inside it (`Daemon/Poster.swift`) to its text.
    static func composers(in sources: [String: String]) -> Set<String> {
        Set(
            sources.filter { file, text in
                !Self.fakeModules.contains(where: file.hasPrefix)
                    && text.split(separator: "\n").contains { line in
                        let code = line.trimmingCharacters(in: .whitespaces)
                        return !code.hasPrefix("//") && code.contains(composedParts)
                    }
            }.keys.map { String($0.split(separator: "/")[0]) })
    }

    @Test("One composition root: only BotAssembly builds the daemon's services, the status server, the stores and the opened network")
    func oneCompositionRoot() throws {
        var texts: [String: String] = [:]
        for (file, url) in try Self.sourceFiles() { texts[file] = try String(contentsOf: url, encoding: .utf8) }
        #expect(Self.composers(in: texts) == ["BotAssembly"], "build parts: \(Self.composers(in: texts).sorted())")
        // The check can fail: the runner building its poster, or a command opening the network itself, is found.
        #expect(
            Self.composers(in: [
                "Daemon/DaemonRunner.swift": "let poster = Poster(clock: clock)",
                "MirrorBotCommands/TrainCommand.swift": "// module.forCommand(accounts:) is the assembly's\nlet n = module.forCommand(accounts: a)",
            ])
                == ["Daemon", "MirrorBotCommands"])
    }
}
