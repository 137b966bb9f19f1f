import ArchiveImport
import BotClock
import BotConfiguration
import BotCore
import Consent
import Crypto
import ExportFormats
public import Fleet
public import Foundation
public import FrontDoor
public import Logging
import NetworkRegistry
import Picking
import RedisClient
import RedisWordCounts
import Remix
import Schedule
import SocialNetwork
import Stores
import Tokenizer

/// The front door's mirrors as the fleet's bots (`DoorMirrors`): a person's mirror is the bot named after their
/// account (`door-` and 16 hex digits of its SHA-256: the same person always finds the same bot, and nobody finds it
/// by a name they send), its settings their two sign-ins and their choices sealed with `FLEET_KEY`, its consent
/// record in its own stores. Made paused; the person starts and pauses it; deleting it removes its row, its schema
/// with every store, and its word counts.
public struct FleetDoorMirrors: DoorMirrors {
    /// The fleet's administration (sharing one pool in `mirror_bot web`).
    public let bots: FleetBots
    /// What seals a bot's settings.
    public let key: FleetKey
    /// The log.
    public let logger: Logger
    /// The most mirrors the door makes (`DOOR_MAX_MIRRORS`): those made and not deleted.
    public var maxMirrors = 100

    /// Why a mirror just made is paused.
    public static let notStartedYet = "not started yet: its person starts it from their page"
    /// Why a mirror its person paused is.
    public static let pausedByItsPerson = "paused by its person"
    /// Why a mirror is paused while it is deleted.
    static let beingDeleted = "being deleted by its person"

    /// The mirrors of `bots`' fleet, sealed with `key`.
    public init(bots: FleetBots, key: FleetKey, logger: Logger) {
        self.bots = bots
        self.key = key
        self.logger = logger
    }

    /// The fleet's name of `person`'s mirror.
    public static func botName(of person: DoorAccount) -> String {
        let digest = SHA256.hash(data: Data("\(person.network)\n\(person.account)".utf8))
        return "door-" + digest.prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    public func mirror(of person: DoorAccount) async throws -> DoorMirror? {
        try await bots.withStores(of: Self.botName(of: person)) { bot, stores in
            let consent = try await ConsentRecords(state: stores.state).current()
            let running = bot.holder != nil && (bot.leaseExpiresAt ?? .distantPast) > Date()
            // Its sealed settings opened once: the configuration, and the zone and visibility as its person chose them.
            let sealed = try key.open(bot.sealedSettings, bot: bot.name)
            let configuration = try configuration(of: bot, settings: sealed)
            let choices = MirrorChoices(
                timeZone: sealed["TZ"] ?? configuration.behaviour.timeZone.identifier, style: configuration.postStyle == .remix ? .remix : .copy,
                likes: configuration.behaviour.likes != .off, visibility: sealed["POST_VISIBILITY"].flatMap(MirrorChoices.Visibility.init),
                blockedWords: configuration.consent.blockedWords)
            var shown = DoorMirror(
                bot: consent?.botAccount ?? bot.name, pausedBecause: bot.pauseReason.map(Self.shown), isRunning: running && bot.pauseReason == nil,
                consent: consent?.summary, lately: try await lately(of: bot, stores: stores, configuration: configuration), choices: choices)
            // Paused by someone else, and not by them too: they may pause it as well, so that it stays paused after.
            shown.canPause = bot.pauseReason.map { !Self.isHeldByItsPerson($0) } ?? true
            shown.canStart = bot.pauseReason.map(Self.personsReasons.contains) ?? false
            return shown
        }
    }

    /// How many of a mirror's latest actions its page shows.
    static let latelyShown = 12

    /// The mirror's latest actions as its person reads them: each copy's text from the archive, each post's address
    /// on the network, times in the mirror's zone (its sealed settings say which).
    func lately(of bot: FleetBot, stores: any StoreSet, configuration: Configuration) async throws -> [DoorMirror.Action] {
        let actions = try await stores.actions.page(limit: Self.latelyShown)
        guard !actions.isEmpty else { return [] }
        let links = configuration.networkModule.postLinks
        let copied = actions.filter(\.copiedThePerson).compactMap(\.sourceID).map { PostID($0) }
        let texts = Dictionary(try await stores.archive.posts(withIDs: copied).map { ($0.postID.text, $0.text) }) { first, _ in first }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = configuration.behaviour.timeZone
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return actions.map { action in
            let kind: DoorMirror.Action.Kind =
                switch action.kind {
                case .posted: .posted
                case .skipped: .skipped
                case .replied: .answered
                case .notReplied: .notAnswered
                case .liked: .liked
                }
            return DoorMirror.Action(
                kind: kind, at: formatter.string(from: action.at), text: action.copiedThePerson ? action.sourceID.flatMap { texts[$0] } : nil,
                link: action.postID.flatMap(links.botSide), reason: kind == .posted || kind == .answered || kind == .liked ? nil : action.reason)
        }
    }

    public func create(
        person: DoorAccount, personSignIn: DoorSignIn, bot: DoorAccount, botSignIn: DoorSignIn, choices: MirrorChoices, invitation: String?,
        how: String, now: Date
    ) async throws -> DoorMirror {
        let name = Self.botName(of: person)
        // The operator's quota: the door's mirrors now, against the most it makes.
        let made = try await bots.withRegistry { try await $0.bots().filter { $0.name.hasPrefix("door-") }.count }
        guard made < maxMirrors else {
            logger.warning("fleet: a mirror was refused at the front door: \(made) made, DOOR_MAX_MIRRORS is \(maxMirrors)")
            throw DoorMirrorRefused("This door has made as many mirrors as its operator allows for now (\(maxMirrors)): try again another day.")
        }
        // The invitation is used first (one statement: two people cannot both use it), and given back if no mirror comes of it.
        let digest = invitation.map(FleetDoorOperations.digest(ofInvitation:))
        if let digest {
            guard try await bots.withRegistry({ try await $0.useInvitation(codeDigest: digest, for: name) }) else {
                throw DoorMirrorRefused(FleetDoorOperations.invitationNotOpen)
            }
        }
        do {
            return try await make(
                name: name, person: person, personSignIn: personSignIn, bot: bot, botSignIn: botSignIn, choices: choices, how: how, now: now)
        } catch {
            if let digest { try? await bots.withRegistry { try await $0.returnInvitation(codeDigest: digest) } }
            throw error
        }
    }

    /// `create`'s making of the bot `name`, once the quota and the invitation allow it.
    private func make(
        name: String, person: DoorAccount, personSignIn: DoorSignIn, bot: DoorAccount, botSignIn: DoorSignIn, choices: MirrorChoices, how: String,
        now: Date
    ) async throws -> DoorMirror {
        var settings = [
            "NETWORK": person.network, "TZ": choices.timeZone, "POST_STYLE": choices.style.rawValue, "LIKES": choices.likes ? "auto" : "off",
        ]
        for (variable, value) in Self.settings(of: choices) where !value.isEmpty { settings[variable] = value }
        for (variable, value) in personSignIn.variables + botSignIn.variables { settings[variable] = value }
        // A sign-in kept in the store is sealed there with FLEET_KEY, as the fleet seals every bot's sessions.
        let keepings = [personSignIn.keeping, botSignIn.keeping].compactMap { $0 }
        let sealer = KeySealer(key: key)
        let logger = logger
        do {
            _ = try await bots.add(name: name, settings: settings, key: key, pausedBecause: Self.notStartedYet) { configuration, stores in
                let gate = PersonConsentGate(configuration: configuration, stores: stores, logger: logger)
                for keep in keepings { try await keep(stores.state, sealer) }
                let verified = VerifiedPerson(account: person.account, handle: person.handle, credential: personSignIn.variables.last?.name ?? "")
                try await gate.recordSignIn(verified, how: how, credentials: configuration.networkModule.personCredentials, now: now)
                try await gate.records.noteBot("@\(bot.handle) (\(bot.account))")
            }
        } catch FleetError.nameTaken {
            throw DoorMirrorRefused("You have a mirror already: it is on your page.")
        } catch let error as ConfigurationError {
            // The variables a sign-in gave do not make a whole configuration: said without their values.
            throw DoorMirrorRefused("Your mirror could not be made from these sign-ins: \(error.withoutValues.description)")
        }
        logger.notice("fleet: the bot \(name) was made at the front door for a person on \(person.networkName), paused until they start it")
        // Made: nothing after this throws (the sign-ins and the invitation are the mirror's now).
        if let mirror = try? await mirror(of: person) { return mirror }
        logger.warning("fleet: the bot \(name) was made, then could not be read back; its person's page reads it again")
        return DoorMirror(bot: "@\(bot.handle)", pausedBecause: Self.notStartedYet, isRunning: false, consent: nil)
    }

    public func change(_ choices: MirrorChoices, of person: DoorAccount) async throws -> DoorMirror? {
        let name = Self.botName(of: person)
        let changes = ["TZ": choices.timeZone, "POST_STYLE": choices.style.rawValue, "LIKES": choices.likes ? "auto" : "off"]
            .merging(Self.settings(of: choices)) { $1 }
        guard let configuration = try await bots.changeSettings(of: name, changes, key: key) else { return nil }
        // What the person agrees to follows what they chose.
        _ = try await bots.withStores(of: name) { _, stores in
            let records = ConsentRecords(state: stores.state)
            guard var consent = try await records.current(), !consent.isWithdrawn else { return }
            consent.agreedTo = PersonConsentGate.uses(of: configuration)
            try await records.keep(consent)
        }
        logger.notice(
            "fleet: the bot \(name)'s person changed their choices at the front door (\(choices.style.rawValue), likes \(choices.likes ? "on" : "off")); it starts again with them"
        )
        return try await mirror(of: person)
    }

    /// The settings of the choices beyond the zone, the style and likes: who sees the posts (where the network's posts
    /// say so) and the blocked words; an empty value where there is none (a change removes it).
    static func settings(of choices: MirrorChoices) -> [String: String] {
        ["POST_VISIBILITY": choices.visibility?.rawValue ?? "", "BLOCKED_WORDS": choices.blockedWords.joined(separator: ",")]
    }

    /// Whether the pause `reason` holds the person's own (theirs, or the operator's or a failure's over theirs).
    static func isHeldByItsPerson(_ reason: String) -> Bool {
        personsReasons.contains(reason) || personsReasons.contains { reason.hasSuffix(FleetBots.under + $0) }
    }

    /// The reasons a person may lift: their own pause, and the one a mirror is made with.
    static let personsReasons: Set<String> = [notStartedYet, pausedByItsPerson]

    /// A pause as its person reads it: theirs as it is; the operator's or a failure's in a sentence (its text may name
    /// the fleet's inner parts, which are not the person's to read).
    static func shown(_ reason: String) -> String {
        personsReasons.contains(reason) ? reason : "paused by the operator or after a failure; the operator can say why and start it again"
    }

    public func setPaused(_ paused: Bool, of person: DoorAccount) async throws -> DoorMirror? {
        let name = Self.botName(of: person)
        // A person starts what they paused, or what was never started; an operator's pause, or a failure's, is the
        // operator's to lift, and the person's own pause goes under it (it stays when the operator lifts theirs).
        let changed = try await bots.changePause(of: name) { current -> String?? in
            guard let current else { return paused ? .some(Self.pausedByItsPerson) : .none }
            if Self.personsReasons.contains(current) { return paused ? .none : .some(nil) }
            if paused { return Self.isHeldByItsPerson(current) ? .none : .some(current + FleetBots.under + Self.pausedByItsPerson) }
            throw DoorMirrorRefused("Your mirror was paused by the operator or after a failure: only the operator can start it again.")
        }
        guard changed != nil else { return nil }
        return try await mirror(of: person)
    }

    /// What a person downloads: everything their mirror keeps of them.
    struct Takeout: Encodable {
        struct Post: Encodable {
            var id: String
            var text: String
            var createdAt: Date
            var inReplyToAccount: String?
            var contentWarning: String?
        }
        struct Example: Encodable {
            var postID: String
            var text: String
            var author: String?
            var label: String
            var source: String
            var learnedAt: Date
        }
        struct Like: Encodable {
            var postID: String
            var authorID: String?
            var reason: String
            var likedAt: Date
        }
        struct Action: Encodable {
            var kind: String
            var at: Date
            var postID: String?
            var sourceID: String?
            var reason: String?
        }
        var madeAt: Date
        var network: String
        var account: String
        var handle: String
        var consent: PersonConsent?
        var posts: [Post]
        var trainingExamples: [Example]
        var likes: [Like]
        var actions: [Action]
    }

    /// The most of each kind a download holds (an archive is capped well below).
    static let takeoutLimit = 1_000_000

    public func download(of person: DoorAccount, now: Date) async throws -> Data? {
        try await bots.withStores(of: Self.botName(of: person)) { _, stores in
            let takeout = Takeout(
                madeAt: now, network: person.networkName, account: person.account, handle: person.handle,
                consent: try await ConsentRecords(state: stores.state).current(),
                posts: try await stores.archive.newest(limit: Self.takeoutLimit).map {
                    .init(
                        id: $0.postID.text, text: $0.text, createdAt: $0.createdAt, inReplyToAccount: $0.replyUserID?.text,
                        contentWarning: $0.contentWarning)
                },
                trainingExamples: try await stores.examples.all().map {
                    .init(postID: $0.postID, text: $0.text, author: $0.author, label: $0.label, source: $0.source, learnedAt: $0.learnedAt)
                },
                likes: try await stores.likes.likes().map {
                    .init(postID: $0.postID.text, authorID: $0.authorID?.text, reason: $0.reason, likedAt: $0.likedAt)
                },
                actions: try await stores.actions.page(limit: Self.takeoutLimit).map {
                    .init(kind: $0.kind.rawValue, at: $0.at, postID: $0.postID, sourceID: $0.sourceID, reason: $0.reason)
                })
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            encoder.keyEncodingStrategy = .convertToSnakeCase
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            return try encoder.encode(takeout)
        }
    }

    /// The time zone of `bot` as its person chose it (`UTC`, which Foundation names `GMT`).
    func zoneName(of bot: FleetBot, _ configuration: Configuration) throws -> String {
        try key.open(bot.sealedSettings, bot: bot.name)["TZ"] ?? configuration.behaviour.timeZone.identifier
    }

    /// The configuration of `bot`, from its sealed settings and the process's shared ones.
    func configuration(of bot: FleetBot) throws -> Configuration {
        try configuration(of: bot, settings: try key.open(bot.sealedSettings, bot: bot.name))
    }

    /// The configuration of `bot` from its `settings` opened already, and the process's shared ones.
    func configuration(of bot: FleetBot, settings: [String: String]) throws -> Configuration {
        try Configuration(environment: FleetBotSettings.environment(of: bot.name, settings: settings, process: bots.environment))
    }

    public func archiveCount(of person: DoorAccount) async throws -> Int? {
        try await bots.withStores(of: Self.botName(of: person)) { _, stores in try await stores.archive.count() }
    }

    public func importArchive(of person: DoorAccount, at path: String, now: Date) async throws -> DoorImport? {
        let logger = logger
        let settings = { (bot: FleetBot) throws -> StoreSettings in
            let configuration = try configuration(of: bot)
            return StoreSettings(timeZone: configuration.behaviour.timeZone, archiveRowLimit: configuration.storage.archiveRowLimit)
        }
        return try await bots.withStores(of: Self.botName(of: person), settings: settings) { bot, stores in
            let configuration = try configuration(of: bot)
            guard let consent = try await ConsentRecords(state: stores.state).current(), !consent.isWithdrawn else {
                throw DoorMirrorRefused("Your mirror holds no consent of yours in force: sign in again to make it anew.")
            }
            guard let redis = configuration.storage.redis else {
                throw DoorMirrorRefused("This fleet keeps no word counts (REDIS_URL is not set): an archive cannot be imported here.")
            }
            let connection: any RedisPipelining =
                configuration.storage.redisCluster
                ? RedisClusterConnection(seed: redis, certificateAuthority: configuration.storage.redisTLSCertificateAuthority)
                : RedisConnection(url: redis, certificateAuthority: configuration.storage.redisTLSCertificateAuthority)
            defer { connection.close() }
            let classifier = BotParts.classifier(
                on: RedisWordCounts(connection: connection, keyPrefix: configuration.storage.redisKeys), tokenizer: try PostTokenizer(),
                configuration: configuration, examples: stores.examples, logger: logger)
            let module = configuration.networkModule
            let resolver = module.archiveAccountResolver(logger: logger)
            let importer = ArchiveImporter(
                formats: NetworkRegistry.exportFormats, archive: stores.archive, classifier: classifier,
                copyingWarnings: module.copiesContentWarnings,
                resolveAccount: resolver, personLikes: stores.likes,
                checkOwner: { owner in
                    let ownership = consent.ownership(
                        ofArchiveOf: owner.account, on: owner.network, handle: owner.handle, actorAddress: owner.actorAddress)
                    if case .someoneElse(let why) = ownership { throw DoorMirrorRefused("This archive cannot be imported: \(why).") }
                })
            let report: ImportReport
            do {
                report = try await importer.importExport(at: path)
            } catch let error as ImportError {
                // The file as the person named it, not where this machine kept it.
                let folder = (path as NSString).deletingLastPathComponent + "/"
                throw DoorMirrorRefused(
                    ImportError(file: error.file.replacingOccurrences(of: folder, with: ""), reason: error.reason).description)
            }
            if let owner = report.owner,
                case .elsewhere(let key) = consent.ownership(
                    ofArchiveOf: owner.account, on: owner.network, handle: owner.handle, actorAddress: owner.actorAddress)
            {
                var kept = consent
                if !(kept.archivesFromElsewhere ?? []).contains(key) {
                    kept.archivesFromElsewhere = (kept.archivesFromElsewhere ?? []) + [key]
                    try await ConsentRecords(state: stores.state).keep(kept)
                }
            }
            let archived = try await stores.archive.count()
            let summary =
                importer.format(of: report)?.summary(of: report, archived: archived, resolving: resolver != nil)
                ?? "Read \(report.postsRead) posts; the archive holds \(archived)."
            logger.notice(
                "fleet: the bot \(bot.name)'s person imported an archive at the front door: \(report.postsStored) posts stored, \(report.likesLearned) likes learned"
            )
            return DoorImport(summary: summary, archived: archived)
        }
    }

    /// How many posts a preview shows.
    static let previewSamples = 12
    /// How many of the people the person answers most a preview answers.
    static let previewReplies = 3
    /// How many of the person's newest posts are counted for whom they answer most.
    static let previewRepliesCounted = 2_000

    public func preview(of person: DoorAccount, now: Date) async throws -> DoorPreview? {
        let name = Self.botName(of: person)
        let settings = { (bot: FleetBot) throws -> StoreSettings in
            let configuration = try configuration(of: bot)
            return StoreSettings(timeZone: configuration.behaviour.timeZone, archiveRowLimit: configuration.storage.archiveRowLimit)
        }
        let logger = logger
        return try await bots.withStores(of: name, settings: settings) { bot, stores in
            let configuration = try configuration(of: bot)
            let daemon = configuration.daemonSettings
            let zone = daemon.timeZone
            let archive = stores.archive
            let capabilities = configuration.networkModule.capabilities
            let day = SchedulePlanner.day(of: now, in: zone)
            // The same draws all day: a person who opens the page again sees the same preview.
            var generator = SplitMix64(seed: SHA256.hash(data: Data("\(name)\n\(day)".utf8)).prefix(8).reduce(0) { $0 << 8 | UInt64($1) })
            let planner = SchedulePlanner(archive: archive, maxPostsPerDay: daemon.maxPostsPerDay)
            let plan = try await planner.plan(for: day, using: &generator)
            let histogram = try await archive.minuteHistogram(includingReplies: false)
            let hours = (0..<24).map { hour in histogram[(hour * 60)..<(hour * 60 + 60)].reduce(0, +) }
            let remixer =
                daemon.postStyle == .remix
                ? Remixer(
                    tokenizer: try PostTokenizer(), order: daemon.remixOrder, maxOverlap: daemon.remixMaxOverlap, length: capabilities.postLength)
                : nil
            // A preview is quiet in the log: the picker's own lines are for the daemon.
            var quiet = logger
            quiet.logLevel = .error
            let picker = PostPicker(
                archive: archive, repostAfterDays: daemon.repostAfterDays, allowsMentions: daemon.postMentions, allowsLinks: daemon.postLinks,
                repeatWindow: capabilities.refusesRepeatsWithin, blockedWords: daemon.blockedWords, remixer: remixer, logger: quiet)
            // Today's slots still to come, then the next days' plans, until a dozen.
            var slots: [(day: String, minute: Int)] = plan.minutes.filter { minute in
                (LocalTime.date(of: minute, on: day, in: zone) ?? now) >= now
            }.map { (day, $0) }
            var next = now
            for _ in 0..<7 where slots.count < Self.previewSamples {
                next = next.addingTimeInterval(86_400)
                let later = SchedulePlanner.day(of: next, in: zone)
                slots += try await planner.plan(for: later, using: &generator).minutes.map { (later, $0) }
            }
            var samples: [DoorPreview.Sample] = []
            var shown: Set<PostID> = []
            for slot in slots.prefix(Self.previewSamples) {
                let at = "\(slot.day) \(LocalTime.clockTime(slot.minute))"
                guard let date = LocalTime.date(of: slot.minute, on: slot.day, in: zone) else { continue }
                switch try await picker.choose(at: date, excluding: shown, using: &generator) {
                case .success(let pick):
                    shown.insert(pick.post.postID)
                    let sources = pick.remix?.sourceIDs ?? [pick.post.postID]
                    let texts = try await archive.posts(withIDs: Array(sources.prefix(5))).map(\.text)
                    samples.append(.init(at: at, text: pick.text, sources: texts))
                case .failure(let nothing):
                    samples.append(.init(at: at, text: nil, sources: [], reason: nothing.description))
                }
            }
            // Whom the person answers most, among their newest posts, and what the mirror would answer each.
            let replyPicker = ReplyPicker(archive: archive, fallback: .none, allowsLinks: daemon.postLinks, blockedWords: daemon.blockedWords)
            var answered: [AccountID: Int] = [:]
            for post in try await archive.newest(limit: Self.previewRepliesCounted) {
                if let user = post.replyUserID { answered[user, default: 0] += 1 }
            }
            var replies: [DoorPreview.Reply] = []
            for (user, _) in answered.sorted(by: { $0.value != $1.value ? $0.value > $1.value : $0.key.text < $1.key.text })
                .prefix(Self.previewReplies)
            {
                let handle = try await replyPicker.handle(ofUser: user)
                guard let pick = try await replyPicker.pick(forAuthor: user, handle: handle, using: &generator) else { continue }
                replies.append(.init(to: handle.map { "@" + $0 } ?? user.text, text: pick.text))
            }
            var likes: String?
            if daemon.likes != .off {
                if let why = capabilities.whyNoLikes, daemon.likes == .auto {
                    likes = "none: \(why)"
                } else {
                    let basis = try await LikePlanner(likes: stores.likes, archive: archive).plan(for: day, using: &generator).basis
                    likes =
                        basis.countsFromPosts
                        ? "as many a day as you post, none of your likes being known yet"
                        : String(format: "about %.1f a day, as you like (from %d of your likes)", basis.meanPerDay, basis.likes)
                }
            }
            return DoorPreview(
                day: day, timeZone: try zoneName(of: bot, configuration), postsLearned: try await archive.count(), hours: hours,
                planned: plan.minutes,
                style: daemon.postStyle == .remix ? .remix : .copy, samples: samples, replies: replies, likes: likes)
        }
    }

    public func delete(of person: DoorAccount, now: Date) async throws -> DoorDeletion? {
        let name = Self.botName(of: person)
        guard let bot = try await bots.withRegistry({ try await $0.bot(named: name) }) else { return nil }
        // Paused first, and let go by the process that runs it (within its lease's length), so that nothing of it is
        // written after the deletion; a process that does not let go in time is fenced off by the row's removal.
        if bot.pauseReason == nil { try await bots.withRegistry { _ = try await $0.setPaused(name, reason: Self.beingDeleted) } }
        let deadline = ContinuousClock.now + .seconds(bots.configuration.fleet.leaseSeconds + 5)
        while ContinuousClock.now < deadline, let held = try await bots.withRegistry({ try await $0.bot(named: name) }),
            held.holder != nil, (held.leaseExpiresAt ?? .distantPast) > Date()
        {
            try await Task.sleep(for: .milliseconds(250))
        }
        // The sign-ins the network can take back are given back before their tokens go with the stores.
        let key = key
        let logger = logger
        var released: [Account] = []
        do {
            released =
                try await bots.withStores(of: name) { bot, stores in
                    let module = try configuration(of: bot).networkModule
                    return await module.releaseKeptSignIns(state: stores.state, sealer: KeySealer(key: key), logger: logger)
                } ?? []
        } catch {
            logger.warning("fleet: the bot \(name)'s sign-ins could not be given back before its deletion (\(error)); it is deleted all the same")
        }
        let keys: Int
        do {
            keys = try await bots.remove(name: name)
        } catch FleetError.noSuchBot {
            return nil
        }
        // The name is made from the person's account: the operator's records keep what was done, not whose it was.
        do { try await bots.withRegistry { try await $0.forgetName(of: name) } } catch {
            logger.warning("fleet: the deleted bot's name could not be taken out of the audit log and the invitations (\(error))")
        }
        logger.notice(
            "fleet: the bot \(name) was deleted at its person's word from the front door (\(keys) word-count keys; sign-ins taken back on the network: \(released.isEmpty ? "none" : released.map(\.rawValue).joined(separator: ", ")))"
        )
        return DoorDeletion(
            schema: bot.schema, keys: keys, networkName: person.networkName, at: now, revoked: Set(released) == Set(Account.allCases))
    }
}
