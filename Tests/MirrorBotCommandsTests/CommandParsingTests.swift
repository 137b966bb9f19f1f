import ArgumentParser
@testable import MirrorBotCommands
import Testing

@Suite("Parsing the mirror_bot command line")
struct CommandParsingTests {
    @Test("migrate takes no arguments")
    func migrate() throws {
        #expect(try MirrorBot.parseAsRoot(["migrate"]) is MigrateCommand)
        #expect(throws: (any Error).self) { try MirrorBot.parseAsRoot(["migrate", "extra"]) }
    }

    @Test("doctor takes no arguments")
    func doctor() throws {
        #expect(try MirrorBot.parseAsRoot(["doctor"]) is DoctorCommand)
    }

    @Test("tokenize takes any number of texts")
    func tokenize() throws {
        let command = try #require(try MirrorBot.parseAsRoot(["tokenize", "猫が好き", "寿司"]) as? TokenizeCommand)
        #expect(command.texts == ["猫が好き", "寿司"])
        let none = try #require(try MirrorBot.parseAsRoot(["tokenize"]) as? TokenizeCommand)
        #expect(none.texts.isEmpty)
    }

    @Test("An unknown subcommand is an error, and help names every subcommand")
    func unknownAndHelp() throws {
        #expect(throws: (any Error).self) { try MirrorBot.parseAsRoot(["tweet-now"]) }
        let help = MirrorBot.helpMessage()
        for name in ["migrate", "doctor", "tokenize"] { #expect(help.contains(name)) }
        #expect(MirrorBot.configuration.commandName == "mirror_bot")
    }
}
