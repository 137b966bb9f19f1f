public import Foundation

/// X's post ids are Snowflakes: their top bits are the milliseconds since X's epoch (2010-11-04T01:42:54.657Z) at
/// which the post was made. Where X does not say when (an archive's `like.js`, a read that did not ask for
/// `created_at`), the id does.
public enum XSnowflake {
    /// When the post `id` was made; nil for an id from before Snowflakes (November 2010).
    public static func date(of id: Int64) -> Date? {
        guard id > 1 << 32 else { return nil }
        return Date(timeIntervalSince1970: Double((id >> 22) + 1_288_834_974_657) / 1000)
    }

    /// When the post `id` (decimal) was made; nil for an id that is not a Snowflake.
    public static func date(of id: String) -> Date? { Int64(id).flatMap(date(of:)) }
}
