import ArchiveImport
import ArgumentParser
import BotAssembly
import BotConfiguration
import Consent
import ExportFormats
import Foundation
import NetworkRegistry
import Stores

/// `mirror_bot import PATH`: trains from the person's own archive export, in any registered network's format,
/// without reading posts from the API.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract:
            "Imports the person's own archive export (\(ExportFiles.listing(NetworkRegistry.exportFormats))): posts into the archive, likes that carry their text into the favorite filter.",
        discussion: """
            PATH is the archive's .zip, its extracted folder, or a single data file; or an https:// address to \
            download it from (a presigned link: on Heroku, `heroku run mirror_bot import 'https://...'`), or - to read \
            it from standard input (`heroku run --no-tty mirror_bot import - < archive.zip`). \
            Files are read a megabyte at a time, so an export of any size imports in little memory. \
            Free and not capped at 3,200 posts; reads no post from the API. Everything is read before anything is \
            stored: a malformed file stops the import and nothing is stored. Re-importing the same archive changes \
            nothing. The archive keeps the newest ARCHIVE_ROW_LIMIT posts; raise it to keep more of a long history.

            Only the person's own archive: one that names its account must be the account that signed in \
            (`mirror_bot auth <network> --account human`), or another's is refused before anything is stored. One \
            from another network than their sign-in is taken on their word, noted in their consent record; another \
            account's from that network is refused.

            """ + NetworkRegistry.exportFormats.map(\.help).joined(separator: "\n\n")
    )

    @Argument(
        help:
            "The archive .zip, its folder, a data file (\(ExportFiles.listing(NetworkRegistry.exportFormats))), an https:// address, or - for standard input."
    )
    var path: String

    func run() async throws {
        let context = try CommandContext.load()
        let configuration = context.configuration
        let path = path
        let network = configuration.networkModule
        let resolver = network.archiveAccountResolver(logger: context.logger)
        let formats = NetworkRegistry.exportFormats
        let (report, archived, calibration) = try await BotParts(configuration: configuration, logger: context.logger).withRunning { parts in
            // An archive is imported only for a person who signed in as themselves.
            let gate = PersonConsentGate(configuration: configuration, stores: parts.database, logger: context.logger)
            let consent = try await gate.require(for: "import", readsPerson: false, now: Date())
            let archive = parts.archive
            let classifier = try parts.classifier()
            // Where the archive names its account, it must be the person's (checked before anything is stored).
            let importer = ArchiveImporter(
                formats: formats, archive: archive, classifier: classifier, copyingWarnings: network.copiesContentWarnings,
                resolveAccount: resolver, personLikes: parts.database.likes,
                checkOwner: { owner in
                    if case .someoneElse(let why) = Self.ownership(of: owner, for: consent) { throw ImportError(file: path, reason: why) }
                })
            let report = try await ExportSource.withLocalPath(path, formats: formats) { local in try await importer.importExport(at: local) }
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
        if let format = formats.first(where: { $0.network == report.network }) {
            print(format.summary(of: report, archived: archived, resolving: resolver != nil))
        }
        if let calibration { print(calibration) }
        if report.postsRead - report.repostsSkipped - report.notCopied > configuration.storage.archiveRowLimit {
            print("Only the newest \(configuration.storage.archiveRowLimit) are kept (ARCHIVE_ROW_LIMIT); raise it to keep more.")
        }
    }

    /// Whether the archive of `owner` is the person's who gave `consent`.
    static func ownership(of owner: ArchiveOwner, for consent: PersonConsent) -> ArchiveOwnership {
        consent.ownership(ofArchiveOf: owner.account, on: owner.network, handle: owner.handle, actorAddress: owner.actorAddress)
    }
}
