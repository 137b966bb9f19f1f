/// The two classes the favorite filter learns, with the original's names (they appear in Redis keys).
public enum Category: String, Sendable, CaseIterable, Hashable {
    /// Posts the human liked.
    case favorite
    /// Posts the human saw on their timeline and did not like.
    case normal
}
