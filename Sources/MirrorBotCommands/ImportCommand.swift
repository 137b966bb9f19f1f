import Archive
import ArchiveImport
import ArgumentParser
import BotAssembly

/// `mirror_bot import PATH`: trains from the human's downloaded X archive, without the API.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Imports the human's downloaded X archive: tweets into the archive, likes into the favorite filter.",
        discussion: """
            PATH is the .zip from X's "Download your archive", its extracted folder, or a single tweets.js or like.js. \
            Free and not capped at 3,200 tweets; never calls the X API. Everything is read before anything is stored: \
            a malformed file stops the import and nothing is stored. Re-importing the same archive changes nothing. \
            The archive keeps the newest ARCHIVE_ROW_LIMIT tweets; raise it to keep more of a long history.
            """
    )

    @Argument(help: "The archive .zip, its folder, or a tweets.js / like.js file.")
    var path: String

    func run() async throws {
        let context = try CommandContext.load()
        let configuration = context.configuration
        let path = path
        let (report, archived, calibration) = try await BotParts(configuration: configuration, logger: context.logger).withRunning { parts in
            let archive = parts.archive
            let classifier = try parts.classifier()
            let report = try await ArchiveImporter(archive: archive, classifier: classifier).importExport(at: path)
            let calibration = report.likesLearned > 0 ? try await calibrationLine(classifier, configuration, parts.database) : nil
            return (report, try await archive.count(), calibration)
        }
        print("Imported \(report.tweetsStored) new tweets (\(report.tweetsRead) read, \(report.retweetsSkipped) retweets skipped) "
              + "and learned \(report.likesLearned) new likes (\(report.likesRead) read, \(report.likesWithoutText) without text). "
              + "The archive holds \(archived) tweets.")
        if let calibration { print(calibration) }
        if report.tweetsRead - report.retweetsSkipped > configuration.archiveRowLimit {
            print("Only the newest \(configuration.archiveRowLimit) are kept (ARCHIVE_ROW_LIMIT); raise it to keep more.")
        }
    }
}
