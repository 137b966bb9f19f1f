import BlueskyAPI
import FakeKit
import Foundation

extension FakeBlueskyWorld: AdjustableFakeClock {}

extension FakeBlueskyWorld {
    /// What clients did, in the fakes' `/admin/state` shape (FakeRecord), for the demo's report: `network`, `now`, `speed`, the posts
    /// written through the API and still there (`posted`: `id` the TID's number, as the bot counts it; authors and
    /// replied-to posts by their persona ids where the seed gave them), the likes written (`liked`), `requests` by
    /// NSID, nothing `served` or billed, and `aliases`: each seeded post's TID number → its persona id, each account's
    /// DID → its persona id.
    func adminState() -> BlueskyAPI.JSONValue {
        func personaID(_ key: String) -> BlueskyAPI.JSONValue { personaIDs[key].map(BlueskyAPI.JSONValue.string) ?? .string(key) }
        func number(_ uri: ATURI) -> String { TID(uri.rkey).map { String($0.value) } ?? uri.rkey }
        var seen: Set<String> = []
        var posted: [BlueskyAPI.JSONValue] = []
        var liked: [BlueskyAPI.JSONValue] = []
        for (method, uri) in writes where method != "com.atproto.repo.deleteRecord" && seen.insert(uri).inserted {
            guard let stored = records[uri] else { continue }
            if stored.uri.collection == "app.bsky.feed.like", let subject = stored.value["subject"]?["uri"]?.stringValue {
                liked.append(.object(["account_id": personaID(stored.uri.repo), "post_id": personaID(subject)]))
                continue
            }
            guard stored.uri.collection == PostRecord.type, let record = try? JSONDecoder().decode(PostRecord.self, from: Self.data(stored.value))
            else { continue }
            let parent = record.reply.flatMap { ATURI($0.parent.uri) }
            posted.append(
                .object([
                    "id": .string(number(stored.uri)), "author_id": personaID(stored.uri.repo), "text": .string(record.text),
                    "created_at": .string(Self.time(stored.indexedAt)),
                    "in_reply_to_post_id": parent.map { personaIDs[$0.description].map(BlueskyAPI.JSONValue.string) ?? .string(number($0)) }
                        ?? .null,
                    "in_reply_to_account_id": parent.map { personaID($0.repo) } ?? .null,
                ]))
        }
        var aliases: [String: BlueskyAPI.JSONValue] = [:]
        for (key, id) in personaIDs {
            if let uri = ATURI(key) { aliases[number(uri)] = .string(id) } else { aliases[key] = .string(id) }
        }
        return .object([
            "network": .string("bluesky"), "now": .string(Self.time(now)), "speed": .number(speed), "posted": .array(posted), "liked": .array(liked),
            "requests": .object(requestCounts.mapValues { .integer(Int64($0)) }), "served": .object([:]), "billing": .array([]),
            "aliases": .object(aliases),
        ])
    }

    /// `com.atproto.sync.getRepo`: `actor`'s repository as a CAR file, every record there by now (its posts, likes
    /// and profile, and a repost record for each repost).
    func repositoryExport(of actor: String) -> FakeBlueskyResponse {
        guard let did = did(of: actor) else { return .error(400, "RepoNotFound", "Could not find repo for DID: \(actor)") }
        var exported = records.values.filter { $0.uri.repo == did && $0.indexedAt <= now }.map {
            (key: "\($0.uri.collection)/\($0.uri.rkey)", value: $0.value)
        }
        for (seq, repost) in reposts where repost.byDID == did && repost.at <= now {
            let subject = records[repost.uri].map { BlueskyAPI.JSONValue.object(["uri": .string(repost.uri), "cid": .string($0.cid)]) } ?? .null
            exported.append(
                (
                    key: "app.bsky.feed.repost/\(TID(date: repost.at, clockID: UInt64(seq)))",
                    value: .object(["$type": .string("app.bsky.feed.repost"), "subject": subject, "createdAt": .string(Self.time(repost.at))])
                ))
        }
        return FakeBlueskyResponse(
            status: 200, body: Data(FakeBlueskyRepositoryExport.car(did: did, records: exported)),
            headers: [("content-type", "application/vnd.ipld.car")])
    }
}
