/// Finds what X turns into a link when a post is created: a URL with a scheme, a `www.` address, or a bare domain
/// with a common top-level domain (X links `example.com` by itself). X bills a post that contains a link at the
/// "Content: Create (with URL)" rate, about 13 times a plain post, so the bot asks before posting one.
public enum PostLinks {
    /// Top-level domains X links without a scheme that people actually type; the list errs on the side of finding
    /// a link (a false "link" only keeps a post from being posted, a missed one costs $0.185 more).
    static let bareDomainSuffixes: Set<String> = [
        "com", "net", "org", "jp", "io", "co", "me", "ly", "gl", "info", "dev", "app", "tv", "fm", "be", "to", "us",
        "uk", "de", "fr", "biz", "xyz", "site", "online", "blog", "news", "link",
    ]

    /// Whether `text` contains something X would post as a link.
    public static func containsLink(_ text: String) -> Bool {
        let lowered = text.lowercased()
        if lowered.contains("http://") || lowered.contains("https://") { return true }
        // Words are runs of ASCII letters, digits, '-', '.', '_', '/' and '@': a link must start a word (so an
        // address in an e-mail or a handle is not one), and have a dot before a known top-level domain.
        var word = ""
        for character in lowered + " " {
            if character.isASCII, character.isLetter || character.isNumber || "-._/@".contains(character) {
                word.append(character)
                continue
            }
            if isLinkWord(word) { return true }
            word = ""
        }
        return false
    }

    private static func isLinkWord(_ word: String) -> Bool {
        guard !word.hasPrefix("@"), !word.contains("@") else { return false }
        if word.hasPrefix("www.") && word.count > 4 { return true }
        let host = word.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, let last = labels.last, bareDomainSuffixes.contains(String(last)) else { return false }
        // Every label before the top-level domain is a host name label: letters, digits, '-', not empty.
        return labels.dropLast().allSatisfy { label in
            !label.isEmpty && label.first != "-" && label.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" }
        }
    }
}
