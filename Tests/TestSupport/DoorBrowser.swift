public import AsyncHTTPClient
public import Foundation
import NIOCore
import NIOFoundationCompat

/// A browser for the door: its own cookie, redirects not followed (the door sends it to the instance and back).
public final class DoorBrowser: Sendable {
    /// The door's address.
    public let base: URL
    /// Its client, which follows no redirect.
    public let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
    /// Its `Accept-Language`.
    public let language: String
    private let jar = Jar()

    final class Jar: @unchecked Sendable {
        private let lock = NSLock()
        private var value: String?
        var cookie: String? {
            get { lock.withLock { value } }
            set { lock.withLock { value = newValue } }
        }
    }

    /// A browser at `base` asking for `language`.
    public init(_ base: URL, language: String = "en") {
        self.base = base
        self.language = language
    }

    /// Its cookie for the door.
    public var cookie: String? {
        get { jar.cookie }
        set { jar.cookie = newValue }
    }

    /// An answer.
    public struct Answer: Sendable {
        /// Its status.
        public var status: Int
        /// `Location`.
        public var location: String?
        /// `Set-Cookie`.
        public var setCookie: String?
        /// The page.
        public var html: String
        /// The CSRF token of the page's forms.
        public var csrf: String? { html.firstMatch(of: /name="csrf" value="([^"]+)"/).map { String($0.1) } }
    }

    /// `GET path`.
    public func get(_ path: String) async throws -> Answer { try await send("GET", path, form: nil) }
    /// `POST path` with a form.
    public func post(_ path: String, _ form: [(String, String)]) async throws -> Answer { try await send("POST", path, form: form) }

    /// `POST path` as a browser sends a file form (`multipart/form-data`): `fields` first (in order, as the page lists
    /// them), then `file` (`name`, the browser's file name, its bytes).
    public func upload(_ path: String, _ fields: [(String, String)], file: (name: String, filename: String, data: Data)) async throws -> Answer {
        let boundary = "----mirror-test-\(UUID().uuidString)"
        var body = Data()
        for (name, value) in fields {
            body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8))
        }
        body.append(
            Data(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(file.name)\"; filename=\"\(file.filename)\"\r\nContent-Type: application/octet-stream\r\n\r\n"
                    .utf8))
        body.append(file.data)
        body.append(Data("\r\n--\(boundary)--\r\n".utf8))
        return try await send("POST", path, body: (body, "multipart/form-data; boundary=\(boundary)"))
    }

    private func send(_ method: String, _ path: String, form: [(String, String)]?) async throws -> Answer {
        guard let form else { return try await send(method, path, body: nil) }
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        let encoded = form.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
        return try await send(method, path, body: (Data(encoded.utf8), "application/x-www-form-urlencoded"))
    }

    private func send(_ method: String, _ path: String, body: (data: Data, type: String)?) async throws -> Answer {
        var request = HTTPClientRequest(url: base.absoluteString + path)
        request.method = .init(rawValue: method)
        request.headers.add(name: "Accept-Language", value: language)
        if let cookie { request.headers.add(name: "Cookie", value: cookie) }
        if let body {
            request.headers.add(name: "Content-Type", value: body.type)
            request.body = .bytes(ByteBuffer(data: body.data))
        }
        let response = try await client.execute(request, timeout: .seconds(10))
        let html = String(buffer: try await response.body.collect(upTo: 1 << 20))
        let setCookie = response.headers.first(name: "Set-Cookie")
        if let setCookie, let pair = setCookie.split(separator: ";").first { cookie = setCookie.contains("Max-Age=0") ? nil : String(pair) }
        return Answer(status: Int(response.status.code), location: response.headers.first(name: "Location"), setCookie: setCookie, html: html)
    }

    /// Shuts its client down.
    public func close() async throws { try await client.shutdown() }

    /// `body` with a browser at `base`, its client shut down however `body` ends (a failed requirement included).
    public static func with<Result: Sendable>(
        _ base: URL, language: String = "en", _ body: (DoorBrowser) async throws -> Result
    ) async throws -> Result {
        let browser = DoorBrowser(base, language: language)
        do {
            let result = try await body(browser)
            try await browser.close()
            return result
        } catch {
            try? await browser.close()
            throw error
        }
    }
}
