import AsyncHTTPClient
import FakeMisskey
import Foundation
import MisskeyAPI
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import TestSupport
import Testing

/// The fake instance's answers checked against Misskey's OpenAPI document (the schemas the bot reads, copied under
/// Resources) by an independent validator, as the fake X's and Mastodon's are.
@Suite("The fake Misskey follows the OpenAPI document")
struct FakeMisskeyContractTests {
    struct Sample: Sendable {
        var name: String
        var schema: String
        var body: Data
    }

    /// `POST /api/<endpoint>` with `body` (and `i` when a token is given): the status and the JSON.
    static func call(_ base: URL, _ endpoint: String, token: String?, _ body: [String: Any] = [:]) async throws -> (status: Int, json: Any?) {
        var request = HTTPClientRequest(url: base.absoluteString + "/api/" + endpoint)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        var parameters = body
        if let token { parameters["i"] = token }
        request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: parameters)))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 1 << 22)
        let json = bytes.readableBytes == 0 ? nil : try JSONSerialization.jsonObject(with: Data(buffer: bytes), options: [.fragmentsAllowed])
        return (Int(response.status.code), json)
    }

    @Test(
        "Every answer of every endpoint the bot calls validates against its schema, with no field the document does not define; errors are {error: {message, code, id}}"
    )
    func answersFollowTheDocument() async throws {
        let server = FakeMisskeyServer(seed: MisskeyFixture.seed, logger: MisskeyFixture.quietLogger)
        let samples: [Sample] = try await server.withRunning { url in
            var samples: [Sample] = []
            func record(_ name: String, _ schema: String, status: Int = 200, _ answer: (status: Int, json: Any?)) throws {
                #expect(answer.status == status, "\(name): \(answer.status)")
                guard let json = answer.json else {
                    Issue.record("\(name): no body")
                    return
                }
                let items = (json as? [Any]).map { $0 } ?? [json]
                #expect(!items.isEmpty, "\(name): an empty list proves nothing")
                for item in items {
                    samples.append(
                        Sample(name: name, schema: schema, body: try JSONSerialization.data(withJSONObject: item, options: [.fragmentsAllowed])))
                }
            }
            let (bot, person) = ("bot-token", "person-token")
            try record("i", "MeDetailed", try await Self.call(url, GetI.name, token: bot))
            try record("users/show", "UserDetailedNotMe", try await Self.call(url, ShowUser.name, token: bot, ["userId": MisskeyFixture.quiet]))
            try record("meta", "Meta", try await Self.call(url, GetMeta.name, token: nil, ["detail": false]))
            try record(
                "users/notes", "Note",
                try await Self.call(
                    url, GetUserNotes.name, token: person,
                    ["userId": MisskeyFixture.person, "withReplies": true, "withRenotes": true, "limit": 100]))
            try record("notes/timeline", "Note", try await Self.call(url, GetTimeline.name, token: bot, ["limit": 100]))
            try record("notes/show", "Note", try await Self.call(url, ShowNote.name, token: bot, ["noteId": MisskeyFixture.id(290)]))
            try record(
                "users/reactions", "NoteReactionWithNote",
                try await Self.call(url, GetUserReactions.name, token: person, ["userId": MisskeyFixture.person]))
            let created = try await Self.call(
                url, CreateNote.name, token: bot, ["text": "@friend こんにちは", "visibility": "home", "replyId": MisskeyFixture.id(300)])
            #expect(created.status == 200)
            try record("notes/create's createdNote", "Note", (created.status, (created.json as? [String: Any])?["createdNote"]))
            await server.advanceClock(by: 60)
            await server.add(notes: [
                .init(id: MisskeyFixture.id(-1), userID: MisskeyFixture.friend, text: "@mirror 元気？", createdAt: MisskeyFixture.at(-1))
            ])
            await server.advanceClock(by: 120)
            try record("notes/mentions", "Note", try await Self.call(url, GetMentions.name, token: bot, ["limit": 10]))
            let reacted = try await Self.call(url, CreateReaction.name, token: bot, ["noteId": MisskeyFixture.id(300), "reaction": "❤"])
            #expect(reacted.status == 204 && reacted.json == nil)
            // Errors.
            try record(
                "reacting twice", "Error", status: 400,
                try await Self.call(url, CreateReaction.name, token: bot, ["noteId": MisskeyFixture.id(300), "reaction": "❤"]))
            try record("no such note", "Error", status: 400, try await Self.call(url, ShowNote.name, token: bot, ["noteId": "0000000000000000"]))
            try record("unknown token", "Error", status: 401, try await Self.call(url, GetI.name, token: "nope"))
            try record("no permission", "Error", status: 403, try await Self.call(url, CreateNote.name, token: person, ["text": "x"]))
            try record(
                "too long", "Error", status: 400,
                try await Self.call(url, CreateNote.name, token: bot, ["text": String(repeating: "あ", count: 3_001)]))
            await server.setCreateLimit(0)
            try record("rate limited", "Error", status: 429, try await Self.call(url, CreateNote.name, token: bot, ["text": "x"]))
            return samples
        }
        #expect(samples.count >= 20)

        let folder = FileManager.default.temporaryDirectory.appending(path: "fakemisskey-contract-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let samplesFile = folder.appending(path: "samples.json")
        let objects = try samples.map { sample -> [String: Any] in
            [
                "name": sample.name, "schema": "#/components/schemas/" + sample.schema,
                "body": try JSONSerialization.jsonObject(with: sample.body, options: [.fragmentsAllowed]),
            ]
        }
        try JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted]).write(to: samplesFile)
        let spec = try #require(Bundle.module.url(forResource: "Resources/misskey-openapi-subset", withExtension: "json"))
        let (status, text) = try await PythonScript.run("validate-openapi.py", [spec.path, samplesFile.path])
        #expect(status == 0, "\(text)")
        #expect(text.contains("\(samples.count) passed, 0 failed"), "\(text)")
    }
}
