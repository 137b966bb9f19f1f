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
