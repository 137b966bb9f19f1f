import BotAssembly
import BotConfiguration
import Foundation
import TestSupport
import Testing
import Training
import XNetwork

/// The deploy files at the repository's root: Procfile, app.json, Aptfile, .swift-version, Dockerfile, heroku.yml.
@Suite("Deploy files")
struct DeployFilesTests {
    static let root = PythonScript.repositoryRoot

    static func text(_ name: String) throws -> String { try String(contentsOf: root.appending(path: name), encoding: .utf8) }

    static func appJSON() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: root.appending(path: "app.json"))) as? [String: Any])
    }

    /// Runs script/validate-app-json.py (jsonschema from PyPI) on `file`; returns its exit status and output.
    static func validate(_ file: URL) async throws -> (Int32, String) {
        let schema = try #require(Bundle.module.url(forResource: "Resources/heroku-app-json.schema", withExtension: "json"))
        return try await PythonScript.run("validate-app-json.py", [schema.path, file.path])
    }

    @Test("app.json validates against Heroku's app.json schema; a broken copy does not")
    func appJSONValidates() async throws {
        let (status, output) = try await Self.validate(Self.root.appending(path: "app.json"))
        #expect(status == 0, "\(output)")
        #expect(output.contains("app.json is valid"))

        var broken = try Self.appJSON()
        broken["formation"] = ["bot": ["size": "huge"]]
        let file = FileManager.default.temporaryDirectory.appending(path: "app-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: broken).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let (brokenStatus, brokenOutput) = try await Self.validate(file)
        #expect(brokenStatus != 0)
        #expect(brokenOutput.contains("formation/bot"), "\(brokenOutput)")
    }

    @Test("app.json declares exactly the variables the code reads, the eight credentials required, the deploy's defaults")
    func appJSONVariables() throws {
        let app = try Self.appJSON()
        let env = try #require(app["env"] as? [String: [String: Any]])
        // And the one the build reads (the Swift buildpack's SWIFT_BUILD_FLAGS), not the bot.
        // PORT and DYNO are Heroku's to set (for a web dyno, on every dyno), never the user's.
        #expect(Set(env.keys) == Set(Configuration.variableNames).subtracting(["PORT", "DYNO"]).union(["SWIFT_BUILD_FLAGS"]))
        #expect(env.values.allSatisfy { ($0["description"] as? String)?.isEmpty == false })
        let credentials = env.filter {
            ($0.key.hasPrefix("HUMAN_") || $0.key.hasPrefix("BOT_")) && !$0.key.contains("MASTODON") && !$0.key.contains("BLUESKY")
                && !$0.key.contains("MISSKEY") && $0.key != "HUMAN_NETWORK"
        }
        #expect(credentials.count == 8 && credentials.values.allSatisfy { $0["required"] as? Bool == true })
        // NETWORK defaults to X: the Mastodon, Bluesky and Misskey accounts are asked for only by those who choose them.
        let mastodon = env.filter { $0.key.contains("_MASTODON_") }
        #expect(mastodon.count == 4 && mastodon.values.allSatisfy { $0["required"] as? Bool == false })
        let bluesky = env.filter { $0.key.contains("BLUESKY_") }
        #expect(bluesky.count == 7 && bluesky.values.allSatisfy { $0["required"] as? Bool == false })
        let misskey = env.filter { $0.key.contains("MISSKEY_") }
        #expect(
            misskey.count == 5 && misskey.values.allSatisfy { $0["required"] as? Bool == false }
                && env["MISSKEY_LIKE_REACTION"]?["value"] as? String == "❤")
        #expect(env["NETWORK"]?["value"] as? String == "x" && env["POST_VISIBILITY"]?["value"] as? String == "unlisted")
        #expect(env["FAVORITE_RATE_THRESHOLD"]?["value"] as? String == "auto")
        #expect(env["CLASSIFIER"]?["value"] as? String == "auto")
        #expect(env["DATABASE_URL"]?["required"] as? Bool == false)  // the add-on sets it
        let addons = (app["addons"] as? [[String: Any]] ?? []).compactMap { $0["plan"] as? String }
        #expect(addons.contains { $0.hasPrefix("heroku-postgresql") } && addons.contains { $0.hasPrefix("heroku-redis") })
        let formation = try #require(app["formation"] as? [String: [String: Any]])
        #expect(Array(formation.keys) == ["bot"] && formation["bot"]?["quantity"] as? Int == 1)
        let buildpacks = (app["buildpacks"] as? [[String: String]] ?? []).compactMap { $0["url"] }
        #expect(buildpacks.count == 2 && buildpacks.first == "heroku-community/apt")
        let scripts = try #require(app["scripts"] as? [String: String])
        #expect(scripts["postdeploy"] == "mirror_bot migrate && mirror_bot train scheduler --max-posts 900 && mirror_bot train classifier")
        #expect(env["LIKES"]?["value"] as? String == "auto")
        // The buildpack route: only the command is built, and the dictionary bin/post_compile makes is where MeCab looks.
        #expect(env["SWIFT_BUILD_FLAGS"]?["value"] as? String == "--product mirror_bot --force-resolved-versions")
        #expect(try Self.text("bin/pre_compile").contains("cp deploy/package-pins.json Package.resolved"))
        #expect(env["MECAB_DICDIR"]?["value"] as? String == "/app/.mecab/ipadic-utf8")
        #expect(
            try Self.text("bin/post_compile").contains(
                #""$BUILD_DIR/script/build-mecab-dictionary" "$BUILD_DIR/.apt" "$BUILD_DIR/.mecab/ipadic-utf8""#))
        #expect(env["X_DAILY_BUDGET"]?["value"] as? String == "1.00")
        // Empty: the network's default (false on X, where a link costs 13 times a plain post; true on Mastodon).
        #expect(env["POST_LINKS"]?["value"] as? String == "")
        #expect(try Configuration(environment: ["POST_LINKS": ""]).postLinks == false)
        #expect(try Configuration(environment: ["POST_LINKS": "", "NETWORK": "mastodon"]).postLinks == true)
    }

    @Test("The postdeploy step spends at most what docs/deploying.md says, within the default budget, so it runs without a terminal")
    func postdeploySpend() throws {
        let postdeploy = try #require((try Self.appJSON()["scripts"] as? [String: String])?["postdeploy"])
        let maxPosts = try #require(postdeploy.firstMatch(of: /train scheduler --max-posts (\d+)/).flatMap { Int($0.1) })
        let most = XMirrorNetwork.mostItCosts(.personsPosts(maxPosts)).dollars
        #expect(most <= XNetworkSettings.defaultDailyBudget)
        // train classifier reads nothing at the default LIKES=auto on X.
        #expect(try Self.text("docs/deploying.md").contains(String(format: "spends at most $%.2f", most)))
    }

    @Test("docs/configuration.md's tables list exactly the variables the code reads")
    func documentedVariables() throws {
        let section = try Self.text("docs/configuration.md")
        var names = Set<String>()
        for line in section.split(separator: "\n") where line.hasPrefix("| `") {
            let firstColumn = line.split(separator: "|").first ?? ""
            for match in firstColumn.matches(of: /`([A-Z][A-Z0-9_]*)`/) { names.insert(String(match.1)) }
        }
        #expect(
            names == Set(Configuration.variableNames),
            "missing: \(Set(Configuration.variableNames).subtracting(names)), extra: \(names.subtracting(Configuration.variableNames))")
    }

    @Test("Procfile, Aptfile, .swift-version, Dockerfile and heroku.yml say what the deploy runs")
    func otherFiles() throws {
        let procfile = try Self.text("Procfile").split(separator: "\n").map(String.init)
        #expect(procfile == ["bot: mirror_bot start", "release: mirror_bot migrate"])
        let aptfile = Set(try Self.text("Aptfile").split(separator: "\n").map(String.init))
        #expect(aptfile.isSuperset(of: ["libmecab-dev", "mecab-utils", "mecab-ipadic", "mecab-ipadic-utf8", "libhiredis-dev", "libsqlite3-dev"]))
        #expect(try Self.text(".swift-version").trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("6."))

        let dockerfile = try Self.text("Dockerfile")
        let stages = dockerfile.split(separator: "\n").filter { $0.hasPrefix("FROM ") }
        #expect(stages.count == 2)
        #expect(stages.first?.contains("swift:") == true && stages.first?.contains("noble") == true)
        #expect(stages.last?.hasPrefix("FROM ubuntu:24.04@sha256:") == true)
        // Every base image by digest, not by a tag that moves.
        for stage in stages {
            let image = stage.split(separator: " ")[1]
            #expect(image.contains("@sha256:") && image.split(separator: ":").last?.count == 64, "\(stage)")
        }
        for package in ["libmecab2", "mecab-ipadic-utf8", "libhiredis1.1.0", "libsqlite3-0", "ca-certificates", "tzdata"] {
            #expect(dockerfile.contains(" \(package)"), "the run stage installs \(package)")
        }
        #expect(dockerfile.contains("USER mirror_bot"))
        // Dependencies resolve in a layer of their own, before the sources are copied; a crash logs its backtrace.
        let resolve = try #require(dockerfile.range(of: "RUN swift package --force-resolved-versions resolve"))
        let sources = try #require(dockerfile.range(of: "COPY . ."))
        #expect(
            dockerfile.contains("COPY deploy/package-pins.json ./Package.resolved") && dockerfile.contains("swift build --force-resolved-versions"))
        #expect(
            try #require(dockerfile.range(of: "COPY Package.swift ./")).lowerBound < resolve.lowerBound && resolve.lowerBound < sources.lowerBound)
        #expect(dockerfile.contains("ENV SWIFT_BACKTRACE=enable=yes") && dockerfile.contains("swift-backtrace-static"))
        #expect(dockerfile.contains(#"CMD ["mirror_bot", "start"]"#))

        // The lock the deploys build from pins every package the manifest names, each at a version and a revision.
        let lock = try #require(try JSONSerialization.jsonObject(with: Data(Self.text("deploy/package-pins.json").utf8)) as? [String: Any])
        let pins = (lock["pins"] as? [[String: Any]] ?? [])
        let pinned = Set(pins.compactMap { ($0["location"] as? String)?.lowercased() })
        let manifest = try Self.text("Package.swift")
        let named = manifest.split(separator: "\"").filter { $0.hasPrefix("https://github.com/") }.map { $0.lowercased() }
        #expect(!named.isEmpty && named.allSatisfy { pinned.contains($0) }, "\(Set(named).subtracting(pinned))")
        for pin in pins {
            let state = pin["state"] as? [String: Any] ?? [:]
            #expect(state["version"] is String && (state["revision"] as? String)?.count == 40, "\(pin)")
        }

        // The tests and the demo build from Package.resolved, the deploys from its copy: one lock, the same pins.
        let resolved = try #require(try JSONSerialization.jsonObject(with: Data(Self.text("Package.resolved").utf8)) as? [String: Any])
        func revisions(_ pins: [[String: Any]]) -> [String: String] {
            Dictionary(
                uniqueKeysWithValues: pins.compactMap { pin in
                    (pin["identity"] as? String).map { ($0, (pin["state"] as? [String: Any])?["revision"] as? String ?? "") }
                })
        }
        #expect(revisions(resolved["pins"] as? [[String: Any]] ?? []) == revisions(pins), "Package.resolved and deploy/package-pins.json differ")

        let herokuYML = try Self.text("heroku.yml")
        #expect(herokuYML.contains("bot: Dockerfile"))
        #expect(herokuYML.contains("- mirror_bot migrate"))
        #expect(herokuYML.contains("bot: mirror_bot start"))
    }

    @Test("Every script that builds a product builds it from the committed lock (--force-resolved-versions)")
    func scriptsBuildFromTheLock() throws {
        let scripts = try FileManager.default.contentsOfDirectory(atPath: Self.root.appending(path: "script").path).sorted()
        var builds = 0
        for script in scripts {
            guard let text = try? Self.text("script/\(script)") else { continue }
            for line in text.split(separator: "\n")
            where line.contains("swift build") && !line.contains("--show-bin-path")
                && !line.trimmingCharacters(in: .whitespaces).hasPrefix("#")
            {
                builds += 1
                #expect(line.contains("--force-resolved-versions"), "script/\(script): \(line)")
            }
        }
        #expect(builds >= 10, "\(builds) builds found in script/")
    }
}
