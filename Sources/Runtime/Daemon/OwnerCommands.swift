import BotClock
import BotCore
public import Consent
public import Foundation
import Logging
import SocialNetwork
import Stores
public import Training

/// The person's remote control: what a mention of the bot from the person's own account (`humanUserID`, compared by
/// id, never by name) asks (`OwnerCommand`), done and confirmed with one reply to that mention. The pause is kept in
/// the bot's state, so it outlasts restarts; the poster, the replier and the favoriter read it before they act.
public struct OwnerCommands: Sendable {
    /// The person's account id on the bot's network.
    public let humanUserID: String
    /// The pause, kept in the bot's state.
    public let control: OwnerControl
    /// Forgets a post (`forget <link>`); nil where forgetting is not available (a dry run).
    public let forgetter: Forgetter?
    /// The zone the confirmation's times are given in (the person's).
    public let timeZone: TimeZone
    /// Whether nothing is sent (`--dry-run`): the command is only logged.
    public let dryRun: Bool
    /// Ends the mirror when the person says so (`stop mirroring me`); nil where it cannot (a test's composition).
    public let withdrawal: PersonWithdrawal?

    /// Commands from `humanUserID`.
    public init(
        humanUserID: String, control: OwnerControl, forgetter: Forgetter?, timeZone: TimeZone, dryRun: Bool = false,
        withdrawal: PersonWithdrawal? = nil
    ) {
        self.humanUserID = humanUserID
        self.control = control
        self.forgetter = forgetter
        self.timeZone = timeZone
        self.dryRun = dryRun
        self.withdrawal = withdrawal
    }

    /// Does `command` (the mention already claimed in `mentions`), confirms it with one reply, and records the mention.
    func obey(
        _ command: OwnerCommand, mention: NetworkPost, mentionID: PostID, on network: any MirrorNetwork, mentions: any MentionLog,
        clock: any BotClock, logger: Logger
    ) async throws {
        let japanese = mention.text.unicodeScalars.contains { $0.value >= 0x3000 }
        let now = clock.now()
        // To the second: a confirmation is never the same text twice (X refuses a repeat within the day).
        let at = LocalTime(of: now, in: timeZone).clockTime + String(format: ":%02d", Int(now.timeIntervalSince1970.rounded(.down)) % 60)
        if dryRun {
            try await mentions.finish(
                mentionID: mentionID, state: .skipped, reason: "dry run: the person's command \"\(command.summary)\" not carried out")
            logger.notice("dry run: the person asks to \(command.summary) (\(mention.id)); not carried out")
            return
        }
        let confirmation: String
        // The end of the mirror deletes what was learned once the confirmation is out and the mention recorded.
        var forgetsAfterwards = false
        switch command {
        case .pausePosting:
            try await control.pause(.posting, at: now)
            confirmation = japanese ? "\(at) 投稿を停止しました。「再開」で再開します。" : "Posting paused at \(at). Say \"resume\" to resume."
        case .pauseEverything:
            try await control.pause(.everything, at: now)
            confirmation =
                japanese
                ? "\(at) 投稿・返信・いいねをすべて停止しました。「再開」で再開します。"
                : "Everything paused at \(at): posts, replies and likes. Say \"resume\" to resume."
        case .resume where try await control.ended():
            confirmation =
                japanese
                ? "\(at) ミラーは終了しています。再開するには、もう一度ご本人としてサインインしてください。"
                : "The mirror has ended (\(at)): only signing in again as yourself starts it."
        case .resume where try await control.waitsForSignIn():
            confirmation =
                japanese
                ? "\(at) サインインの期限が切れています。再開するには、もう一度ご本人としてサインインしてください。"
                : "Your sign-in has lapsed (\(at)): signing in again as yourself resumes the mirror."
        case .resume:
            let was = try await control.resume()
            confirmation =
                was == nil
                ? (japanese ? "\(at) 停止していませんでした。動いています。" : "Not paused at \(at): already running.")
                : (japanese ? "\(at) 再開しました。" : "Resumed at \(at).")
        case .forget(let link):
            confirmation = try await forget(link, japanese: japanese, at: at, logger: logger)
        case .endMirror:
            guard let withdrawal else {
                confirmation = japanese ? "\(at) ここではミラーを終了できません。運営者に連絡してください。" : "The mirror cannot be ended from here (\(at)): ask its operator."
                break
            }
            try await withdrawal.stop(at: now, how: "the person's words by mention \(mention.id): \"\(command.summary)\"")
            forgetsAfterwards = true
            confirmation =
                japanese
                ? "\(at) ミラーを終了しました。投稿・返信・いいねを止め、あなたから学んだものをすべて削除します。"
                : "Mirror ended at \(at): nothing more is posted, answered or liked, and everything learned from you is deleted now."
        }
        logger.notice("the person asked to \(command.summary) (\(mention.id)): done")
        let reason = "the person's command: \(command.summary)"
        let created: String?
        do {
            created = try await UncertainCreate.send(
                confirmation, inReplyTo: mention.id, sentAt: clock.now(), on: network, for: .replies, clock: clock, logger: logger,
                what: "the confirmation of \(command.summary)"
            ) {
                try await network.reply(confirmation, warning: nil, to: mention.id, for: .replies)
            }
        } catch let error as NetworkError {
            try await mentions.finish(mentionID: mentionID, state: .skipped, reason: "\(reason), done; the confirmation could not be sent (\(error))")
            logger.warning("could not confirm the person's command \(command.summary) (\(mention.id)): \(error)")
            if forgetsAfterwards { _ = try await withdrawal?.forget() }
            return
        }
        try await mentions.finish(mentionID: mentionID, state: .replied, replyPostID: created.map { PostID($0) }, reason: reason)
        if forgetsAfterwards { _ = try await withdrawal?.forget() }
    }

    /// Forgets the post `link` names; the confirmation says what was done.
    private func forget(_ link: String, japanese: Bool, at: String, logger: Logger) async throws -> String {
        guard let forgetter else { return japanese ? "\(at) 忘れる機能は使えません。" : "Forgetting is not available (\(at))." }
        guard let id = Forgetter.postID(in: link) else {
            return japanese ? "\(at) 投稿のリンクが読めませんでした: \(link)" : "Not a post's link (\(at)): \(link)"
        }
        let report = try await forgetter.forget(id)
        guard report.foundAnything else {
            return japanese ? "\(at) \(id) はアーカイブにありません。" : "\(id) is not in the archive (\(at)): nothing to forget."
        }
        logger.notice("forgot \(id) at the person's request: \(report.copiesDeleted.count) copies deleted, \(report.copiesFailed.count) could not be")
        let failed =
            report.copiesFailed.isEmpty
            ? "" : (japanese ? " 削除できなかったコピー: \(report.copiesFailed.count)件" : " \(report.copiesFailed.count) copies could not be deleted yet.")
        return japanese
            ? "\(at) \(id) を忘れました。コピー\(report.copiesDeleted.count)件を削除しました。\(failed)"
            : "Forgot \(id) at \(at): \(report.copiesDeleted.count) copies deleted.\(failed)"
    }
}
