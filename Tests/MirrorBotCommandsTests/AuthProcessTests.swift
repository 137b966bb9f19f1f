import AsyncHTTPClient
import BotConfiguration
import FakeMastodon
import FakeMisskey
import FakeX
import Foundation
import Logging
import MastodonAPI
import MisskeyAPI
import NIOCore
import TestSupport
import Testing
import XAPI

/// `mirror_bot auth x` as a user runs it: the address printed, opened (here: fetched) as the account, the PIN typed,
/// the tokens printed or written to .env; against fake X's OAuth 1.0a endpoints, which check every signature. And
/// `auth misskey` (MiAuth) and `auth mastodon` (OAuth 2 with PKCE) against their fakes.
@Suite("mirror_bot auth x: the PIN flow")
struct AuthProcessTests {
    /// Runs `mirror_bot auth x ARGUMENTS` in `folder`; `answer` gets the printed address and returns what the user types.
    static func auth(
        _ arguments: [String], network: String = "x", environment: [String: String], in folder: URL,
        answer: @escaping @Sendable (URL) async throws -> String
    ) async throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = try MirrorBotProcess.executable
        process.arguments = ["auth", network] + arguments
        process.currentDirectoryURL = folder
        process.environment = environment.merging(["PATH": "/usr/bin:/bin"]) { mine, _ in mine }
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // A command that neither prints an address nor ends would hang the suite: it is killed after 30 s (SIGKILL: a
        // child of the test runner inherits its blocked SIGTERM), and the test fails saying so.
        let watchdog = ChildWatchdog(process, limit: .seconds(30))
        defer { watchdog.cancel() }
        // The address is the first line that starts with http; everything after it is read once the process ends.
        let reader = output.fileHandleForReading
        let printed = await OffThePool.run { () -> String in
            var text = ""
            while !text.split(separator: "\n").contains(where: { $0.hasPrefix("http") }) {
                let data = reader.availableData
                if data.isEmpty { break }
                text += String(decoding: data, as: UTF8.self)
            }
            return text
        }
        if let line = printed.split(separator: "\n").first(where: { $0.hasPrefix("http") }), let url = URL(string: String(line)) {
            let typed = try await answer(url)
            try input.fileHandleForWriting.write(contentsOf: Data((typed + "\n").utf8))
        }
        try input.fileHandleForWriting.close()
        let rest = await OffThePool.run { () -> (String, String) in
            let out = String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
            let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (out, err)
        }
        if watchdog.fired { throw ChildDidNotExit(what: "mirror_bot auth \(network) to print its address and end", limit: .seconds(30)) }
        return (process.terminationStatus, printed + rest.0, rest.1)
    }

    /// The PIN on the authorize page, opened as the account.
    static func pin(at url: URL) async throws -> String {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(10))
        let page = String(buffer: try await response.body.collect(upTo: 1 << 16))
        return try #require(page.firstMatch(of: /<code id="oauth_pin">(\d+)<\/code>/).map { String($0.1) }, "\(page)")
    }

    @Test("The bot's tokens: address printed, PIN typed, tokens printed; they act as the bot on the API; a wrong PIN is refused with what to do")
    func printsTokens() async throws {
        let persona = FakeXPersona(.init(randomSeed: 3, dayStart: Date(), historyDays: 2, postsPerDay: 2, followedAccounts: 1))
        let server = FakeXServer(seed: persona.seed, logger: Logger(label: "auth", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await server.withRunning { base in
            try await TestServers.withTemporaryFolder { folder in
                let app = persona.botAccount
                let environment = [
                    "X_API_BASE_URL": base.absoluteString, "BOT_CONSUMER_KEY": app.consumerKey, "BOT_CONSUMER_SECRET": app.consumerSecret,
                ]
                let run = try await Self.auth([], environment: environment, in: folder) { url in try await Self.pin(at: url) }
                #expect(run.status == 0, "\(run.output)\n\(run.error)")
                #expect(run.output.contains("\(base.absoluteString)/oauth/authorize?oauth_token="), "\(run.output)")
                #expect(run.output.contains("Authorized @\(persona.bot.username) (id \(persona.bot.id))"), "\(run.output)")
                let token = try #require(run.output.firstMatch(of: /BOT_ACCESS_TOKEN=(\S+)/).map { String($0.1) })
                let secret = try #require(run.output.firstMatch(of: /BOT_ACCESS_TOKEN_SECRET=(\S+)/).map { String($0.1) })
                #expect(token != app.accessToken)
                // The new tokens sign requests as the bot.
                let credentials = AccountCredentials(
                    consumerKey: app.consumerKey, consumerSecret: app.consumerSecret, accessToken: token, accessTokenSecret: secret)
                let client = XClient(configuration: .init(baseURL: base, credentials: [.bot: credentials]), logger: Logger(label: "auth"))
                #expect(try await client.send(GetAuthenticatedUser(), as: .bot).data?.username == persona.bot.username)

                let wrong = try await Self.auth([], environment: environment, in: folder) { url in
                    _ = try await Self.pin(at: url)
                    return "0000000x"
                }
                #expect(wrong.status != 0)
                #expect(wrong.error.contains("X did not accept the PIN"), "\(wrong.error)")
                #expect(!wrong.output.contains("ACCESS_TOKEN="))
            }
        }
    }

    @Test("--write-env sets the two values in .env, keeping every other line; without the app's key it says what to set")
    func writesEnv() async throws {
        let persona = FakeXPersona(.init(randomSeed: 3, dayStart: Date(), historyDays: 2, postsPerDay: 2, followedAccounts: 1))
        let server = FakeXServer(seed: persona.seed, logger: Logger(label: "auth", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await server.withRunning { base in
            try await TestServers.withTemporaryFolder { folder in
                let app = persona.humanAccount
                let existing =
                    "# my settings\nTZ=Asia/Tokyo\nX_API_BASE_URL=\(base.absoluteString)\nHUMAN_CONSUMER_KEY=\(app.consumerKey)\nHUMAN_CONSUMER_SECRET=\(app.consumerSecret)\nHUMAN_ACCESS_TOKEN=old\n"
                try existing.write(to: folder.appending(path: ".env"), atomically: true, encoding: .utf8)
                let run = try await Self.auth(["--account", "human", "--write-env"], environment: [:], in: folder) { url in
                    try await Self.pin(at: url)
                }
                #expect(run.status == 0, "\(run.output)\n\(run.error)")
                let written = try String(contentsOf: folder.appending(path: ".env"), encoding: .utf8)
                let file = try EnvironmentFile(parsing: written)
                #expect(file.variables["TZ"] == "Asia/Tokyo" && written.hasPrefix("# my settings\n"))
                #expect(file.variables["HUMAN_ACCESS_TOKEN"]?.hasPrefix("\(persona.human.id)-") == true)
                #expect(file.variables["HUMAN_ACCESS_TOKEN_SECRET"]?.isEmpty == false)
                #expect(written.components(separatedBy: "HUMAN_ACCESS_TOKEN=").count == 2, "one line each: \(written)")
                #expect(!run.output.contains(file.variables["HUMAN_ACCESS_TOKEN_SECRET"] ?? "?"), "the secret is not printed")

                let missing = try await MirrorBotProcess.run(["auth", "x"], environment: ["X_API_BASE_URL": base.absoluteString])
                #expect(
                    missing.status != 0 && missing.standardError.contains("Set BOT_CONSUMER_KEY and BOT_CONSUMER_SECRET first"),
                    "\(missing.standardError)")
            }
        }
    }

    @Test("Setting values in a .env file keeps its other lines and replaces a variable's line in place")
    func settingEnvironmentValues() throws {
        let text = "# comment\nexport A=1\nB='two words'\n"
        #expect(EnvironmentFile.setting([("A", "x-y.z"), ("C", "with space")], in: text) == "# comment\nA=x-y.z\nB='two words'\nC=\"with space\"\n")
        // Any value reads back as it was: quotes, backslashes, line breaks and tabs are escaped.
        let tricky = "it's \"quoted\" \\ and\nmore\there"
        #expect(try EnvironmentFile(parsing: EnvironmentFile.setting([("T", tricky)], in: text)).variables["T"] == tricky)
        #expect(EnvironmentFile.setting([("A", "1")], in: "") == "A=1\n")
    }

    @Test(
        "auth misskey: MiAuth's address printed with the permissions the account needs; allowed on the page and Enter pressed, the token is printed, and acts as the account; not allowed, it says what to do; --write-env sets both values in .env"
    )
    func misskeyMiAuth() async throws {
        let server = FakeMisskeyServer(
            seed: FakeMisskeySeed(now: Date(), accounts: [.init(id: "9xbot00000000001", username: "mirror", isBot: true)]),
            logger: Logger(label: "auth", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await server.withRunning { base in
            try await TestServers.withTemporaryFolder { folder in
                let environment = ["BOT_MISSKEY_URL": base.absoluteString]
                let run = try await Self.auth([], network: "misskey", environment: environment, in: folder) { url in
                    // The person allows the app on the page, as the bot's account, with what the page asks for.
                    let session = url.lastPathComponent
                    let permissions =
                        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "permission" }?.value ?? ""
                    #expect(permissions == "read:account,write:notes,write:reactions")
                    #expect(
                        await server.approveMiAuth(
                            session: session, accountID: "9xbot00000000001", permissions: permissions.components(separatedBy: ",")))
                    return ""
                }
                #expect(run.status == 0, "\(run.output)\n\(run.error)")
                #expect(run.output.contains("\(base.absoluteString)/miauth/"), "\(run.output)")
                #expect(run.output.contains("Authorized @mirror (id 9xbot00000000001)"), "\(run.output)")
                let token = try #require(run.output.firstMatch(of: /BOT_MISSKEY_TOKEN=(\S+)/).map { String($0.1) })
                #expect(run.output.contains("BOT_MISSKEY_URL=\(base.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")))"))
                // The token acts as the bot.
                let client = MisskeyClient(
                    configuration: .init(accounts: [.bot: MisskeyAccess(instance: base, token: token)]), logger: Logger(label: "auth"))
                #expect(try await client.send(GetI(), as: .bot).username == "mirror")

                // Enter pressed without allowing: it says what to do, and prints no token.
                let refused = try await Self.auth(
                    ["--account", "human", "--instance", base.absoluteString], network: "misskey", environment: [:], in: folder
                ) { _ in "" }
                #expect(refused.status != 0)
                #expect(refused.error.contains("has no approval for this session yet"), "\(refused.error)")
                #expect(!refused.output.contains("MISSKEY_TOKEN="))

                let written = try await Self.auth(["--write-env"], network: "misskey", environment: environment, in: folder) { url in
                    #expect(
                        await server.approveMiAuth(
                            session: url.lastPathComponent, accountID: "9xbot00000000001", permissions: ["read:account", "write:notes"]))
                    return ""
                }
                #expect(written.status == 0, "\(written.output)\n\(written.error)")
                let file = try EnvironmentFile(parsing: try String(contentsOf: folder.appending(path: ".env"), encoding: .utf8))
                #expect(file.variables["BOT_MISSKEY_TOKEN"]?.isEmpty == false && file.variables["BOT_MISSKEY_URL"] != nil)
                #expect(!written.output.contains(file.variables["BOT_MISSKEY_TOKEN"] ?? "?"), "the token is not printed")
            }
        }
    }

    /// What the person does with `auth mastodon`'s address in a browser: opens it, signs in on its form as `username`
    /// and presses "Authorize"; returns the code the instance's next page shows to copy.
    static func mastodonCode(at address: URL, username: String, password: String) async throws -> String {
        let page = try await HTTPClient.shared.execute(HTTPClientRequest(url: address.absoluteString), timeout: .seconds(10))
        let form = String(buffer: try await page.body.collect(upTo: 1 << 16))
        #expect(page.status == .ok, "\(form)")
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        let fields =
            form.matches(of: /<input type="hidden" name="([a-z_]+)" value="([^"]*)">/).map { (String($0.1), String($0.2)) }
            + [("username", username), ("password", password)]
        var request = HTTPClientRequest(url: "\(address.scheme ?? "http")://\(address.host() ?? "127.0.0.1"):\(address.port ?? 80)/oauth/authorize")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(
            ByteBuffer(string: fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")))
        // The redirect to the page that shows the code is followed, as a browser follows it.
        let shown = String(buffer: try await HTTPClient.shared.execute(request, timeout: .seconds(10)).body.collect(upTo: 1 << 16))
        return try #require(shown.firstMatch(of: /class="oauth-code"[^>]* value="([^"]+)"/).map { String($0.1) }, "\(shown)")
    }

    @Test(
        "auth mastodon --account human --write-env: the address printed; signed in on the fake's page as the person, the code pasted on standard input; .env gets HUMAN_MASTODON_URL and a new HUMAN_MASTODON_TOKEN (0600, other lines kept, the token not printed) that reads as the person with the scope read only; the person's consent recorded; a wrong code is refused saying what to do"
    )
    func mastodonAuthorizationCode() async throws {
        let seed = FakeMastodonSeed(
            now: Date(),
            accounts: [
                .init(id: "100", username: "person", token: "old-person-token", scopes: ["read"], password: "person-password"),
                .init(
                    id: "200", username: "mirror", token: "bot-token", scopes: ["read", "write:statuses", "write:favourites"], bot: true,
                    password: "bot-password"),
            ])
        let server = FakeMastodonServer(seed: seed, logger: Logger(label: "auth", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await server.withRunning { base in
            try await TestServers.withTemporaryFolder { folder in
                let instance = base.absoluteString.hasSuffix("/") ? String(base.absoluteString.dropLast()) : base.absoluteString
                let envFile = folder.appending(path: ".env")
                try
                    "# my settings\nTZ=Asia/Tokyo\nNETWORK=mastodon\nBOT_MASTODON_URL=\(instance)\nBOT_MASTODON_TOKEN=bot-token\nHUMAN_MASTODON_URL=\(instance)\nHUMAN_MASTODON_TOKEN=old-person-token\n"
                    .write(to: envFile, atomically: true, encoding: .utf8)
                let run = try await Self.auth(["--account", "human", "--write-env"], network: "mastodon", environment: [:], in: folder) { address in
                    try await Self.mastodonCode(at: address, username: "person", password: "person-password")
                }
                #expect(run.status == 0, "\(run.output)\n\(run.error)")
                #expect(run.output.contains("\(instance)/oauth/authorize?"), "\(run.output)")
                #expect(run.output.contains("Authorized @person (id 100)"), "\(run.output)")
                // The person signed in as themselves: their consent is in the store (the SQLite file in the folder).
                #expect(
                    run.output.contains("Recorded the person's consent in the SQLite file") && run.output.contains("100@127.0.0.1:\(base.port ?? 0)")
                        && run.output.contains("by mirror_bot auth mastodon --account human (OAuth 2 with PKCE)"), "\(run.output)")
                #expect(await server.registeredApplications().map(\.scopes) == [["read"]])
                let mode = try FileManager.default.attributesOfItem(atPath: envFile.path)[.posixPermissions] as? NSNumber
                #expect(mode?.intValue == 0o600, "mode \(String(mode?.intValue ?? 0, radix: 8))")
                let written = try String(contentsOf: envFile, encoding: .utf8)
                let file = try EnvironmentFile(parsing: written)
                #expect(written.hasPrefix("# my settings\n") && file.variables["TZ"] == "Asia/Tokyo")
                #expect(file.variables["HUMAN_MASTODON_URL"] == instance)
                let token = try #require(file.variables["HUMAN_MASTODON_TOKEN"])
                #expect(token != "old-person-token" && written.components(separatedBy: "HUMAN_MASTODON_TOKEN=").count == 2)
                #expect(!run.output.contains(token), "the token is not printed")
                // The new token acts as the person, with read only.
                let client = MastodonClient(
                    configuration: .init(accounts: [.human: MastodonAccess(instance: base, token: token)]), logger: Logger(label: "auth"))
                #expect(try await client.send(VerifyCredentials(), as: .human).id == "100")
                #expect(try await client.send(VerifyAppCredentials(), as: .human).scopes == ["read"])

                let wrong = try await Self.auth(["--account", "human", "--instance", instance], network: "mastodon", environment: [:], in: folder) {
                    address in
                    _ = try await Self.mastodonCode(at: address, username: "person", password: "person-password")
                    return "not-the-code"
                }
                #expect(wrong.status != 0)
                #expect(wrong.error.contains("did not accept the code (invalid_grant"), "\(wrong.error)")
                #expect(!wrong.output.contains("MASTODON_TOKEN="))

                // A code pasted wrong, then right: the first is refused on the terminal and the second signs in.
                let again = try await Self.auth(["--account", "human", "--instance", instance], network: "mastodon", environment: [:], in: folder) {
                    address in
                    let code = try await Self.mastodonCode(at: address, username: "person", password: "person-password")
                    return "not-the-code\n" + code
                }
                #expect(again.status == 0, "\(again.output)\n\(again.error)")
                #expect(again.error.components(separatedBy: "Not accepted: ").count == 2, "refused once: \(again.error)")
                #expect(again.output.contains("Authorized @person (id 100)"), "\(again.output)")

                // Three wrong codes: three refusals, then the command ends saying the last, and signs nothing in.
                let thrice = try await Self.auth(["--account", "human", "--instance", instance], network: "mastodon", environment: [:], in: folder) {
                    address in
                    _ = try await Self.mastodonCode(at: address, username: "person", password: "person-password")
                    return "one\ntwo\nthree\nfour"
                }
                #expect(thrice.status != 0 && !thrice.output.contains("MASTODON_TOKEN="))
                #expect(thrice.error.components(separatedBy: "Not accepted: ").count == 4, "three refusals: \(thrice.error)")
            }
        }
    }
}
