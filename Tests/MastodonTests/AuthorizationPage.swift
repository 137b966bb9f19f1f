import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat

/// What a person's browser does with an authorization address: opens the page, fills in its sign-in form and presses
/// "Authorize", then reads the page the instance shows (for the out-of-band redirect, the code to copy).
enum AuthorizationPage {
    /// A page: its status and HTML.
    struct Page {
        var status: Int
        var html: String
        /// The code the page shows to copy, if it shows one.
        var code: String? { html.firstMatch(of: /class="oauth-code"[^>]* value="([^"]*)"/).map { String($0.1) } }
        /// The OAuth error the page shows, if it shows one.
        var error: String? { html.firstMatch(of: /data-error="([^"]*)"/).map { String($0.1) } }
    }

    /// `GET address`.
    static func open(_ address: URL) async throws -> Page {
        try await fetch(HTTPClientRequest(url: address.absoluteString))
    }

    /// Opens `address`, signs in on its form as `username` with `password` and presses "Authorize": the page the
    /// instance answers with, its redirect followed.
    static func signIn(at address: URL, username: String, password: String) async throws -> Page {
        let form = try await open(address)
        guard form.status == 200 else { return form }
        var fields = form.html.matches(of: /<input type="hidden" name="([a-z_]+)" value="([^"]*)">/).map { (String($0.1), unescaped(String($0.2))) }
        fields += [("username", username), ("password", password)]
        guard var components = URLComponents(url: address, resolvingAgainstBaseURL: false) else { throw URLError(.badURL) }
        components.query = nil
        components.path = "/oauth/authorize"
        guard let target = components.url else { throw URLError(.badURL) }
        var request = HTTPClientRequest(url: target.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        let body = fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
        request.body = .bytes(ByteBuffer(string: body))
        return try await fetch(request)
    }

    private static func fetch(_ request: HTTPClientRequest) async throws -> Page {
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        return Page(status: Int(response.status.code), html: String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    private static func unescaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }
}
