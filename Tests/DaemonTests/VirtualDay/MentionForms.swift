import Foundation

/// Who a text mentions, found independently of the product's own finder (`ArchiveRules.mentionedNames`): one regular
/// expression per form the networks document, so that a form the product misses is not missed by the checks as well.
/// Names are lowercased, without the `@`. (The expressions are only read: `nonisolated(unsafe)` as `Regex` is not
/// `Sendable`.)
enum MentionForms {
    /// X: `@` or the full-width `＠`, not after a letter, digit or `_` (an e-mail address is no mention), then letters,
    /// digits and `_` (X's names are 1 to 15 of them; a longer run is still taken whole, as someone named).
    nonisolated(unsafe) static let x = #/(?:^|[^A-Za-z0-9_])[@＠]([A-Za-z0-9_]+)/#
    /// Mastodon and Misskey: `@user@host`, the host a domain of two labels or more.
    nonisolated(unsafe) static let fediverse =
        #/(?:^|[^A-Za-z0-9_])[@＠]([A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+)/#
    /// Bluesky: `@` and a handle, a domain name of two labels or more (`alice.bsky.social`).
    nonisolated(unsafe) static let bluesky =
        #/(?:^|[^A-Za-z0-9_])[@＠]([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+)/#

    /// Every name `text` mentions in any network's form.
    static func names(in text: String) -> Set<String> {
        var names = Set<String>()
        for match in text.matches(of: fediverse) { names.insert(String(match.output.1).lowercased()) }
        for match in text.matches(of: bluesky) { names.insert(String(match.output.1).lowercased()) }
        // The X form, unless the name runs on as a fediverse or Bluesky name found above.
        for match in text.matches(of: x) {
            let name = String(match.output.1).lowercased()
            if !names.contains(where: { $0.hasPrefix(name + "@") || $0.hasPrefix(name + ".") }) { names.insert(name) }
        }
        return names
    }
}
