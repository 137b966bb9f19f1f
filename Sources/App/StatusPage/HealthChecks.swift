public import BotClock
import Foundation
import Hummingbird
public import ServiceLifecycle
import Synchronization

/// What `/healthz` checks: each named check throws when its part does not answer (the archive's database, the word
/// counts, the network). All run at once, each within `limit` of real time.
public struct HealthChecks: Sendable {
    /// One named check.
    public struct Check: Sendable {
        /// What it checks ("archive", "word counts", "network").
        public var name: String
        /// Throws when it fails; the error's description is shown behind the password only.
        public var run: @Sendable () async throws -> Void

        /// A check from its parts.
        public init(name: String, run: @escaping @Sendable () async throws -> Void) {
            self.name = name
            self.run = run
        }
    }

    /// The checks.
    public var checks: [Check]
    /// How long each may take.
    public var limit: Duration

    /// Checks from their parts.
    public init(_ checks: [Check], limit: Duration = .seconds(3)) {
        self.checks = checks
        self.limit = limit
    }

    /// The outcome of each check, in order, run now.
    public func outcomes() async -> [HealthOutcome] {
        await withTaskGroup(of: (Int, HealthOutcome).self) { group in
            for (index, check) in checks.enumerated() {
                let limit = limit
                group.addTask {
                    do {
                        try await withTimeLimit(limit) { try await check.run() }
                        return (index, HealthOutcome(name: check.name, code: .ok, problem: nil))
                    } catch let error as TimeLimitExceeded {
                        return (index, HealthOutcome(name: check.name, code: .timeout, problem: "\(error)"))
                    } catch let error as any HealthCoded {
                        return (index, HealthOutcome(name: check.name, code: error.healthCode, problem: "\(error)"))
                    } catch {
                        return (index, HealthOutcome(name: check.name, code: .failing, problem: "\(error)"))
                    }
                }
            }
            var outcomes = checks.map { HealthOutcome(name: $0.name, code: .starting, problem: nil) }
            for await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes
        }
    }
}

/// A health check's stable code: what `/healthz` says of a part to anyone.
public enum HealthCode: String, Sendable, Encodable {
    /// The part answered.
    case ok
    /// The bot is starting and has not reached the part yet (or not checked it yet).
    case starting
    /// The part did not answer within the check's limit.
    case timeout
    /// The part answered with an error, or could not be reached.
    case failing
}

/// An error that says which health code it stands for (a start still under way is `starting`, not `failing`).
public protocol HealthCoded: Error {
    /// The code.
    var healthCode: HealthCode { get }
}

/// A part the start has not reached yet: its check's code is `starting`.
public struct StillStarting: HealthCoded, CustomStringConvertible {
    /// What the start waits for.
    public var what: String
    /// Why the part is not checked yet.
    public init(waitingFor what: String) { self.what = what }
    /// Starting.
    public var healthCode: HealthCode { .starting }
    /// "starting: waiting for …".
    public var description: String { "starting: waiting for \(what)" }
}

/// One check's outcome.
public struct HealthOutcome: Sendable, Equatable {
    /// The part ("archive", "word counts", "network").
    public var name: String
    /// Its stable code.
    public var code: HealthCode
    /// Why it is not ok, in words that may name hosts, users and paths: shown behind the password only.
    public var problem: String?

    /// Whether the part answered.
    public var isOK: Bool { code == .ok }
}

/// The health checks run in the background, every `interval` on `clock`, and their last outcomes: `/healthz` answers
/// from those, so that no request makes a query of its own to the stores however often it is asked.
public final class HealthMonitor: Service, Sendable {
    /// The checks.
    public let checks: HealthChecks
    /// How often they run.
    public let interval: Duration
    private let clock: any BotClock
    private let latest = Mutex<[HealthOutcome]?>(nil)

    /// A monitor of `checks`, run every `interval` on `clock` once `run` starts (or each time `refresh` is called).
    public init(_ checks: HealthChecks, interval: Duration = .seconds(10), clock: any BotClock = SystemBotClock()) {
        self.checks = checks
        self.interval = interval
        self.clock = clock
    }

    /// Runs the checks now and keeps their outcomes.
    public func refresh() async {
        let outcomes = await checks.outcomes()
        latest.withLock { $0 = outcomes }
    }

    /// The last outcomes; before the first check, every part is `starting`.
    public var outcomes: [HealthOutcome] {
        latest.withLock { $0 } ?? checks.checks.map { HealthOutcome(name: $0.name, code: .starting, problem: nil) }
    }

    /// Checks every `interval` until the service group's graceful shutdown.
    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await self.refresh()
                try await self.clock.sleep(for: self.interval)
            }
        }
    }

    /// `/healthz`'s answer: 200 when every part is ok, else 503; each part by its name and stable code only.
    func response() throws -> Response {
        struct Body: Encodable {
            struct Item: Encodable {
                var name: String
                var ok: Bool
                var code: HealthCode
            }
            var status: String
            var checks: [Item]
        }
        let outcomes = outcomes
        let healthy = outcomes.allSatisfy(\.isOK)
        let starting = !healthy && outcomes.allSatisfy { $0.code == .ok || $0.code == .starting }
        let body = Body(
            status: healthy ? "ok" : starting ? "starting" : "failing",
            checks: outcomes.map { .init(name: $0.name, ok: $0.isOK, code: $0.code) })
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(
            status: healthy ? .ok : .serviceUnavailable, headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: try StatusJSON.encoder.encode(body))))
    }
}
