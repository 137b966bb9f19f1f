/// Whether the bot likes (`LIKES`).
public enum LikesSetting: String, Sendable, CaseIterable {
    /// Like where the network's access allows it and its rules welcome it (a network says so in its capabilities).
    case auto
    /// Try to like; a refusal by the network turns liking off until a daily recheck.
    case on
    /// Never like, and read nothing that only liking needs.
    case off
}

/// What to answer someone the person never replied to (`REPLY_FALLBACK`).
public enum ReplyFallback: String, Sendable, CaseIterable {
    /// Do not answer.
    case none
    /// Answer with a past reply of the person to anyone.
    case any
}

/// What a scheduled post is (`POST_STYLE`).
public enum PostStyle: String, Sendable, CaseIterable {
    /// One of the person's posts, as they wrote it.
    case copy
    /// A new post written from the person's posts near that minute (a Markov chain over their morphemes), none of it
    /// too close to one of them: where a network's rules forbid copies across accounts (X).
    case remix
}
