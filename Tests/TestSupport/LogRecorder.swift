public import Logging
import Synchronization

/// Keeps the messages logged through its loggers, for tests that check what a user would read in the log.
public final class LogRecorder: Sendable {
    private let messages = Mutex<[String]>([])

    /// An empty recorder.
    public init() {}

    /// A logger whose messages (at `level` and above) this recorder keeps.
    public func logger(level: Logger.Level = .info) -> Logger {
        var logger = Logger(label: "recorded") { _ in Handler(recorder: self) }
        logger.logLevel = level
        return logger
    }

    /// Every message so far, in order.
    public var lines: [String] { messages.withLock { $0 } }

    /// The messages that contain `text`.
    public func lines(containing text: String) -> [String] { lines.filter { $0.contains(text) } }

    fileprivate func append(_ message: String) { messages.withLock { $0.append(message) } }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            recorder.append(event.message.description)
        }
    }
}
