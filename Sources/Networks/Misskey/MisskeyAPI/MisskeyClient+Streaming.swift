public import BotCore
import Foundation
import Logging
import NIOSSL
import Synchronization
import WSClient

/// A mention or a reply the instance pushed on the main channel.
public struct MisskeyStreamEvent: Sendable, Equatable {
    /// `mention` or `reply`.
    public var type: String
    /// The note.
    public var note: MisskeyNote
}

extension MisskeyClient {
    /// Opens the main channel of `account`'s stream (`wss://<host>/streaming?i=<token>`, then `connect` to `main`):
    /// returns once the instance accepted the connection, with each `mention` and `reply` event as it arrives; the
    /// sequence ends when the instance closes the connection and throws when it breaks. Ending the iteration closes it.
    public func streamMentions(as account: Account) async throws -> AsyncThrowingStream<MisskeyStreamEvent, any Error> {
        guard let access = configuration.accounts[account] else { throw MisskeyAPIError.notConfigured(account: account) }
        let name = "streaming (main)"
        guard var components = URLComponents(url: access.instance, resolvingAgainstBaseURL: false) else {
            throw MisskeyAPIError.malformedResponse(endpoint: name, reason: "\(access.instance) is not a URL")
        }
        let secure = components.scheme == "https"
        components.scheme = secure ? "wss" : "ws"
        components.path = (components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path) + "/streaming"
        components.queryItems = [URLQueryItem(name: "i", value: access.token)]
        guard let url = components.string else {
            throw MisskeyAPIError.malformedResponse(endpoint: name, reason: "could not form the streaming address")
        }

        let (events, continuation) = AsyncThrowingStream<MisskeyStreamEvent, any Error>.makeStream()
        let opening = OpeningSignal()
        let logger = logger
        let connect = #"{"type":"connect","body":{"channel":"main","id":"mirror_bot"}}"#
        let task = Task {
            do {
                try await WebSocketClient.connect(url: url, tlsConfiguration: secure ? .makeClientConfiguration() : nil, logger: logger) {
                    inbound, outbound, _ in
                    try await outbound.write(.text(connect))
                    opening.signal(nil)
                    for try await message in inbound.messages(maxSize: 1 << 22) {
                        guard case .text(let text) = message, let event = Self.event(in: text) else { continue }
                        continuation.yield(event)
                    }
                }
                opening.signal(MisskeyAPIError.transport(endpoint: name, reason: "the instance closed the stream", attempts: 1))
                continuation.finish()
            } catch {
                let failure = MisskeyAPIError.transport(endpoint: name, reason: "\(error)", attempts: 1)
                opening.signal(failure)
                continuation.finish(throwing: failure)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        if let failure = await opening.wait() {
            task.cancel()
            throw failure
        }
        return events
    }

    /// The event a frame of the stream carries, when it is a `mention` or `reply` of the main channel.
    static func event(in text: String) -> MisskeyStreamEvent? {
        struct Frame: Decodable {
            struct Body: Decodable {
                var type: String
                var body: MisskeyNote?
            }
            var type: String
            var body: Body?
        }
        guard let frame = try? MisskeyJSON.decoder().decode(Frame.self, from: Data(text.utf8)), frame.type == "channel",
            let body = frame.body, body.type == "mention" || body.type == "reply", let note = body.body
        else { return nil }
        return MisskeyStreamEvent(type: body.type, note: note)
    }
}

/// Tells the opener once whether the connection opened (nil) or failed (the error).
private final class OpeningSignal: Sendable {
    private let state = Mutex<(done: Bool, result: (any Error)?, waiter: CheckedContinuation<(any Error)?, Never>?)>((false, nil, nil))

    func signal(_ failure: (any Error)?) {
        let waiter = state.withLock { state -> CheckedContinuation<(any Error)?, Never>? in
            guard !state.done else { return nil }
            state.done = true
            state.result = failure
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: failure)
    }

    func wait() async -> (any Error)? {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> (any Error)?? in
                if state.done { return .some(state.result) }
                state.waiter = continuation
                return .none
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
