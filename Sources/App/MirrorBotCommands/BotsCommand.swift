import ArgumentParser
import BotAssembly
import BotConfiguration
import Fleet
import Foundation
import Stores

/// `mirror_bot bots`: the fleet's bots, as data in its Postgres.
struct BotsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bots",
        abstract: "Adds, lists, pauses, resumes and removes the bots a fleet runs (`mirror_bot fleet`).",
        discussion: """
            A fleet keeps its bots in its Postgres (DATABASE_URL): each bot's settings (its own variables: NETWORK, \
            its accounts, TZ, options) sealed with FLEET_KEY (AES-GCM), its stores in a schema of its own, its word \
            counts in the fleet's Redis under its own keys. Every process of the fleet needs the same FLEET_KEY. \
            `bots adopt` makes the bot a `start` ran on this database one of them, its data moved in place.
            """,
        subcommands: [
            AddBotCommand.self, AdoptBotCommand.self, ListBotsCommand.self, ExecBotCommand.self, PauseBotCommand.self, ResumeBotCommand.self,
            RemoveBotCommand.self,
        ]
    )

    /// The administration and the key from the process's environment (and `.env`).
    static func open() throws -> (FleetBots, FleetKey) {
        let environment = try EnvironmentFile.processEnvironment()
        let context = try CommandContext.load()
        do {
            return (
                FleetBots(configuration: context.configuration, environment: environment, logger: context.logger),
                try FleetKey(text: context.configuration.fleet.key)
            )
        } catch let error as FleetKeyError {
            throw ValidationError(error.description)
        }
    }
}

/// `mirror_bot bots add NAME --env-file FILE`.
struct AddBotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Adds a bot to the fleet with the settings in an env file (sealed with FLEET_KEY); its stores are made at once.",
        discussion: """
            The file holds the bot's own variables as a .env does (NETWORK, its accounts' variables, TZ, LIKES, …), \
            checked as `start` checks them. What the fleet's processes share (DATABASE_URL, REDIS_URL, REDIS_CLUSTER, \
            FLEET_KEY, PORT, LOG_LEVEL, …) is refused there. Nothing of the file is printed.
            """
    )

    @Argument(help: "The bot's name: 1 to 40 lower-case letters, digits, - and _.")
    var name: String

    @Option(help: "The file of the bot's variables, as a .env file.")
    var envFile: String

    func run() async throws {
        let (bots, key) = try BotsCommand.open()
        let text: String
        do { text = try String(contentsOfFile: envFile, encoding: .utf8) } catch {
            throw ValidationError("\(envFile) cannot be read: \((error as NSError).localizedDescription)")
        }
        let settings = try EnvironmentFile(parsing: text).variables
        do {
            let bot = try await bots.add(name: name, settings: settings, key: key)
            await bots.audit("added", bot: bot.name, detail: "a \(bot.network) bot, from \(envFile)")
            print(
                "Added the bot \(bot.name) (\(bot.network)): its stores are in the schema \(bot.schema), its word counts under \(name):. `mirror_bot fleet` runs it."
            )
        } catch let error as FleetError {
            throw ValidationError(error.description)
        }
    }
}

/// `mirror_bot bots adopt NAME`: the bot `start` runs becomes a fleet's bot, its data moved in place.
struct AdoptBotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "adopt",
        abstract: "Makes the bot `mirror_bot start` runs on this database a fleet's bot named NAME, its data moved in place (nothing copied).",
        discussion: """
            Run it with the environment `start` runs with (its .env: DATABASE_URL, REDIS_URL, DATABASE_SCHEMA, \
            REDIS_KEY_PREFIX) and FLEET_KEY. The bot's own variables there (NETWORK, its accounts, TZ, options; or those \
            of --env-file) are checked and sealed as `bots add` seals them. Its stores' tables move from its schema into \
            a schema of its own in one transaction, and its word counts go under the key prefix NAME:. Stop `start` \
            first: adopt refuses while it runs. Afterwards `start` and the other commands on that schema refuse, naming \
            the fleet's bot: `mirror_bot fleet` runs it, and `mirror_bot bots exec NAME -- COMMAND` runs a command as it.
            """
    )

    @Argument(help: "The bot's name in the fleet: 1 to 40 lower-case letters, digits, - and _.")
    var name: String

    @Option(help: "The file of the bot's own variables, as a .env file (by default, those of this environment and .env).")
    var envFile: String?

    func run() async throws {
        let (bots, key) = try BotsCommand.open()
        let settings: [String: String]
        if let envFile {
            let text: String
            do { text = try String(contentsOfFile: envFile, encoding: .utf8) } catch {
                throw ValidationError("\(envFile) cannot be read: \((error as NSError).localizedDescription)")
            }
            settings = try EnvironmentFile(parsing: text).variables
        } else {
            settings = try EnvironmentFile.processEnvironment().filter {
                Configuration.variableNames.contains($0.key) && !FleetBotSettings.processVariables.contains($0.key)
            }
        }
        do {
            let (bot, tables, keys) = try await bots.adopt(name: name, settings: settings, key: key)
            await bots.audit("adopted", bot: bot.name, detail: "\(tables) tables and \(keys) Redis keys moved in")
            print(
                "Adopted the bot as \(bot.name) (\(bot.network)): \(tables) tables moved into the schema \(bot.schema), \(keys) Redis keys under \(name):. "
                    + "`mirror_bot fleet` runs it; `mirror_bot start` on the old schema now refuses.")
        } catch let error as FleetError {
            throw ValidationError(error.description)
        } catch let error as LeaseHeld {
            throw ValidationError("Not adopted: \(error.description)")
        }
    }
}

/// `mirror_bot bots list`.
struct ListBotsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Lists the fleet's bots: network, state, who runs each.")

    func run() async throws {
        let (bots, _) = try BotsCommand.open()
        let all = try await bots.withRegistry { try await $0.bots() }
        guard !all.isEmpty else { return print("No bots yet: `mirror_bot bots add NAME --env-file FILE` adds one.") }
        for bot in all {
            // A paused bot's lease goes once its process has stopped it: until then it still runs there.
            let state =
                bot.pauseReason.map { reason in "paused: \(reason)" + (bot.holder.map { " (still stopping on \($0))" } ?? "") }
                ?? bot.holder.map { "running on \($0) (lease \(bot.fence), until \(bot.leaseExpiresAt?.formatted(.iso8601) ?? "?"))" }
                ?? "waiting for a process"
            print("\(bot.name)\t\(bot.network)\t\(state)")
        }
    }
}

/// `mirror_bot bots exec NAME -- COMMAND …`.
struct ExecBotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exec",
        abstract: "Runs a mirror_bot command as the bot NAME: `bots exec alice -- train` trains it, `-- import FILE` imports its person's archive.",
        discussion: """
            The command runs with the bot's settings (opened with FLEET_KEY), its stores (its schema: DATABASE_SCHEMA), \
            its word counts (its key prefix) and the fleet's DATABASE_URL and REDIS_URL; nothing else of the \
            environment or of a .env file is its configuration. Any command but `fleet` and `bots`: train, import, \
            doctor, schedule, classify, forget, opt-out. Start a fleet only after a new bot's first `train`. `train clear` \
            and `train rebuild` refuse while a fleet process runs the bot: pause it first.
            """
    )

    @Argument(help: "The bot's name.") var name: String
    @Argument(parsing: .captureForPassthrough, help: "The command and its arguments, after --.") var command: [String] = []

    func validate() throws {
        let words = command.first == "--" ? Array(command.dropFirst()) : command
        guard let first = words.first else {
            throw ValidationError("Name the command to run as \(name), after --: `mirror_bot bots exec \(name) -- train`.")
        }
        guard !["fleet", "bots", "start"].contains(first) else {
            throw ValidationError("`\(first)` does not run as one bot: `mirror_bot fleet` runs the fleet's bots (and `bots` administers them).")
        }
    }

    func run() async throws {
        let (bots, key) = try BotsCommand.open()
        let environment: [String: String]
        do {
            environment = try await bots.commandEnvironment(of: name, key: key)
        } catch let error as FleetError {
            throw ValidationError(error.description)
        } catch let error as FleetKeyError {
            throw ValidationError(error.description)
        }
        let words = command.first == "--" ? Array(command.dropFirst()) : command
        if let what = whyNotBesideTheBot(words), let running = try await bots.withRegistry({ try await $0.bot(named: name) }),
            let holder = running.holder
        {
            // The fleet runs the bot: its lease names the process (a lapsed lease names none).
            let until = running.leaseExpiresAt.map { " (its lease runs until \($0.formatted(.iso8601)))" } ?? ""
            throw ValidationError(
                "\(what), so it does not run while the bot does: the fleet process \(holder) runs \(name)\(until). "
                    + "Pause it first (`mirror_bot bots pause \(name)`); once `mirror_bot bots list` no longer shows it running, "
                    + "run this again, then `mirror_bot bots resume \(name)`.")
        }
        // Recorded before it runs: this process becomes the command (its signals, output and exit status are the command's).
        await bots.audit("ran a command as", bot: name, detail: "mirror_bot \(words.first ?? "")")
        let executable = URL(filePath: "/proc/self/exe").resolvingSymlinksInPath().path
        let arguments = [CommandLine.arguments.first ?? "mirror_bot"] + words
        let variables = environment.map { "\($0.key)=\($0.value)" }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = variables.map { strdup($0) } + [nil]
        execve(executable, argv, envp)
        throw ValidationError("Could not run \(executable): \(String(cString: strerror(errno))).")
    }
}

/// `mirror_bot bots pause NAME`.
struct PauseBotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause", abstract: "Pauses a bot: the process running it stops it within a round; no process claims it.")
    @Argument(help: "The bot's name.") var name: String

    func run() async throws {
        let (bots, _) = try BotsCommand.open()
        guard try await bots.pause(name) else { throw ValidationError(FleetError.noSuchBot(name).description) }
        print("Paused \(name).")
    }
}

/// `mirror_bot bots resume NAME`.
struct ResumeBotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Resumes a paused bot (by hand, or after a failure it was paused for); a front door's mirror its person paused is theirs to start.")
    @Argument(help: "The bot's name.") var name: String

    func run() async throws {
        let (bots, _) = try BotsCommand.open()
        do {
            guard try await bots.resume(name) else { throw ValidationError(FleetError.noSuchBot(name).description) }
        } catch let refused as FleetResumeRefused {
            throw ValidationError(refused.description)
        }
        print("Resumed \(name): a process of the fleet claims it within a round.")
    }
}

/// `mirror_bot bots remove NAME`.
struct RemoveBotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Removes a bot with all its data: its stores (its schema), its word counts, its settings. Asks first.")

    @Argument(help: "The bot's name.") var name: String
    @Flag(help: "Do not ask: remove at once.") var yes = false

    func run() async throws {
        let (bots, _) = try BotsCommand.open()
        if !yes {
            guard isatty(STDIN_FILENO) != 0 else {
                throw ValidationError("Removing \(name) deletes all its data: run it on a terminal to confirm, or add --yes.")
            }
            FileHandle.standardError.write(
                Data("Remove the bot \(name) and all its data (its archive, plans, replies, likes, word counts)? Type its name to confirm: ".utf8))
            guard readLine()?.trimmingCharacters(in: .whitespaces) == name else { throw ValidationError("Not removed.") }
        }
        do {
            let keys = try await bots.remove(name: name)
            await bots.audit("removed", bot: name, detail: "its schema, \(keys) Redis keys and its settings")
            print("Removed \(name): its schema, \(keys) Redis keys and its settings.")
        } catch let error as FleetError {
            throw ValidationError(error.description)
        }
    }
}

/// `mirror_bot fleet`: runs every bot it can claim.
struct FleetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: "Runs the fleet's bots: as many processes as you like share them, each claiming its share (`mirror_bot bots add` adds bots).",
        discussion: """
            Needs DATABASE_URL (Postgres: the bots, their leases and their stores), REDIS_URL (their word counts; \
            REDIS_CLUSTER=true for a Redis Cluster) and FLEET_KEY, the same in every process. Every \
            FLEET_ROUND_SECONDS (5) a process says it is alive, renews the leases it holds and claims free or expired \
            bots up to its share of the live processes; a lease not renewed for FLEET_LEASE_SECONDS (20: a process \
            killed) is claimed by another, whose bots then read back what the killed one left mid-send, as `start` does \
            after a crash. A bot's network writes end before its lease could lapse: each leaves only with time left on \
            it (from the last renewal) and is given no longer than that, less 2 s, so keep FLEET_LEASE_SECONDS well above \
            a network's slowest answer (with the defaults a write gets 13 s or more). SIGTERM stops every bot gracefully and lets its leases go at once. A bot that fails (revoked \
            tokens) is paused with the reason; `bots resume` restarts it. The process's bots share one Postgres pool of \
            FLEET_DATABASE_CONNECTIONS (10; raise it for many hundreds of bots, within the server's max_connections \
            for every process), and their leases a pool of two of their own. With PORT, the fleet's list is at `/` \
            and `/api/v1/bots`, each bot running here at `/bots/<name>/`, `/metrics` labelled by bot.
            """
    )

    @Option(help: "Run the bots' clock this many times faster, for rehearsals against fakes (as `start --speed`).")
    var speed: Double = 1

    @Option(help: "Start the bots' clock at this time (ISO 8601), for rehearsals (as `start --start-time`).")
    var startTime: String?

    func validate() throws { try StartCommand.validateRehearsal(speed: speed, startTime: startTime) }

    func run() async throws {
        let environment = try EnvironmentFile.processEnvironment()
        let context = try CommandContext.load()
        let key: FleetKey
        do { key = try FleetKey(text: context.configuration.fleet.key) } catch let error as FleetKeyError { throw ValidationError(error.description) }
        let timing = FleetRun.Timing(
            leaseSeconds: TimeInterval(context.configuration.fleet.leaseSeconds), roundSeconds: TimeInterval(context.configuration.fleet.roundSeconds)
        )
        do {
            try await FleetRun(
                configuration: context.configuration, environment: environment, key: key, timing: timing, speed: speed,
                startTime: startTime.flatMap(StartCommand.parseTime), logger: context.logger
            ).run()
        } catch let error as FleetKeyError {
            throw ValidationError(error.description)
        }
    }
}
