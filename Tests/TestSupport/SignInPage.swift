import AsyncHTTPClient
public import Foundation
import NIOCore
import NIOFoundationCompat

/// A network's own sign-in page, as a person's browser goes through it: the page opened at the address the door sent
/// the browser to, its form filled (its hidden fields kept, `identifier` and `password` typed, `decision` pressed)
/// and posted to where it says; the redirect back, not followed.
public enum SignInPage {
    private static let browser = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))

    /// Where the page sends the browser once `identifier` signs in with `password` and presses `decision`; nil when
    /// the page has no form or does not redirect (its status and text in `page`).
    public static func submit(
        at address: URL, identifier: String, password: String, decision: String = "accept"
    ) async throws -> (redirect: URL?, page: String) {
        let opened = try await browser.execute(HTTPClientRequest(url: address.absoluteString), timeout: .seconds(10))
        let html = String(buffer: try await opened.body.collect(upTo: 1 << 20))
        guard opened.status == .ok, let action = html.firstMatch(of: /<form method="post" action="([^"]+)"/).map({ String($0.1) }) else {
            return (nil, "HTTP \(opened.status.code): \(html)")
        }
        var fields = html.matches(of: /<input type="hidden" name="([^"]+)" value="([^"]*)">/).map {
            (String($0.1), String($0.2).replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&amp;", with: "&"))
        }
        fields += [("identifier", identifier), ("password", password), ("decision", decision)]
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        var request = HTTPClientRequest(url: URL(string: action, relativeTo: address)!.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(
            ByteBuffer(
                string: fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")))
        let answer = try await browser.execute(request, timeout: .seconds(10))
        let text = String(buffer: try await answer.body.collect(upTo: 1 << 20))
        guard (300..<400).contains(Int(answer.status.code)), let location = answer.headers.first(name: "Location") else {
            return (nil, "HTTP \(answer.status.code): \(text)")
        }
        return (URL(string: location), text)
    }

    /// The path and query of `address`: what a door's browser asks its door for.
    public static func pathAndQuery(of address: URL) -> String {
        let components = URLComponents(url: address, resolvingAgainstBaseURL: false)
        return (components?.percentEncodedPath ?? "/") + (components?.percentEncodedQuery.map { "?" + $0 } ?? "")
    }
}
