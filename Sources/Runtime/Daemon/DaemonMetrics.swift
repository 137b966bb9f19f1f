import CoreMetrics
import Foundation

/// What the daemon did, as swift-metrics counts it (exported in Prometheus's format at `/metrics` when `start` serves
/// HTTP; counted by nothing otherwise). The names and the reason categories, in one place.
enum DaemonMetrics {
    /// A slot's post was sent, `lateness` seconds after its minute.
    static func posted(lateness: TimeInterval, unchecked: Bool = false) {
        Counter(label: "mirror_bot_posts_total").increment()
        if unchecked { Counter(label: "mirror_bot_posts_unchecked_total").increment() }
        Recorder(label: "mirror_bot_slot_lateness_seconds", aggregate: true).record(max(0, lateness))
    }

    /// A slot was skipped for `reason`.
    static func slotSkipped(reason: String) {
        Counter(label: "mirror_bot_slots_skipped_total", dimensions: [("reason", skipCategory(reason))]).increment()
    }

    /// A mention was answered.
    static func replied() { Counter(label: "mirror_bot_replies_total").increment() }

    /// A mention was not answered, for `reason`.
    static func notReplied(reason: String) {
        Counter(label: "mirror_bot_mentions_not_answered_total", dimensions: [("reason", refusalCategory(reason))]).increment()
    }

    /// A post was liked.
    static func liked() { Counter(label: "mirror_bot_likes_total").increment() }

    /// A like slot was skipped (no post to like, missed, paused, refused).
    static func likeSlotSkipped() { Counter(label: "mirror_bot_like_slots_skipped_total").increment() }

    /// A round of `service` failed on a store (Postgres, Redis, the SQLite file).
    static func storeError(service: String) {
        Counter(label: "mirror_bot_store_errors_total", dimensions: [("service", service)]).increment()
    }

    /// A slot's skip reason as a few stable words.
    static func skipCategory(_ reason: String) -> String {
        if reason.hasPrefix("missed") { return "missed" }
        if reason.hasPrefix("dry run") { return "dry_run" }
        if reason.contains("interrupted") { return "interrupted" }
        if reason.hasPrefix("nothing to post") { return "nothing_to_post" }
        if reason.contains("deleted") { return "deleted" }
        if reason.contains("budget") { return "budget" }
        if reason.contains("refused") { return "refused" }
        return "network"
    }

    /// A mention's refusal reason as a few stable words.
    static func refusalCategory(_ reason: String) -> String {
        if reason.hasPrefix("dry run") { return "dry_run" }
        if reason.contains("already answered") || reason.contains("an hour") { return "limit" }
        if reason.contains("no past reply") || reason.contains("never replied") { return "no_past_reply" }
        if reason.contains("#nobot") { return "nobot" }
        if reason.contains("minutes old") { return "stale" }
        if reason.contains("budget") { return "budget" }
        if reason.contains("refused") { return "refused" }
        return "other"
    }
}
