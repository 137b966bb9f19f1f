package import Logging

extension Logger {
    /// A fake server's logger when `fake-x` serves it: warnings and worse only.
    package static func quiet(_ label: String) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = .warning
        return logger
    }
}
