import AsyncHTTPClient
import FakeMastodon
import Foundation
import MastodonAPI
import MastodonNetwork
import NIOCore
import SocialNetwork
import Testing

/// The front door's sign-in on Mastodon: the browser sent to the instance, back at the door's callback with the code
/// and the door's `state`; the code exchanged once.
@Suite("Mastodon: the front door's sign-in, the instance sending the browser back to the door")
struct MastodonWebSignInTests {
    static let callback = URL(string: "https://door.example/sign-in/callback")!

    /// What a browser does on the authorization page: signs in with the form, presses "Authorize", and is sent on; the
    /// address it is sent to (the redirect not followed: the door is not here).
    static func approve(at address: URL, username: String, password: String) async throws -> (status: Int, location: String?) {
        let form = try await AuthorizationPage.open(address)
        #expect(form.status == 200)
        var fields = form.html.matches(of: /<input type="hidden" name="([a-z_]+)" value="([^"]*)">/).map { (String($0.1), String($0.2)) }
        fields += [("username", username), ("password", password)]
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        let body = fields.map {
            "\($0.0)=\($0.1.replacingOccurrences(of: "&amp;", with: "&").addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
        }
        var components = try #require(URLComponents(url: address, resolvingAgainstBaseURL: false))
        components.query = nil
        var request = HTTPClientRequest(url: try #require(components.url).absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: body.joined(separator: "&")))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        do {
            let response = try await client.execute(request, timeout: .seconds(10))
            _ = try await response.body.collect(upTo: 1 << 20)
            try await client.shutdown()
            return (Int(response.status.code), response.headers.first(name: "Location"))
        } catch {
            try await client.shutdown()
            throw error
        }
    }

    @Test(
        "The person signs in on their instance from the door: mirror_bot registered with the door's callback and read only, the browser sent back with a code and the door's state, the code good once"
    )
    func person() async throws {
        try await withFakeMastodon { server, url async throws in
            let state = "door-state-7f3a"
            let pending = try await MastodonWebSignIn().begin(
                for: .human, server: url.absoluteString, redirect: Self.callback, state: state, logger: MastodonFixture.logger)
            #expect(await server.registeredApplications().map(\.redirectURIs) == [[Self.callback.absoluteString]])
            let query = MastodonAuthorizationTests.query(of: pending.address)
            #expect(query["redirect_uri"] == Self.callback.absoluteString && query["state"] == state && query["scope"] == "read")
            #expect(query["code_challenge_method"] == "S256")

            let approved = try await Self.approve(at: pending.address, username: "person", password: MastodonFixture.personPassword)
            #expect(approved.status == 302 || approved.status == 303)
            let location = try #require(approved.location.flatMap(URL.init(string:)), "sent nowhere: \(approved)")
            #expect(location.absoluteString.hasPrefix(Self.callback.absoluteString + "?"))
            let back = MastodonAuthorizationTests.query(of: location)
            #expect(back["state"] == state, "the door tells its own sign-ins by their state")
            let code = try #require(back["code"])
            let authorized = try await pending.finish(code: code)
            #expect(authorized.userID == MastodonFixture.personID && authorized.handle == "person")
            // A callback replayed: the code was spent.
            await #expect {
                _ = try await pending.finish(code: code)
            } throws: { ($0 as? AuthorizationRefused)?.description.contains("invalid_grant") == true }
        }
    }

    @Test("An address that is no instance's is refused in words, before anything is asked of anyone", arguments: ["", "  ", "http://example.social"])
    func notAnInstance(server: String) async throws {
        await #expect {
            _ = try await MastodonWebSignIn().begin(for: .human, server: server, redirect: Self.callback, state: "s", logger: MastodonFixture.logger)
        } throws: { ($0 as? AuthorizationRefused)?.description.contains("is not a Mastodon instance's address") == true }
    }
}
