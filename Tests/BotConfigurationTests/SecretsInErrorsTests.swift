import BotAssembly
import BotConfiguration
import Fleet
import Foundation
import Logging
import Testing

/// Nothing of a configuration file's secrets, nor of a URL's credentials, is echoed in an error (issue 43).
@Suite("Secrets kept out of the configuration's errors")
struct SecretsInErrorsTests {
    @Test(".env lines end at LF, CRLF and a lone CR: a CR-only file is read line by line, and its error quotes no other line's secret")
    func carriageReturnLineEnds() throws {
        let file = try EnvironmentFile(parsing: "X_DAILY_BUDGET=2.50\rBOT_ACCESS_TOKEN_SECRET=very-secret-token\rTZ=UTC\r")
        #expect(file.variables == ["X_DAILY_BUDGET": "2.50", "BOT_ACCESS_TOKEN_SECRET": "very-secret-token", "TZ": "UTC"])
        let mixed = try EnvironmentFile(parsing: "A=1\r\nB=2\nC=3\rD=4")
        #expect(mixed.variables == ["A": "1", "B": "2", "C": "3", "D": "4"])
        // A value that holds a line end anyway (given by the process environment) is shown up to it only.
        let error = try #require(throws: ConfigurationError.self) {
            try Configuration(environment: ["X_DAILY_BUDGET": "lots\rBOT_ACCESS_TOKEN_SECRET=very-secret-token"])
        }
        #expect(error.description.contains("X_DAILY_BUDGET") && !error.description.contains("very-secret-token"), "\(error.description)")
        // A line that is no assignment is not quoted: it may be a piece of a secret.
        let syntax = try #require(throws: EnvironmentFile.SyntaxError.self) { try EnvironmentFile(parsing: "TZ=UTC\nsk live secret=x\n") }
        #expect(syntax.line == 2 && !syntax.description.contains("sk live secret"), "\(syntax.description)")
    }

    @Test("An API's base URL with a user and password, or a query, is shown with them masked (X, Mastodon, Misskey)")
    func urlCredentialsMasked() throws {
        for (variables, name) in [
            (["X_API_BASE_URL": "http://user:hunter2pw@api.example.com?token=qsecret"], "X_API_BASE_URL"),
            (
                [
                    "NETWORK": "mastodon", "BOT_MASTODON_URL": "http://user:hunter2pw@mastodon.example/?token=qsecret",
                    "BOT_MASTODON_TOKEN": "t",
                ], "BOT_MASTODON_URL"
            ),
            (
                ["NETWORK": "misskey", "BOT_MISSKEY_URL": "http://user:hunter2pw@misskey.example#qsecret", "BOT_MISSKEY_TOKEN": "t"],
                "BOT_MISSKEY_URL"
            ),
        ] {
            let error = try #require(throws: ConfigurationError.self) { try Configuration(environment: variables) }
            let text = error.description
            #expect(text.contains(name), "\(text)")
            #expect(!text.contains("hunter2pw") && !text.contains("user:") && !text.contains("qsecret"), "\(text)")
        }
        #expect(EnvironmentReader.maskedURL("http://user:pw@host.example:8080/path?q=1") == "http://***@host.example:8080/path?***")
        #expect(EnvironmentReader.maskedURL("https://host.example") == "https://host.example")
    }

    @Test("bots add names what is wrong with a bot's settings and shows none of their values, as its help says")
    func botsAddShowsNoValue() async throws {
        let bots = FleetBots(
            configuration: try Configuration(environment: [:]), environment: [:],
            logger: Logger(label: "bots", factory: { _ in SwiftLogNoOpLogHandler() }))
        let settings = [
            "X_DAILY_BUDGET": "value-of-the-file", "TZ": "Mars/value-of-the-file", "LIKES": "value-of-the-file",
            "HUMAN_CONSUMER_KEY": "hck",
        ]
        await #expect(throws: ConfigurationError.self) {
            do {
                _ = try await bots.add(name: "alice", settings: settings, key: try FleetKey(text: "a long and random fleet key"))
            } catch let error as ConfigurationError {
                #expect(error.description.contains("X_DAILY_BUDGET") && error.description.contains("TZ"), "\(error.description)")
                #expect(!error.description.contains("value-of-the-file") && !error.description.contains("hck"), "\(error.description)")
                throw error
            }
        }
    }
}
