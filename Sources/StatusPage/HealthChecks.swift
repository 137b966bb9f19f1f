import BotClock
import Foundation
import Hummingbird

/// What `/healthz` checks: each named check throws when its part does not answer (the archive's database, the word
/// counts). All run at once, each within `limit` of real time; 200 when all pass, 503 with the reasons otherwise.
public struct HealthChecks: Sendable {
    /// One named check.
    public struct Check: Sendable {
        /// What it checks ("archive", "word counts").
        public var name: String
        /// Throws when it fails; the error's description is shown (no secrets in it: stores describe themselves redacted).
        public var run: @Sendable () async throws -> Void

        /// A check from its parts.
        public init(name: String, run: @escaping @Sendable () async throws -> Void) { self.name = name; self.run = run }
    }

    /// The checks.
    public var checks: [Check]
    /// How long each may take.
    public var limit: Duration

    /// Checks from their parts.
    public init(_ checks: [Check], limit: Duration = .seconds(3)) { self.checks = checks; self.limit = limit }

    /// The outcome of each check, in order: nil when it passed, else why not.
    public func outcomes() async -> [(name: String, problem: String?)] {
        await withTaskGroup(of: (Int, String?).self) { group in
            for (index, check) in checks.enumerated() {
                let limit = limit
                group.addTask {
                    do {
                        try await withTimeLimit(limit) { try await check.run() }
                        return (index, nil)
                    } catch {
                        return (index, "\(error)")
                    }
                }
            }
            var problems = [String?](repeating: nil, count: checks.count)
            for await (index, problem) in group { problems[index] = problem }
            return zip(checks, problems).map { ($0.name, $1) }
        }
    }

    /// `/healthz`'s answer.
    func response() async throws -> Response {
        struct Body: Encodable {
            struct Item: Encodable { var name: String; var ok: Bool; var problem: String? }
            var status: String
            var checks: [Item]
        }
        let outcomes = await outcomes()
        let healthy = outcomes.allSatisfy { $0.problem == nil }
        let body = Body(status: healthy ? "ok" : "failing", checks: outcomes.map { .init(name: $0.name, ok: $0.problem == nil, problem: $0.problem) })
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: healthy ? .ok : .serviceUnavailable, headers: headers,
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: try StatusJSON.encoder.encode(body))))
    }
}
