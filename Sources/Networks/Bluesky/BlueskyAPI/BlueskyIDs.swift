import Foundation

/// How Bluesky's names become the bot's ids:
/// - a post's id is its record key's TID, read as the 64-bit number a TID is (time-ordered, so "newer" compares as on
///   X); a post is found again from its id and its author's DID: `at://<did>/app.bsky.feed.post/<TID of the id>`;
/// - an account's id is its DID, as written.
public enum BlueskyIDs {
    /// The id of the post at `uri`, nil when it is not a post's (`app.bsky.feed.post`) or its record key is not a TID.
    public static func postID(of uri: String) -> String? {
        guard let parts = ATURI(uri), parts.collection == PostRecord.type, let tid = TID(parts.rkey) else { return nil }
        return String(tid.value)
    }

    /// The id the releases before text ids gave the account `did` (a 63-bit FNV-1a hash of it), under which their rows
    /// still name it: looked up beside the DID (`MirrorNetwork.formerAccountIDs`), never made for a new row.
    public static func formerUserID(of did: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in did.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash & UInt64(Int64.max))
    }

    /// The AT URI of `did`'s post with the id `postID`, nil when the id is not one of a post.
    public static func uri(ofPost postID: String, by did: String) -> String? {
        recordKey(ofPost: postID).map { ATURI(repo: did, collection: PostRecord.type, rkey: $0).description }
    }

    /// The record key of the post with the id `postID`, nil when the id is not one of a post.
    public static func recordKey(ofPost postID: String) -> String? {
        guard let value = UInt64(postID), value < 1 << 63 else { return nil }
        return TID(microseconds: value >> 10, clockID: value).description
    }

    /// The record key of a post made for `slot` ("slot 2026-11-22 540": the day and the minute of the day): its time
    /// from the slot, its clock id from the slot's text, so that every retry of the slot writes the same record.
    public static func recordKey(forSlot slot: String) -> TID {
        let parts = slot.split(separator: " ")
        var date = Date(timeIntervalSince1970: 1_735_689_600)  // 2025-01-01, for a slot that does not say its day
        if parts.count >= 3, let day = ISO8601DateFormatter.day(String(parts[1])) {
            let minute = Int(parts[2]) ?? parts[2].split(separator: ":").compactMap { Int($0) }.reduce(0) { $0 * 60 + $1 }
            date = day.addingTimeInterval(Double(minute * 60))
        }
        return TID(date: date, purpose: slot)
    }

    /// The record key of the answer to the mention at `uri` (with the id `mentionID`): a moment after the mention, its
    /// clock id from the mention's URI.
    public static func recordKey(answering uri: String, mentionID: String) -> TID { recordKey(after: mentionID, purpose: "reply " + uri) }

    /// The record key of the like of the post at `uri` (with the id `postID`): one like however often it is sent, in
    /// this run or after a restart.
    public static func recordKey(liking uri: String, postID: String) -> TID { recordKey(after: postID, purpose: "like " + uri) }

    /// A key a second after the post `postID` was made, its clock id from `purpose`.
    private static func recordKey(after postID: String, purpose: String) -> TID {
        let at = UInt64(postID).map { Date(timeIntervalSince1970: Double($0 >> 10) / 1_000_000 + 1) } ?? Date(timeIntervalSince1970: 1_735_689_600)
        return TID(date: at, purpose: purpose)
    }
}

extension ISO8601DateFormatter {
    /// The start (UTC) of the day `yyyy-MM-dd`.
    static func day(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.date(from: text)
    }
}
