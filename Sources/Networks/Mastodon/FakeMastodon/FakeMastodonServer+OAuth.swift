import Foundation
import HTTPTypes
import Hummingbird
import MastodonAPI
import NIOCore
import NIOFoundationCompat

/// The OAuth 2 routes: `POST /api/v1/apps`, the authorization page, `POST /oauth/token` and `POST /oauth/revoke`, as
/// Mastodon's API reference describes them. The page differs from a real instance's in one way, for tests: it has no
/// browser session, so it always asks for the account's username and password (as `force_login=true` makes an instance
/// do) on the same form as the approval. Its "Authorize" button sends the form to `POST /oauth/authorize`, which
/// redirects to `/oauth/authorize/native?code=…` for `urn:ietf:wg:oauth:2.0:oob` (the page showing the code to copy)
/// or to the application's redirect URI with `code` and `state`.
extension FakeMastodonServer {
    func addOAuthRoutes(to router: Router<BasicRequestContext>) {
        let world = world
        router.post(RouterPath("/api/v1/apps")) { request, _ in
            await world.countRequest(CreateApp.name)
            let parameters = await Self.parameters(of: request)
            return Self.response(await world.registerApplication(parameters), headers: [])
        }
        router.get(RouterPath("/oauth/authorize")) { request, _ in
            await world.countRequest(AuthorizeUser.name)
            let query = Self.formFields(request.uri.query ?? "")
            switch await world.authorizationRequest(query) {
            case .success(let checked): return Self.page(200, Self.signInForm(checked, query: query, problem: nil))
            case .failure(let refusal): return Self.page(refusal.status, Self.errorPage(refusal))
            }
        }
        router.post(RouterPath("/oauth/authorize")) { request, _ in
            await world.countRequest("POST /oauth/authorize")
            let form = await Self.parameters(of: request).compactMapValues(\.first)
            switch await world.signInAndApprove(form) {
            case .success(let (checked, code)):
                var location: String
                if checked.redirectURI == FakeMastodonOAuth.outOfBand {
                    location = "/oauth/authorize/native?code=" + Self.formEncoded(code)
                } else {
                    location = checked.redirectURI + (checked.redirectURI.contains("?") ? "&" : "?") + "code=" + Self.formEncoded(code)
                    if let state = checked.state { location += "&state=" + Self.formEncoded(state) }
                }
                return Response(status: .found, headers: [.location: location, .cacheControl: "no-store"])
            case .failure(let refusal) where refusal.error == "invalid_credentials":
                guard case .success(let checked) = await world.authorizationRequest(form) else {
                    return Self.page(refusal.status, Self.errorPage(refusal))
                }
                return Self.page(401, Self.signInForm(checked, query: form, problem: refusal.description))
            case .failure(let refusal): return Self.page(refusal.status, Self.errorPage(refusal))
            }
        }
        router.get(RouterPath("/oauth/authorize/native")) { request, _ in
            let code = Self.formFields(request.uri.query ?? "")["code"] ?? ""
            return Self.page(
                200,
                """
                <h1>Authorization code</h1>
                <p>Copy this authorization code and paste it to the application.</p>
                <input class="oauth-code" id="oauth-code" readonly type="text" value="\(Self.escaped(code))" aria-label="Authorization code">
                """)
        }
        router.post(RouterPath("/oauth/token")) { request, _ in
            await world.countRequest(ObtainToken.name)
            let parameters = await Self.parameters(of: request).compactMapValues(\.first)
            var response = Self.response(await world.exchange(parameters), headers: [])
            response.headers[.cacheControl] = "no-store"
            return response
        }
        router.post(RouterPath("/oauth/revoke")) { request, _ in
            await world.countRequest(RevokeToken.name)
            let parameters = await Self.parameters(of: request).compactMapValues(\.first)
            return Self.response(await world.revoke(parameters), headers: [])
        }
    }

    // MARK: - Pages

    /// The authorization page: what the application asks for, and the sign-in form whose button approves it.
    private static func signInForm(_ request: FakeMastodonOAuth.AuthorizationRequest, query: [String: String], problem: String?) -> String {
        let carried = ["response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge", "code_challenge_method"]
        let hidden = carried.compactMap { name in
            query[name].map { #"<input type="hidden" name="\#(name)" value="\#(escaped($0))">"# }
        }.joined(separator: "\n")
        let scopes = request.scopes.map { "<li><code>\(escaped($0))</code></li>" }.joined()
        return """
            <h1>Authorization required</h1>
            <p><strong>\(escaped(request.application.name))</strong> would like permission to access your account. It is a third-party \
            application. If you do not trust it, then you should not authorize it.</p>
            <h2>Review permissions</h2>
            <ul class="scopes">\(scopes)</ul>
            \(problem.map { #"<p class="error" role="alert">\#(escaped($0))</p>"# } ?? "")
            <form method="post" action="/oauth/authorize">
            \(hidden)
            <label for="username">Username</label> <input id="username" name="username" autocomplete="username" required>
            <label for="password">Password</label> <input id="password" name="password" type="password" autocomplete="current-password" required>
            <button type="submit">Authorize</button>
            </form>
            """
    }

    /// Doorkeeper's error page: the error and its description, nothing to approve.
    private static func errorPage(_ refusal: FakeMastodonOAuth.Refusal) -> String {
        """
        <h1>An error has occurred</h1>
        <p class="oauth-error" data-error="\(escaped(refusal.error))">\(escaped(refusal.description))</p>
        """
    }

    private static func page(_ status: Int, _ body: String) -> Response {
        let html =
            "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Fake Mastodon</title></head><body>\n\(body)\n</body></html>\n"
        return Response(
            status: .init(code: status), headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "'", with: "&#39;")
    }

    // MARK: - Parameters

    /// A request's parameters, each with its values: a JSON object (strings, booleans, arrays of strings) or a form
    /// (`application/x-www-form-urlencoded`, `name[]` for an array), as Rails reads either.
    private static func parameters(of request: Request) async -> [String: [String]] {
        var request = request
        let data = (try? await request.collectBody(upTo: 1 << 16)).map { Data(buffer: $0) } ?? Data()
        if request.headers[.contentType]?.lowercased().hasPrefix("application/json") == true {
            guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return [:] }
            return object.compactMapValues { value -> [String]? in
                switch value {
                case let text as String: [text]
                case let texts as [Any]: texts.compactMap { $0 as? String }
                case let number as NSNumber: [number.stringValue]
                default: nil
                }
            }
        }
        var parameters: [String: [String]] = [:]
        for (name, value) in formPairs(String(decoding: data, as: UTF8.self)) {
            parameters[name.hasSuffix("[]") ? String(name.dropLast(2)) : name, default: []].append(value)
        }
        return parameters
    }

    /// A query or form's fields (the last of a repeated name wins).
    private static func formFields(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for (name, value) in formPairs(text) { fields[name] = value }
        return fields
    }

    /// `a=1&b=two+words` decoded: `+` is a space, as a browser's form and Rails have it.
    private static func formPairs(_ text: String) -> [(String, String)] {
        text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            return (parts[0], parts.count > 1 ? parts[1] : "")
        }
    }

    private static func formEncoded(_ text: String) -> String {
        text.addingPercentEncoding(
            withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? text
    }
}
