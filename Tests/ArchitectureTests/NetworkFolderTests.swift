import FakeNetworkRegistry
import Foundation
import MemoNetwork
import NetworkRegistry
import SocialNetwork
import Testing

/// The networks as the registry lists them, and their folders: the architecture's checks take the networks from
/// here, so that a network added is checked without a list to keep up.
enum NetworkFolders {
    /// The program's networks and the memo network the tests register beside them.
    static let registered: [any NetworkDefinition] = NetworkRegistry.networks + [memoDefinition]

    /// The folders of `Sources/Networks` that are no network: what the networks share (the HTTP loop, the sign-in
    /// commands' kit, the fakes' kit), and the registry.
    static let sharedFolders: Set<String> = ["HTTPCore", "Registry", "SignIn", "FakeKit"]

    /// Each module of a network's folder (`Sources/Networks/<name>/…`), with the network's name.
    static let networkModules: [String: String] = {
        let folders = (try? ModuleImportTests.targetFolders()) ?? [:]
        var modules: [String: String] = [:]
        for network in registered {
            for (path, module) in folders where path.hasPrefix("Sources/Networks/\(network.name)/") { modules[module] = network.name }
        }
        return modules
    }()

    /// The words that name `network` in code: its name in any case, alone or starting a name (`isMastodon`,
    /// `MastodonOutbox`; X's as a capital word or starting a name, `XSnowflake`, not a header's `X-` nor `XMLParser`),
    /// its key in quotes, and its modules.
    static func names(of network: any NetworkDefinition) -> Regex<Substring> {
        let modules = networkModules.filter { $0.value == network.name }.keys.sorted()
        let name =
            network.name.count < 3 ? "\\b\(network.name)\\b(?![-\"])|\\b\(network.name)(?=[A-Z][a-z])" : "(?i:\(network.name))(?![a-z])"
        let key = network.key.count < 3 ? [] : ["\"\(network.key)\""]
        let pattern = ([name] + key + modules.map { "\\b\($0)\\b" }).joined(separator: "|")
        return (try? Regex(pattern).wordBoundaryKind(.default)).map { $0 } ?? /$^/
    }

    /// The files of Sources outside `Sources/Networks` whose code (comments left out) names one of `networks`, as
    /// their path under Sources.
    static func filesNaming(_ networks: [any NetworkDefinition]) throws -> Set<String> {
        let sources = ModuleImportTests.root.appending(path: "Sources")
        let patterns = networks.map(names(of:))
        var found = Set<String>()
        guard let files = FileManager.default.enumerator(atPath: sources.path) else { return [] }
        for case let file as String in files where file.hasSuffix(".swift") && !file.hasPrefix("Networks/") {
            let text = try String(contentsOf: sources.appending(path: file), encoding: .utf8)
            let code = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
            if code.contains(where: { line in patterns.contains { line.contains($0) } }) { found.insert(file) }
        }
        return found
    }
}

@Suite("Architecture: a network is a folder and a line of the registry")
struct NetworkFolderTests {
    @Test("Every registered network has its folder under Sources/Networks with its modules, and every folder there is a registered network or shared")
    func everyNetworkIsAFolder() throws {
        let networks = ModuleImportTests.root.appending(path: "Sources/Networks")
        let folders = Set(try FileManager.default.contentsOfDirectory(atPath: networks.path).filter { !$0.hasPrefix(".") })
        let names = Set(NetworkFolders.registered.map(\.name))
        #expect(folders == names.union(NetworkFolders.sharedFolders), "folders \(folders.sorted()), registered \(names.sorted())")
        for name in names { #expect(NetworkFolders.networkModules.values.contains(name), "\(name) has no module in its folder") }
        #expect(Set(NetworkRegistry.networks.map(\.key)) == ["x", "mastodon", "bluesky", "misskey"])
        #expect(NetworkRegistry.networks.first?.key == "x", "X is the default, as the original's")
    }

    @Test("The memo network, added by its folder, the tests' registry line and Package.swift, is named by no file of Sources outside its folder")
    func memoIsNamedNowhereElse() throws {
        let naming = try NetworkFolders.filesNaming([memoDefinition])
        #expect(naming.isEmpty, "\(naming.sorted())")
        // The check can fail: a line of code naming the network is found, a comment is not.
        let pattern = NetworkFolders.names(of: memoDefinition)
        #expect("let network = MemoMirrorNetwork(world: w)".contains(pattern))
        #expect("case \"memo\": break".contains(pattern))
        #expect(!"let memory = InMemoryStores()".contains(pattern))
        #expect("import XNetwork".contains(NetworkFolders.names(of: NetworkRegistry.networks[0])))
        #expect("billed on X, once a day".contains(NetworkFolders.names(of: NetworkRegistry.networks[0])))
        #expect(!"digits.first == \"X\"; let h = \"X-Forwarded-For\"".contains(NetworkFolders.names(of: NetworkRegistry.networks[0])))
        #expect(!"let x = 1; let maxPosts = 2".contains(NetworkFolders.names(of: NetworkRegistry.networks[0])))
        #expect("XSnowflake.date(of: id)".contains(NetworkFolders.names(of: NetworkRegistry.networks[0])))
        #expect(!"XMLParser(data: d); XCTAssert".contains(NetworkFolders.names(of: NetworkRegistry.networks[0])))
    }

    @Test("No file outside Sources/Networks names a network in code (Misskey's arrival named it in 24)")
    func noFileOutsideNamesANetwork() throws {
        let naming = try NetworkFolders.filesNaming(NetworkRegistry.networks)
        #expect(naming.isEmpty, "name a network outside its folder: \(naming.sorted())")
    }

    @Test("Each network with a fake server has its line in the fakes' registry, in the registry's order, and no other")
    func fakesFollowTheRegistry() {
        let keys = NetworkRegistry.networks.map(\.key)
        let fakes = FakeNetworkRegistry.fakes.map(\.key)
        #expect(fakes == keys.filter(fakes.contains), "fakes \(fakes), networks \(keys)")
        #expect(Set(fakes) == Set(keys), "every network of the program has its fake: \(Set(keys).subtracting(fakes).sorted())")
        #expect(FakeNetworkRegistry.fakes.map(\.name) == NetworkRegistry.networks.map(\.name))
    }
}
