import ArgumentParser
import BotAssembly
import Consent
import Foundation

/// `mirror_bot optout list|add|remove`: the accounts the bot never answers or likes because they asked.
struct OptOutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "optout",
        abstract: "Lists, adds or removes the accounts that asked the bot to leave them alone.",
        discussion: """
            An account is put on the list when it mentions the bot with one of OPT_OUT_WORDS (by default stop, \
            unsubscribe, opt out, #nobot, やめて, 止めて, 停止, 配信停止) or when its profile says #nobot; from then on the \
            bot never answers it and never likes its posts, across restarts. The list is kept with the archive \
            (DATABASE_URL, or the SQLite file) and survives `train clear`. An account is named by its id, as the bot's \
            network writes it (digits on a network of numbered accounts), or by its handle (bob, @bob, \
            bob@example.social; with @ in front always a handle). Reads and writes only the database: safe while `mirror_bot \
            start` runs.
            """ + networksHelp("optout"),
        subcommands: [List.self, Add.self, Remove.self]
    )

    /// `optout list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Prints the opt-out list, oldest first: who, when, why.")

        @Flag(help: "Print a JSON array of {\"account_id\",\"handle\",\"reason\",\"at\"} instead.")
        var json = false

        func run() async throws {
            let optOuts = try await OptOutCommand.withList { try await $0.all() }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                encoder.keyEncodingStrategy = .convertToSnakeCase
                encoder.dateEncodingStrategy = .iso8601
                print(String(decoding: try encoder.encode(optOuts), as: UTF8.self))
                return
            }
            guard !optOuts.isEmpty else { return print("Nobody opted out.") }
            for optOut in optOuts { print("\(optOut.who)\t\(optOut.at.formatted(.iso8601))\t\(optOut.reason)") }
            print("\(optOuts.count) account\(optOuts.count == 1 ? "" : "s") opted out.")
        }
    }

    /// `optout add ACCOUNT`.
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Puts an account on the list, as if it had asked.")

        @Argument(help: "The account: its id as the bot's network writes it, or its handle (bob, @bob, bob@example.social).")
        var account: String

        @Option(help: "Why, for the listing.")
        var reason = "added with mirror_bot optout add"

        func validate() throws {
            guard AccountSet.handle(account) != nil else { throw ValidationError("name an account by its id or its handle") }
        }

        func run() async throws {
            let context = try CommandContext.load()
            // The bot's network says whether what was typed is one of its ids; anything else (or @ in front) is a handle.
            let id = account.hasPrefix("@") ? nil : context.configuration.networkModule.accountID(typed: account)
            let optOut = OptOut(accountID: id, handle: id == nil ? AccountSet.handle(account) : nil, reason: reason, at: Date())
            let added = try await OptOutCommand.withList(context) { try await $0.add(optOut) }
            print(added ? "\(optOut.who) is on the opt-out list: never answered or liked." : "\(optOut.who) was already on the opt-out list.")
        }
    }

    /// `optout remove ACCOUNT`.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Takes an account off the list: the bot may answer and like it again.")

        @Argument(help: "The account: its id as the bot's network writes it, or its handle (bob, @bob, bob@example.social).")
        var account: String

        func run() async throws {
            let removed = try await OptOutCommand.withList { try await $0.remove(account) }
            guard !removed.isEmpty else { throw NotListed(account: account) }
            print("Removed from the opt-out list: \(removed.map(\.who).joined(separator: ", ")).")
        }
    }

    /// An account `remove` does not find: one line, no usage.
    struct NotListed: Error, CustomStringConvertible {
        let account: String
        var description: String { "\(account) is not on the opt-out list (see `mirror_bot optout list`)." }
    }

    /// Runs `body` with the opt-out list of the configured database.
    static func withList<Result: Sendable>(
        _ context: CommandContext? = nil, _ body: @Sendable (OptOutList) async throws -> Result
    ) async throws -> Result {
        let context = try context ?? CommandContext.load()
        return try await BotParts(configuration: context.configuration, logger: context.logger).withRunning { parts in
            try await body(OptOutList(state: parts.state))
        }
    }
}
