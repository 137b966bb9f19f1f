public import Foundation

/// A network's fake server as the `fake-x` command serves it and the demo's report reads it: each network's fake
/// module has one, and the fakes' registry (`FakeNetworkRegistry`) lists them, so that neither the command nor the
/// report names a network.
public protocol FakeNetwork: Sendable {
    /// The network's key (`NETWORK`), which `fake-x --network` takes.
    var key: String { get }
    /// The network's name as people read it.
    var name: String { get }
    /// What `fake-x --network KEY` serves, for `fake-x --help`.
    var summary: String { get }
    /// The options only this fake takes, for `fake-x --help`; empty when it takes none.
    var optionsHelp: String { get }

    /// Serves `request` on its host and port until cancelled; a request it cannot serve throws a `FakeServeError`.
    func serve(_ request: FakeServeRequest) async throws

    /// The run as the demo's report tells it, from the fake's `/admin/state` after the run and before it (whose
    /// calls are left out).
    func run(after: Data, before: Data?, context: FakeReportContext) throws -> FakeRun

    /// How `script/demo` runs the persona's day on this fake, with `LIKES=on` when `likes`, else at the defaults.
    func demo(likes: Bool) -> FakeDemo
}

/// How `script/demo` runs the persona's day on a fake (`fake-x --network KEY --demo-script` prints it as shell).
public struct FakeDemo: Sendable {
    /// The fake's address in a value of `environment`: the shell puts the address there once the fake listens.
    public static let serverURL = "${FAKE_X_URL}"

    /// The fake's own options for the demo (`fake-x --access enterprise`).
    public var serveOptions: [String]
    /// The variables a real deploy sets as config vars, for the persona's accounts on this fake.
    public var environment: [(name: String, value: String)]
    /// `mirror_bot train scheduler`'s arguments.
    public var trainSchedulerArguments: [String]
    /// What that step does here, for its log line.
    public var trainSchedulerNote: String
    /// Whether the bot likes in this demo, so that it shows how likes are decided (`classify --stats`).
    public var likes: Bool

    /// A demo from its parts.
    public init(
        serveOptions: [String] = [], environment: [(name: String, value: String)], trainSchedulerArguments: [String] = [],
        trainSchedulerNote: String, likes: Bool
    ) {
        self.serveOptions = serveOptions
        self.environment = environment
        self.trainSchedulerArguments = trainSchedulerArguments
        self.trainSchedulerNote = trainSchedulerNote
        self.likes = likes
    }

    /// The demo as shell lines for `script/demo` to `eval`: `network_name`, `fake_options`, `train_scheduler_args`,
    /// `train_scheduler_note`, `demo_likes`, and `demo_environment`, a function that exports the variables once
    /// `FAKE_X_URL` is known.
    public func shell(networkName: String) -> String {
        func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        func array(_ items: [String]) -> String { "(" + items.map(quoted).joined(separator: " ") + ")" }
        // Double quotes, so that the address is put in; nothing else in a value is the shell's.
        func expanded(_ text: String) -> String {
            let pieces = text.components(separatedBy: Self.serverURL).map { piece in
                piece.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                    .replacingOccurrences(of: "`", with: "\\`").replacingOccurrences(of: "$", with: "\\$")
            }
            return "\"" + pieces.joined(separator: Self.serverURL) + "\""
        }
        let exports = environment.map { "    export \($0.name)=\(expanded($0.value))" }.joined(separator: "\n")
        return [
            "network_name=\(quoted(networkName))", "fake_options=\(array(serveOptions))", "train_scheduler_args=\(array(trainSchedulerArguments))",
            "train_scheduler_note=\(quoted(trainSchedulerNote))", "demo_likes=\(likes ? 1 : 0)",
            "demo_environment() {\n\(exports.isEmpty ? "    :" : exports)\n}",
        ].joined(separator: "\n") + "\n"
    }
}

/// What `fake-x` asks a fake to serve.
public struct FakeServeRequest: Sendable {
    /// The generated persona to serve, or nil when a seed file is given.
    public var persona: FakePersona?
    /// The fake's own seed file (`--seed`), when no persona is served.
    public var seedPath: String?
    /// Server seconds per real second (`--speed`), when given.
    public var speed: Double?
    /// How many more bot accounts to serve, for a fleet's benchmark: `bench-bot-1` … with the token `bench-bot-N`.
    public var extraBots: Int
    /// The options only this fake takes, as given on the command line.
    public var options: [String]
    /// The address to listen on.
    public var host: String
    /// The port to listen on (0: a free one).
    public var port: Int
    /// Called with the port once the server listens.
    public var onListening: @Sendable (Int) async -> Void

    /// A request from its parts.
    public init(
        persona: FakePersona?, seedPath: String?, speed: Double?, extraBots: Int, options: [String], host: String, port: Int,
        onListening: @escaping @Sendable (Int) async -> Void
    ) {
        self.persona = persona
        self.seedPath = seedPath
        self.speed = speed
        self.extraBots = extraBots
        self.options = options
        self.host = host
        self.port = port
        self.onListening = onListening
    }

    /// The persona, or the error saying this fake serves only it; a fake that reads `options` itself says so
    /// (`takesOptions`), else any is refused.
    public func requirePersona(_ fake: String, takesOptions: Bool = false) throws -> FakePersona {
        guard let persona, seedPath == nil else { throw FakeServeError("--network \(fake) serves the generated persona: give --persona.") }
        guard takesOptions || options.isEmpty else { throw FakeServeError("--network \(fake) takes no option \(options.joined(separator: " ")).") }
        return persona
    }
}

/// Why a fake cannot serve what it was asked, in one sentence.
public struct FakeServeError: Error, CustomStringConvertible {
    /// The sentence.
    public var description: String
    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}

/// What the demo's report knows that a fake's record does not: from the bot's database and the persona.
public struct FakeReportContext: Sendable {
    /// The bot's stored state (`likes.status`, `budget.shed.<day>`).
    public var botState: [String: String]
    /// Whether the bot was allowed to post links (`POST_LINKS`).
    public var postLinks: Bool
    /// The human's posts and replies in the persona that share a link.
    public var humanPostsWithLinks: Int
    /// The human as the report names them (`@hanako`).
    public var human: String

    /// A context from its parts.
    public init(botState: [String: String], postLinks: Bool, humanPostsWithLinks: Int, human: String) {
        self.botState = botState
        self.postLinks = postLinks
        self.humanPostsWithLinks = humanPostsWithLinks
        self.human = human
    }
}

/// A run as a fake recorded it, in the demo report's words.
public struct FakeRun: Sendable {
    /// What clients did during the run.
    public var record: FakeRecord
    /// What the bot did not do, and why, one line each.
    public var notDone: [String]
    /// The network's bill for the run; nil where its API is free.
    public var bill: Bill?

    /// A bill as the fake made it.
    public struct Bill: Sendable {
        /// The line above the bill's lines.
        public var heading: String
        /// One line per billed period.
        public var lines: [String]
        /// The whole bill in US dollars.
        public var estimatedCost: Double
        /// Where the prices come from.
        public var source: String

        /// A bill from its parts.
        public init(heading: String, lines: [String], estimatedCost: Double, source: String) {
            self.heading = heading
            self.lines = lines
            self.estimatedCost = estimatedCost
            self.source = source
        }
    }

    /// A run from its parts.
    public init(record: FakeRecord, notDone: [String], bill: Bill? = nil) {
        self.record = record
        self.notDone = notDone
        self.bill = bill
    }

    /// A run on a network whose API is free: what the bot's state says of likes, the links `POST_LINKS=false` kept
    /// back, and `neverCopied`, what the network's module never copies.
    public static func free(after: Data, before: Data?, context: FakeReportContext, neverCopied: String) throws -> FakeRun {
        var record = try FakeRecord.decode(after)
        if let before { record = record.since(try FakeRecord.decode(before)) }
        var lines: [String] = []
        if let status = context.botState["likes.status"] { lines.append(status) }
        if !context.postLinks {
            lines.append(
                "links: \(context.humanPostsWithLinks) of \(context.human)'s posts and replies share a link; POST_LINKS=false kept them back")
        }
        lines.append(lines.isEmpty ? "nothing held back but \(neverCopied)" : neverCopied)
        return FakeRun(record: record, notDone: lines)
    }
}

/// What a fake recorded (its `/admin/state`): the posts and likes clients made, requests and posts served by
/// endpoint, and the ids the network gave the persona's posts and accounts.
public struct FakeRecord: Decodable, Sendable {
    /// A like a client made.
    public struct Like: Codable, Sendable, Equatable {
        /// Who liked (their persona id where they have one).
        public var accountID: String
        /// What (its persona id where it has one).
        public var postID: String
        /// A like from its parts.
        public init(accountID: String, postID: String) {
            self.accountID = accountID
            self.postID = postID
        }
        enum CodingKeys: String, CodingKey {
            case accountID = "account_id"
            case postID = "post_id"
        }
    }

    /// Posts made through the API, in order.
    public var posted: [FakePersona.Post]
    /// Likes made through the API, in order.
    public var liked: [Like]
    /// Requests by endpoint.
    public var requests: [String: Int]
    /// Posts returned by endpoint.
    public var served: [String: Int]
    /// Ids the bot knows things by on the network → their persona ids; empty where the network uses the persona's.
    public var aliases: [String: String]

    enum CodingKeys: String, CodingKey { case posted, liked, requests, served, aliases }

    /// A record from its parts.
    public init(posted: [FakePersona.Post], liked: [Like], requests: [String: Int], served: [String: Int], aliases: [String: String] = [:]) {
        self.posted = posted
        self.liked = liked
        self.requests = requests
        self.served = served
        self.aliases = aliases
    }

    /// Decodes `/admin/state` (`served` and `aliases` may be absent).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        posted = try container.decode([FakePersona.Post].self, forKey: .posted)
        liked = try container.decode([Like].self, forKey: .liked)
        requests = try container.decode([String: Int].self, forKey: .requests)
        served = try container.decodeIfPresent([String: Int].self, forKey: .served) ?? [:]
        aliases = try container.decodeIfPresent([String: String].self, forKey: .aliases) ?? [:]
    }

    /// Decodes `/admin/state`.
    public static func decode(_ data: Data) throws -> FakeRecord { try decoder().decode(FakeRecord.self, from: data) }

    /// A decoder for the fakes' admin bodies: times in ISO 8601, with or without fractions of a second.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            if let date = formatter.date(from: text) ?? ISO8601DateFormatter().date(from: text) { return date }
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not ISO 8601: \(text)"))
        }
        return decoder
    }

    /// What was recorded after `earlier` (the calls of a run, without the training before it).
    public func since(_ earlier: FakeRecord) -> FakeRecord {
        FakeRecord(
            posted: Array(posted.dropFirst(earlier.posted.count)), liked: Array(liked.dropFirst(earlier.liked.count)),
            requests: Self.minus(requests, earlier.requests), served: Self.minus(served, earlier.served), aliases: aliases)
    }

    /// The counts of `a` less those of `b`, leaving out what did not grow.
    static func minus(_ a: [String: Int], _ b: [String: Int]) -> [String: Int] {
        a.reduce(into: [:]) { result, entry in
            let value = entry.value - (b[entry.key] ?? 0)
            if value > 0 { result[entry.key] = value }
        }
    }
}
