public import Classifier
public import ExportFormats
import Foundation
public import Stores

/// `mirror_bot import`: the free, uncapped way to train, from the person's own archive export, in whichever of the
/// registered formats it is (each network's folder has its own).
///
/// Every file is parsed before anything is stored, so a malformed or truncated file stops the import with an error
/// naming the file and the place, and nothing is stored. Posts go into the archive in one transaction; likes that carry
/// their text are learned as favorites a batch at a time, each batch in one transaction of the word counts, each liked
/// post at most once ever: an import stopped midway (a kill) leaves whole batches learned, and importing again learns
/// the rest, nothing twice. Import never calls a network's API but to name whom replies answered.
public struct ArchiveImporter: Sendable {
    /// The format whose network `report` names.
    public func format(of report: ImportReport) -> (any ExportFormat)? { formats.first { $0.network == report.network } }

    /// The formats an export may be in.
    public let formats: [any ExportFormat]
    /// Where posts go, and what is asked on the way.
    public let destination: ImportDestination
    /// What learns the likes.
    public let classifier: FavoriteClassifier

    /// An importer of `formats` into `archive` and `classifier`'s counts. `copyingWarnings` keeps posts with a warning
    /// (`POST_CW`); `resolveAccount` names whom replies answered on the person's instance; `personLikes` keeps the
    /// person's likes dated; `checkOwner` is asked, before anything is stored, whether the account the archive names may be imported.
    public init(
        formats: [any ExportFormat], archive: any PostArchive, classifier: FavoriteClassifier, copyingWarnings: Bool = false,
        resolveAccount: ImportDestination.AccountResolver? = nil, personLikes: (any LikeLog)? = nil,
        checkOwner: (@Sendable (ArchiveOwner) async throws -> Void)? = nil
    ) {
        self.formats = formats
        self.classifier = classifier
        self.destination = ImportDestination(
            archive: archive,
            learnLikes: { likes in
                try await classifier.learnOnce(likes.map { ($0.id, FavoriteClassifier.Post(text: $0.text)) }, as: .favorite, source: .import)
            },
            copyingWarnings: copyingWarnings, resolveAccount: resolveAccount, personLikes: personLikes,
            checkOwner: checkOwner)
    }

    /// Imports the export at `path` (its zip, its folder, or a single data file), read by the one format whose files it
    /// holds (the report names its network).
    public func importExport(at path: String, limits: ExportFiles.Limits = ExportFiles.Limits()) async throws -> ImportReport {
        let files = try ExportFiles(path: path, formats: formats, limits: limits)
        let report = try await files.format.importFiles(files.files, into: destination)
        // The extracted files are removed with `files`: it lives until the import is done.
        withExtendedLifetime(files) {}
        return report
    }
}
