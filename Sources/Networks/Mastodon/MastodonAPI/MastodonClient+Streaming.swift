import AsyncHTTPClient
public import BotCore
public import Foundation
import NIOCore
import NIOFoundationCompat

extension MastodonClient {
    /// The HTTP client streams use: one that gives up on a connection silent for 90 seconds (instances send a
    /// heartbeat comment every few seconds), so a stream that died without closing is noticed.
    static let streamingHTTPClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(10)
        configuration.timeout.read = .seconds(90)
        configuration.redirectConfiguration = .disallow
        // Each stream holds its connection for hours: a fleet's bots on one instance need one each (the default of 8 a
        // host left the ninth bot's stream waiting for a connection until it gave up).
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 10_000
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// Opens `endpoint`'s event stream as `account` on the account's instance; returns once the instance has
    /// accepted it (200), with the notifications as they arrive. A refusal (401, 403, 404 when the instance serves
    /// no streaming, 429, 5xx) is thrown as `send` throws it; the stream is not retried here.
    public func stream(_ endpoint: StreamMentionNotifications, as account: Account) async throws -> MastodonNotificationStream {
        let name = StreamMentionNotifications.name
        guard let access = configuration.accounts[account] else { throw MastodonAPIError.notConfigured(account: account) }
        guard var components = URLComponents(url: access.instance, resolvingAgainstBaseURL: false) else {
            throw MastodonAPIError.malformedResponse(endpoint: name, reason: "\(access.instance) is not a URL")
        }
        components.path = (components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path) + endpoint.path
        guard let url = components.url else { throw MastodonAPIError.malformedResponse(endpoint: name, reason: "could not form a URL") }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "Authorization", value: "Bearer \(access.token)")
        request.headers.add(name: "User-Agent", value: "mirror_bot")
        request.headers.add(name: "Accept", value: "text/event-stream")
        let response: HTTPClientResponse
        do {
            // The whole stream is one request: its deadline is a day away; silence is caught by the read timeout.
            response = try await Self.streamingHTTPClient.execute(request, timeout: .hours(24))
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw MastodonAPIError.transport(endpoint: name, reason: String(describing: error), attempts: 1)
        }
        let status = Int(response.status.code)
        guard status == 200 else {
            let body = (try? await response.body.collect(upTo: 1 << 16)).map { Data(buffer: $0) } ?? Data()
            switch status {
            case 429: throw MastodonAPIError.rateLimited(endpoint: name, resetsAt: nil)
            case 500..<600: throw MastodonAPIError.serverError(endpoint: name, status: status, attempts: 1)
            default: throw Self.refusal(status: status, body: body, account: account, endpoint: name)
            }
        }
        return MastodonNotificationStream(body: response.body)
    }
}

/// The notifications of an open event stream, in the order the instance sends them; ends when the instance closes
/// the connection, throws `MastodonAPIError.transport` when it breaks or goes silent. Events other than
/// `notification`, heartbeat comments and an event whose data is not a notification are passed over.
public struct MastodonNotificationStream: AsyncSequence, Sendable {
    /// A notification.
    public typealias Element = MastodonNotification

    let body: HTTPClientResponse.Body

    /// A reader of the events.
    public func makeAsyncIterator() -> Iterator { Iterator(chunks: body.makeAsyncIterator()) }

    /// Reads the stream's events one at a time.
    public struct Iterator: AsyncIteratorProtocol {
        var chunks: HTTPClientResponse.Body.AsyncIterator
        var parser = ServerSentEvents()

        /// The next notification, or nil when the instance closed the stream.
        public mutating func next() async throws -> MastodonNotification? {
            while true {
                while let event = parser.nextEvent() {
                    guard event.name == "notification",
                        let notification = try? MastodonJSON.decoder().decode(MastodonNotification.self, from: Data(event.data.utf8))
                    else { continue }
                    return notification
                }
                let chunk: ByteBuffer?
                do {
                    chunk = try await chunks.next()
                } catch {
                    // A read cut short by the task's cancellation (a shutdown) is not a broken stream.
                    if error is CancellationError || Task.isCancelled { throw CancellationError() }
                    throw MastodonAPIError.transport(endpoint: StreamMentionNotifications.name, reason: String(describing: error), attempts: 1)
                }
                guard let chunk else { return nil }
                parser.append(Data(buffer: chunk))
            }
        }
    }
}

/// Server-sent events (the WHATWG `text/event-stream` format) from the bytes as they arrive: lines split on LF,
/// CRLF or CR; `event:` and `data:` fields (several `data:` lines joined with LF); a blank line ends an event;
/// comments (`:`) and other fields ignored.
public struct ServerSentEvents: Sendable {
    /// One event.
    public struct Event: Sendable, Equatable {
        /// Its `event:` name ("message" when none was given).
        public var name: String
        /// Its data lines, joined.
        public var data: String

        /// An event from its parts.
        public init(name: String, data: String) {
            self.name = name
            self.data = data
        }
    }

    /// The bytes received and not yet read as lines; those before `start` are read.
    private var pending: [UInt8] = []
    private var start = 0
    /// Where the search for the next line's end resumes (the bytes from `start` to here hold none).
    private var scanned = 0
    /// Whether the line being received is past `longestLine`: it is dropped up to its end.
    private var droppingLine = false
    private var name = ""
    private var dataLines: [String] = []
    private var dataBytes = 0
    /// Whether the event being received is past `longestEvent`: it is dropped at its blank line.
    private var droppingEvent = false

    /// The longest line kept, in bytes; a longer one is dropped (a status event is a few kilobytes), so that a stream
    /// that never ends its line cannot take the memory.
    public static let longestLine = 1 << 20
    /// The most data an event may carry, in bytes; a larger one is dropped whole.
    public static let longestEvent = 1 << 20

    /// An empty parser.
    public init() {}

    /// Takes the next bytes of the stream.
    public mutating func append(_ bytes: Data) {
        pending.append(contentsOf: bytes)
        // What is unread past the longest line, with no line end in it: dropped, and the rest of that line too.
        if pending.count - start > Self.longestLine, !pending[scanned...].contains(where: { $0 == 0x0A || $0 == 0x0D }) {
            pending.removeAll(keepingCapacity: false)
            (start, scanned, droppingLine) = (0, 0, true)
        }
    }

    /// The next complete event, if the bytes so far hold one. Each byte is looked at once, whatever the chunks.
    public mutating func nextEvent() -> Event? {
        defer { compact() }
        while let end = pending[scanned...].firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) {
            // A CR at the very end may be the first half of a CRLF: wait for the next byte.
            if pending[end] == 0x0D, end == pending.count - 1 {
                scanned = end
                return nil
            }
            let lineBytes = pending[start..<end]
            var next = end + 1
            if pending[end] == 0x0D, next < pending.count, pending[next] == 0x0A { next += 1 }
            (start, scanned) = (next, next)
            if droppingLine {
                droppingLine = false
                continue
            }
            if lineBytes.count > Self.longestLine { continue }
            if lineBytes.isEmpty {
                defer {
                    name = ""
                    dataLines = []
                    dataBytes = 0
                    droppingEvent = false
                }
                guard !dataLines.isEmpty, !droppingEvent else { continue }
                return Event(name: name.isEmpty ? "message" : name, data: dataLines.joined(separator: "\n"))
            }
            let line = String(decoding: lineBytes, as: UTF8.self)
            if line.hasPrefix(":") { continue }
            let field: Substring
            let value: Substring
            if let colon = line.firstIndex(of: ":") {
                field = line[..<colon]
                let rest = line[line.index(after: colon)...]
                value = rest.hasPrefix(" ") ? rest.dropFirst() : rest
            } else {
                field = line[...]
                value = ""
            }
            switch field {
            case "event": name = String(value)
            case "data":
                dataBytes += value.utf8.count + 1
                if dataBytes > Self.longestEvent {
                    droppingEvent = true
                    dataLines = []
                } else if !droppingEvent {
                    dataLines.append(String(value))
                }
            default: break
            }
        }
        scanned = pending.count
        return nil
    }

    /// Drops the bytes read, once they are most of the buffer (so each is moved a bounded number of times).
    private mutating func compact() {
        guard start > 4_096, start * 2 > pending.count else { return }
        pending.removeFirst(start)
        scanned -= start
        start = 0
    }
}
