public import Foundation
public import Stores

/// The person's consent to be mirrored: who signed in (the account as the network identifies it, never a handle, which
/// changes), when and how, for which bot, and what they agreed to; and, once they withdrew, when and how. Nothing of
/// the person is learned, posted, answered or liked without a record that is not withdrawn.
public struct PersonConsent: Sendable, Equatable, Codable {
    /// What the person agreed to.
    public enum Use: String, Sendable, Equatable, Codable, CaseIterable {
        /// Their posts are learned (their hours, their replies to whom).
        case learnPosts = "learn posts"
        /// Their likes are learned (the favorite filter).
        case learnLikes = "learn likes"
        /// Their posts are posted again as they wrote them.
        case copies
        /// Remixes of their posts are posted.
        case remixes
    }

    /// The network the person signed in on ("Mastodon").
    public var network: String
    /// The person's account as the network identifies it: an X user id, `id@instance` on Mastodon and Misskey, a DID.
    public var personAccount: String
    /// The person's handle when they signed in, for people to read (not what identifies them).
    public var personHandle: String
    /// When they signed in.
    public var signedInAt: Date
    /// How: `mirror_bot auth mastodon --account human`, or their own token in the configuration, verified.
    public var how: String
    /// The bot account the mirror posts as, as its configuration names it (nil when not known at sign-in).
    public var botAccount: String?
    /// What they agreed to.
    public var agreedTo: [Use]
    /// A digest of the person's credentials as configured when the sign-in was verified (SHA-256, never the secret
    /// itself): another credential is verified again before it is used.
    public var credentialDigest: String?
    /// When they withdrew, nil while the mirror may run.
    public var withdrawnAt: Date?
    /// How they withdrew: their grant revoked, their words by mention, `mirror_bot forget-me`.
    public var withdrawal: String?
    /// The accounts on other networks whose archives were imported for them, which their sign-in here cannot prove
    /// theirs ("X 123 @hanako"): one per network, an archive of another account there is refused.
    public var archivesFromElsewhere: [String]?

    /// A record from its parts, not withdrawn.
    public init(
        network: String, personAccount: String, personHandle: String, signedInAt: Date, how: String, botAccount: String?,
        agreedTo: [Use], credentialDigest: String?
    ) {
        self.network = network
        self.personAccount = personAccount
        self.personHandle = personHandle
        self.signedInAt = signedInAt
        self.how = how
        self.botAccount = botAccount
        self.agreedTo = agreedTo
        self.credentialDigest = credentialDigest
    }

    /// Whether the person withdrew.
    public var isWithdrawn: Bool { withdrawnAt != nil }

    /// Whether `account` (as a sign-in names it now) is the account that consented. An `id@server` account is
    /// compared with its server as DNS compares it (case, a trailing dot and a default port aside): a record written
    /// before servers were named that way (`42@Mastodon.Social:443`) is still the person's (`42@mastodon.social`).
    public func isPerson(_ account: String) -> Bool {
        Self.comparable(account) == Self.comparable(personAccount)
    }

    /// `account` with its server part (after the last @) as DNS compares it; an X id or a DID as it is.
    static func comparable(_ account: String) -> String {
        guard let at = account.lastIndex(of: "@") else { return account }
        var server = account[account.index(after: at)...].lowercased()
        for port in [":443", ":80"] where server.hasSuffix(port) { server.removeLast(port.count) }
        if server.hasSuffix(".") { server.removeLast() }
        return account[..<at] + "@" + server
    }

    /// "@alice (id 42 on Mastodon), signed in 2026-11-28T09:00:00Z by …; agreed to learn posts, copies", and the end.
    public var summary: String {
        let agreed = agreedTo.map(\.rawValue).joined(separator: ", ")
        var text = "@\(personHandle) (\(personAccount) on \(network)), signed in \(signedInAt.formatted(.iso8601)) by \(how)"
        if let botAccount { text += ", for the bot \(botAccount)" }
        text += "; agreed to: \(agreed)"
        if let elsewhere = archivesFromElsewhere, !elsewhere.isEmpty {
            text += "; archives imported on their word: \(elsewhere.joined(separator: ", "))"
        }
        if let withdrawnAt { text += "; withdrawn \(withdrawnAt.formatted(.iso8601)) (\(withdrawal ?? "no reason kept"))" }
        return text
    }
}

/// Whether an archive, by the account it names, may be imported for the person who consented.
public enum ArchiveOwnership: Sendable, Equatable {
    /// The account that signed in.
    case theirs
    /// An account on another network than the one they signed in on, which their sign-in cannot prove theirs, and no
    /// archive of another account there was imported before: imported on their word, and kept in their record (`key`).
    case elsewhere(key: String)
    /// Another account: refused, saying why.
    case someoneElse(String)
}

extension PersonConsent {
    /// Whether an archive of `account` on `network` (handle `handle`; where the archive names an actor by its address,
    /// of `username` on `server`) is the person's: the account they signed in as, on the network they signed in on; on another network, the first account
    /// there whose archive is imported for them.
    public func ownership(ofArchiveOf account: String, on network: String, handle: String?, actorAddress: (username: String, server: String)?)
        -> ArchiveOwnership
    {
        let named = handle.map { "@\($0) (\(network) \(account))" } ?? "\(account) on \(network)"
        let signedIn = "@\(personHandle) (\(personAccount) on \(self.network))"
        guard network == self.network else {
            let key = "\(network) \(account)" + (handle.map { " @\($0)" } ?? "")
            // Each kept as "<network> <account> [@handle]".
            let others = (archivesFromElsewhere ?? []).filter { kept in
                let words = kept.split(separator: " ")
                return words.count >= 2 && words[0] == network && words[1] != account
            }
            if let other = others.first {
                return .someoneElse(
                    "this archive is \(named)'s, and an archive of another \(network) account (\(other.dropFirst(network.count + 1))) was imported for the person, who signed in as \(signedIn). An archive is imported only for the person it belongs to"
                )
            }
            return .elsewhere(key: key)
        }
        let matches: Bool
        if let actorAddress {
            // An ActivityPub archive names its actor by address: the person's username on their instance (`id@instance`).
            let instance = Self.comparable(personAccount).split(separator: "@", maxSplits: 1).last.map(String.init) ?? ""
            let username = personHandle.split(separator: "@").first.map(String.init) ?? personHandle
            matches =
                Self.comparable("@" + actorAddress.server).dropFirst() == instance && actorAddress.username.lowercased() == username.lowercased()
        } else {
            matches = account == personAccount
        }
        return matches
            ? .theirs
            : .someoneElse(
                "this archive is \(named)'s, not the person's who signed in: \(signedIn). An archive is imported only for the person it belongs to")
    }
}

/// Where the person's consent is kept: one record in the bot's state (`consent.person`), which every store has
/// (Postgres, the SQLite file, memory), and which `train clear` and `forget-me` keep, to prove the end.
public struct ConsentRecords: Sendable {
    /// Where the record is kept.
    public let state: any BotState

    /// The record's name in the bot's state.
    public static let name = "consent.person"

    /// The records kept in `state`.
    public init(state: any BotState) { self.state = state }

    /// The record, nil when the person never signed in. A record that cannot be read counts as none: it is written
    /// again at the next sign-in.
    public func current() async throws -> PersonConsent? {
        guard let text = try await state.value(of: Self.name) else { return nil }
        return try? Self.decoder.decode(PersonConsent.self, from: Data(text.utf8))
    }

    /// Keeps `consent`, replacing any record.
    public func keep(_ consent: PersonConsent) async throws {
        let data = try Self.encoder.encode(consent)
        try await state.setValue(String(decoding: data, as: UTF8.self), of: Self.name)
    }

    /// Notes the bot account the mirror posts as (`@mirror (id 200)`) where the record does not say it yet or says
    /// another; nothing without a record, or once it is withdrawn. Whether it was noted.
    @discardableResult
    public func noteBot(_ account: String) async throws -> Bool {
        guard var consent = try await current(), !consent.isWithdrawn, consent.botAccount != account else { return false }
        consent.botAccount = account
        try await keep(consent)
        return true
    }

    /// Marks the record withdrawn at `date`, saying `how`, and returns it; nil when there is no record, or it was
    /// withdrawn already (the first withdrawal is kept).
    @discardableResult
    public func withdraw(at date: Date, how: String) async throws -> PersonConsent? {
        guard var consent = try await current(), !consent.isWithdrawn else { return nil }
        consent.withdrawnAt = date
        consent.withdrawal = how
        try await keep(consent)
        return consent
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
