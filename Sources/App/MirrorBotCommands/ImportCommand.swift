import ArchiveImport
import ArgumentParser
import BotAssembly
import BotConfiguration
import Consent
import Foundation
import Stores

/// `mirror_bot import PATH`: trains from the human's downloaded archive (X's or Mastodon's), without reading posts
/// from the API.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract:
            "Imports the human's downloaded X or Mastodon archive, Bluesky repository or Misskey notes: posts into the archive, likes (X) into the favorite filter.",
        discussion: """
            PATH is the .zip from X's "Download your archive" or Mastodon's "Request your archive" (Preferences → \
            Import and export), its extracted folder, or a single tweets.js / like.js (X) or outbox.json (Mastodon); \
            or an https:// address to download it from (a presigned link: on Heroku, `heroku run mirror_bot import \
            'https://...'`), or - to read it from standard input (`heroku run --no-tty mirror_bot import - < archive.zip`). \
            Files are read a megabyte at a time, so an export of any size imports in little memory. \
            Free and not capped at 3,200 posts; reads no post from the API. Everything is read before anything is \
            stored: a malformed file stops the import and nothing is stored. Re-importing the same archive changes \
            nothing. The archive keeps the newest ARCHIVE_ROW_LIMIT posts; raise it to keep more of a long history.

            Only the person's own archive: one that names its account (X's account.js, a Mastodon outbox's actor, a \
            Bluesky repository's DID) must be the account that signed in (`mirror_bot auth <network> --account \
            human`), or another's is refused before anything is stored. One from another network than their sign-in \
            is taken on their word, noted in their consent record; another account's from that network is refused.

            Mastodon: boosts, and statuses that were followers-only, direct or behind a content warning (unless \
            POST_CW=true) are left out. A reply is filed under whom it answered by looking that account up once on \
            the person's instance (HUMAN_MASTODON_URL and HUMAN_MASTODON_TOKEN; free); without them, replies are \
            stored without a target and say so. likes.json lists only the liked statuses' addresses: run \
            `mirror_bot train classifier`, which reads the person's favourites from the API (free on Mastodon).

            Bluesky: the .car file from Settings → "Export my data", or the same from \
            'https://bsky.social/xrpc/com.atproto.sync.getRepo?did=did:plc:…' (no login; read with libcbor). Reposts, \
            quotes, posts with a label (!warn, porn, …) and posts without text are left out; shortened links are \
            written out whole from their facets; replies are filed under the DID they answered; likes are counted only \
            (the file holds their addresses). It is read whole, so it wants about as much memory as the file's size.

            Misskey: the notes-<date>.json from Settings → Import and export → Notes → Export (it arrives in the \
            person's drive). Renotes, quotes, followers-only and specified notes, notes behind a warning (unless \
            POST_CW=true) and notes of files only are left out; the MFM is kept as written. A reply is filed under \
            whom it answered by looking the note it answered up once on the person's instance (HUMAN_MISSKEY_URL and \
            HUMAN_MISSKEY_TOKEN; free). The export holds no reactions: `mirror_bot train classifier` reads them.
            """
    )

    @Argument(
        help:
            "The archive .zip, its folder, a tweets.js / like.js (X), outbox.json (Mastodon), .car (Bluesky) or notes-<date>.json (Misskey) file, an https:// address, or - for standard input."
    )
    var path: String

    func run() async throws {
        let context = try CommandContext.load()
        let configuration = context.configuration
        let path = path
        let network = configuration.networkModule
        let resolver = network.archiveAccountResolver(logger: context.logger)
        let (report, archived, calibration) = try await BotParts(configuration: configuration, logger: context.logger).withRunning { parts in
            // An archive is imported only for a person who signed in as themselves.
            let gate = PersonConsentGate(configuration: configuration, stores: parts.database, logger: context.logger)
            let consent = try await gate.require(for: "import", readsPerson: false, now: Date())
            let archive = parts.archive
            let classifier = try parts.classifier()
            // Where the archive names its account, it must be the person's (checked before anything is stored).
            let importer = ArchiveImporter(
                archive: archive, classifier: classifier, copyingWarnings: network.copiesContentWarnings,
                resolveAccount: resolver, networkIDs: parts.database.networkIDs, personLikes: parts.database.likes,
                checkOwner: { owner in
                    if case .someoneElse(let why) = Self.ownership(of: owner, for: consent) { throw ImportError(file: path, reason: why) }
                })
            let report = try await ExportSource.withLocalPath(path) { local in try await importer.importExport(at: local) }
            if let owner = report.owner, case .elsewhere(let key) = Self.ownership(of: owner, for: consent) {
                var kept = consent
                if !(kept.archivesFromElsewhere ?? []).contains(key) {
                    kept.archivesFromElsewhere = (kept.archivesFromElsewhere ?? []) + [key]
                    try await gate.records.keep(kept)
                }
                print(
                    "The archive is \(owner)'s, on \(owner.network), where the person did not sign in (they signed in on \(consent.network) as @\(consent.personHandle)): "
                        + "imported as theirs on their word and noted in their consent record; an archive of another \(owner.network) account will be refused."
                )
            }
            let calibration = report.likesLearned > 0 ? try await calibrationLine(classifier, configuration, parts.database) : nil
            return (report, try await archive.count(), calibration)
        }
        if report.isMastodon {
            print(Self.mastodonSummary(report, archived: archived, resolving: resolver != nil))
        } else if report.isBluesky {
            print(Self.blueskySummary(report, archived: archived))
        } else if report.isMisskey {
            print(Self.misskeySummary(report, archived: archived, resolving: resolver != nil))
        } else {
            print(
                "Imported \(report.tweetsStored) new tweets (\(report.tweetsRead) read, \(report.retweetsSkipped) retweets skipped) "
                    + "and learned \(report.likesLearned) new likes (\(report.likesRead) read, \(report.likesWithoutText) without text). "
                    + "The archive holds \(archived) tweets.")
        }
        if let calibration { print(calibration) }
        if report.tweetsRead - report.retweetsSkipped - report.notCopied > configuration.storage.archiveRowLimit {
            print("Only the newest \(configuration.storage.archiveRowLimit) are kept (ARCHIVE_ROW_LIMIT); raise it to keep more.")
        }
    }

    /// What a Bluesky repository's import did, in words.
    /// Whether the archive of `owner` is the person's who gave `consent`.
    static func ownership(of owner: ArchiveOwner, for consent: PersonConsent) -> ArchiveOwnership {
        consent.ownership(ofArchiveOf: owner.account, on: owner.network, handle: owner.handle, mastodon: owner.mastodonAcct)
    }

    static func blueskySummary(_ report: ArchiveImporter.Report, archived: Int) -> String {
        var lines = [
            "Imported \(report.tweetsStored) new posts (\(report.tweetsRead) read: \(report.retweetsSkipped) reposts skipped, "
                + "\(report.notCopied) never copied: labelled, quotes or without text). The archive holds \(archived) posts."
        ]
        if report.recordsMissing > 0 {
            lines.append("\(report.recordsMissing) records the export names are not in the file (a partial export?): they were left out.")
        }
        if report.likesRead > 0 {
            lines.append(
                "The export lists \(report.likesRead) likes by address only, so none was learned; the bot does not like on Bluesky unless LIKES=on.")
        }
        return lines.joined(separator: "\n")
    }

    /// What a Misskey notes export's import did, in words.
    static func misskeySummary(_ report: ArchiveImporter.Report, archived: Int, resolving: Bool) -> String {
        var lines = [
            "Imported \(report.tweetsStored) new notes (\(report.tweetsRead) read: \(report.retweetsSkipped) renotes and quotes skipped, "
                + "\(report.notCopied) never copied: followers-only, specified, behind a warning or files only). The archive holds \(archived) posts."
        ]
        if report.noteLookups > 0 {
            lines.append("Replies filed under whom they answered: \(report.noteLookups) notes looked up on the person's instance.")
        }
        if report.repliesWithoutTarget > 0 {
            lines.append(
                "\(report.repliesWithoutTarget) replies are stored without whom they answered"
                    + (resolving
                        ? " (the notes they answered are gone or hidden)"
                        : ": set HUMAN_MISSKEY_URL and HUMAN_MISSKEY_TOKEN before importing to look them up")
                    + "; the bot answers no one with them (REPLY_FALLBACK=any may).")
        }
        lines.append("The export holds no reactions: run `mirror_bot train classifier` to learn the person's (free on Misskey).")
        return lines.joined(separator: "\n")
    }

    /// What a Mastodon export's import did, in words.
    static func mastodonSummary(_ report: ArchiveImporter.Report, archived: Int, resolving: Bool) -> String {
        var lines = [
            "Imported \(report.tweetsStored) new statuses (\(report.tweetsRead) read: \(report.retweetsSkipped) boosts skipped, "
                + "\(report.notCopied) never copied: followers-only, direct or behind a content warning). The archive holds \(archived) posts."
        ]
        if report.accountLookups > 0 {
            lines.append("Replies filed under whom they answered: \(report.accountLookups) accounts looked up on the person's instance.")
        }
        if report.repliesWithoutTarget > 0 {
            lines.append(
                "\(report.repliesWithoutTarget) replies are stored without whom they answered"
                    + (resolving
                        ? " (the person's instance does not know those accounts)"
                        : ": set HUMAN_MASTODON_URL and HUMAN_MASTODON_TOKEN before importing to look them up")
                    + "; the bot answers no one with them (REPLY_FALLBACK=any may).")
        }
        if report.likesRead > 0 {
            lines.append(
                "likes.json lists \(report.likesRead) liked statuses by address only, so none was learned: run `mirror_bot train classifier` (free on Mastodon)."
            )
        }
        return lines.joined(separator: "\n")
    }
}
