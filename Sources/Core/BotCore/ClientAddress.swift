import Foundation

/// Who an HTTP request comes from, as the status page and the front door name it for their limits: behind a
/// platform's router (a Heroku dyno), the last `X-Forwarded-For` entry, the one the router added (those before it are
/// the client's own claims); otherwise the connection's address.
public enum ClientAddress {
    /// The client's name: at most 64 characters of the router's entry, or `connectedFrom`, or `unknown`.
    public static func of(forwardedFor: String?, connectedFrom address: String?, behindRouter: Bool) -> String {
        if behindRouter, let forwardedFor, let last = forwardedFor.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty {
            return String(last.prefix(64))
        }
        return address ?? "unknown"
    }
}
