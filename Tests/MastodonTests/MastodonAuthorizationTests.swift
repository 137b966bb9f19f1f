import BotCore
import FakeMastodon
import Foundation
import HTTPCore
import MastodonAPI
import MastodonNetwork
import SocialNetwork
import Synchronization
import TestSupport
import Testing

/// `mirror_bot auth mastodon`'s OAuth 2 flow with PKCE, the client and the fake instance in one process: the
/// application registered with the scopes each account needs, the code shown by the authorization page exchanged for a
/// token that acts as the account with exactly those scopes, every way a code can be misused refused with its OAuth
/// error, and revoked tokens refused.
@Suite("Mastodon: auth mastodon's OAuth 2 with PKCE against the fake instance")
struct MastodonAuthorizationTests {
    static let outOfBand = MastodonAccountAuthorization.outOfBandRedirect

    /// A client configured with no account: the OAuth endpoints, and requests with a new token, name their instance and
    /// token (`send(_:to:token:as:)`).
    static func client() -> MastodonClient { MastodonClient(configuration: .init(accounts: [:], maxAttempts: 1), logger: MastodonFixture.logger) }

    /// The query of `address`, by name.
    static func query(of address: URL) -> [String: String] {
        var query: [String: String] = [:]
        for item in URLComponents(url: address, resolvingAgainstBaseURL: false)?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        return query
    }

    /// The account's token from `authorized`'s variables.
    static func token(_ authorized: AuthorizedAccount) throws -> String {
        try #require(authorized.variables.first { $0.name.hasSuffix("_MASTODON_TOKEN") }?.value)
    }

    /// An application registered on `url` with `scopes`, and a token of `accountID` it got with a code (PKCE S256).
    static func application(on server: FakeMastodonServer, _ url: URL, scopes: [String], tokenOf accountID: String, name: String = "tests")
        async throws
        -> (application: MastodonCredentialApplication, token: MastodonToken)
    {
        let client = client()
        let application = try await client.send(CreateApp(clientName: name, redirectURIs: [outOfBand], scopes: scopes), to: url, token: nil, as: .bot)
        let proof = CodeExchangeProof()
        let address = try #require(
            AuthorizeUser(clientID: application.clientID, redirectURI: outOfBand, scopes: scopes, codeChallenge: proof.challenge)
                .address(on: url))
        let code = try await server.approveAuthorization(at: address, as: accountID)
        let token = try await client.send(
            ObtainToken(
                clientID: application.clientID, clientSecret: application.clientSecret, code: code,
                redirectURI: outOfBand, codeVerifier: proof.verifier), to: url, token: nil, as: .bot)
        return (application, token)
    }

    /// Whether `error` is the instance's 401 for a revoked token.
    static func isRevoked(_ error: any Error) -> Bool {
        guard case MastodonAPIError.unauthorized(_, _, let detail)? = error as? MastodonAPIError else { return false }
        return detail == "The access token was revoked"
    }

    /// Whether `error` is a 403 for a scope the token was not granted.
    static func isOutsideScopes(_ error: any Error) -> Bool {
        guard case MastodonAPIError.forbidden(_, _, let detail)? = error as? MastodonAPIError else { return false }
        return detail == "This action is outside the authorized scopes"
    }

    @Test("PKCE: RFC 7636's example verifier gives its example S256 challenge; a new verifier is 43 base64url characters, another each time")
    func proofKey() {
        let example = CodeExchangeProof(verifierBytes: [
            116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186, 22, 212, 37, 77, 105, 214,
            191, 240, 91, 88, 5, 88, 83, 132, 141, 121,
        ])
        #expect(example.verifier == "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(example.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        let first = CodeExchangeProof()
        let second = CodeExchangeProof()
        #expect(first.verifier.count == 43)
        #expect(first.verifier.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        #expect(first.verifier != second.verifier && first.challenge != first.verifier)
    }

    @Test(
        "The person: mirror_bot registered with read only; the address asks for a code with PKCE S256 and a fresh sign-in; signed in on the page with the person's password, the code shown buys a token that reads as the person and may not write; the same code again is refused in words"
    )
    func person() async throws {
        try await withFakeMastodon { server, url async throws in
            let authorization = try await MastodonAccountAuthorization.begin(for: .human, instance: url, logger: MastodonFixture.logger)
            let applications = await server.registeredApplications()
            #expect(applications.count == 1)
            #expect(
                applications.first?.name == "mirror_bot" && applications.first?.redirectURIs == [Self.outOfBand]
                    && applications.first?.scopes == ["read"])
            let query = Self.query(of: authorization.address)
            #expect(authorization.address.path() == "/oauth/authorize")
            #expect(query["response_type"] == "code" && query["redirect_uri"] == Self.outOfBand && query["scope"] == "read")
            #expect(query["client_id"]?.isEmpty == false && query["force_login"] == "true")
            #expect(query["code_challenge_method"] == "S256" && query["code_challenge"]?.count == 43)

            let wrongPassword = try await AuthorizationPage.signIn(at: authorization.address, username: "person", password: "not-the-password")
            #expect(wrongPassword.status == 401 && wrongPassword.code == nil)
            let page = try await AuthorizationPage.signIn(at: authorization.address, username: "person", password: MastodonFixture.personPassword)
            let code = try #require(page.code, "\(page.status) \(page.html)")
            let authorized = try await authorization.finish(code: code + "\n")
            #expect(authorized.handle == "person" && authorized.userID == MastodonFixture.personID)
            #expect(authorized.networkAccount == "\(MastodonFixture.personID)@\(FleetServers.name(of: url))", "as a consent record names the person")
            let trimmed = url.absoluteString.hasSuffix("/") ? String(url.absoluteString.dropLast()) : url.absoluteString
            #expect(authorized.variables.first?.name == "HUMAN_MASTODON_URL" && authorized.variables.first?.value == trimmed)
            let token = try Self.token(authorized)
            #expect(token != MastodonFixture.personToken)

            let client = Self.client()
            #expect(try await client.send(VerifyCredentials(), to: url, token: token, as: .human).id == MastodonFixture.personID)
            #expect(try await client.send(VerifyAppCredentials(), to: url, token: token, as: .human).scopes == ["read"])
            await #expect {
                _ = try await client.send(
                    PostStatus(text: "a person's token never posts", visibility: .unlisted, key: "person-1"), to: url, token: token, as: .human)
            } throws: { Self.isOutsideScopes($0) }

            await #expect {
                _ = try await authorization.finish(code: code)
            } throws: { error in
                let text = (error as? AuthorizationRefused)?.description ?? ""
                return text.contains("invalid_grant") && text.contains("a code works once and for 10 minutes")
                    && text.contains("run the command again")
            }
        }
    }

    @Test(
        "The bot: read, write:statuses and write:favourites asked and granted, and its token posts and favourites as the bot; with --no-likes no favourites scope, and a favourite is refused 403"
    )
    func bot() async throws {
        try await withFakeMastodon { server, url async throws in
            let client = Self.client()
            let liking = try await MastodonAccountAuthorization.begin(for: .bot, instance: url, liking: true, logger: MastodonFixture.logger)
            #expect(Self.query(of: liking.address)["scope"] == "read write:statuses write:favourites")
            let authorized = try await liking.finish(code: try await server.approveAuthorization(at: liking.address, as: MastodonFixture.botID))
            #expect(authorized.handle == "mirror" && authorized.userID == MastodonFixture.botID)
            #expect(authorized.variables.map(\.name) == ["BOT_MASTODON_URL", "BOT_MASTODON_TOKEN"])
            let token = try Self.token(authorized)
            let posted = try await client.send(PostStatus(text: "authorized", visibility: .unlisted, key: "bot-1"), to: url, token: token, as: .bot)
            #expect(posted.account.id == MastodonFixture.botID)
            _ = try await client.send(FavouriteStatus(statusID: MastodonFixture.statusID(0)), to: url, token: token, as: .bot)
            #expect(await server.favourited().contains { $0.accountID == MastodonFixture.botID && $0.statusID == MastodonFixture.statusID(0) })

            let quiet = try await MastodonAccountAuthorization.begin(for: .bot, instance: url, liking: false, logger: MastodonFixture.logger)
            #expect(Self.query(of: quiet.address)["scope"] == "read write:statuses")
            #expect(await server.registeredApplications().last?.scopes == ["read", "write:statuses"])
            let quietToken = try Self.token(
                try await quiet.finish(code: try await server.approveAuthorization(at: quiet.address, as: MastodonFixture.botID)))
            #expect(try await client.send(VerifyAppCredentials(), to: url, token: quietToken, as: .bot).scopes == ["read", "write:statuses"])
            await #expect {
                _ = try await client.send(FavouriteStatus(statusID: MastodonFixture.statusID(1)), to: url, token: quietToken, as: .bot)
            } throws: { Self.isOutsideScopes($0) }
        }
    }

    @Test(
        "A token carries exactly the scopes its code granted, not its application's: an application registered to read and write, authorized to read, reads and may not write"
    )
    func exactlyTheGrantedScopes() async throws {
        try await withFakeMastodon { server, url async throws in
            let client = Self.client()
            let application = try await client.send(
                CreateApp(clientName: "broad", redirectURIs: [Self.outOfBand], scopes: ["read", "write"]),
                to: url, token: nil, as: .bot)
            let proof = CodeExchangeProof()
            let address = try #require(
                AuthorizeUser(
                    clientID: application.clientID, redirectURI: Self.outOfBand, scopes: ["read"],
                    codeChallenge: proof.challenge
                ).address(on: url))
            let code = try await server.approveAuthorization(at: address, as: MastodonFixture.botID)
            let token = try await client.send(
                ObtainToken(
                    clientID: application.clientID, clientSecret: application.clientSecret, code: code,
                    redirectURI: Self.outOfBand, codeVerifier: proof.verifier), to: url, token: nil, as: .bot)
            #expect(token.scope == "read" && token.tokenType == "Bearer")
            #expect(try await client.send(VerifyCredentials(), to: url, token: token.accessToken, as: .bot).id == MastodonFixture.botID)
            #expect(try await client.send(GetHomeTimeline(), to: url, token: token.accessToken, as: .bot).isEmpty == false)
            await #expect {
                _ = try await client.send(
                    PostStatus(text: "never", visibility: .unlisted, key: "broad-1"), to: url, token: token.accessToken, as: .bot)
            } throws: { Self.isOutsideScopes($0) }
        }
    }

    @Test(
        "The token endpoint refuses each misuse with its OAuth error: a stolen code (another application, the right verifier), no verifier, a wrong verifier, the challenge for the verifier, a wrong client secret, another redirect URI; none of them uses the code up; used once, it is refused; expired after 10 minutes of the instance's clock"
    )
    func misusedCodes() async throws {
        try await withFakeMastodon { server, url async throws in
            let client = Self.client()
            let scopes = ["read", "write:statuses"]
            let application = try await client.send(
                CreateApp(clientName: "mirror_bot", redirectURIs: [Self.outOfBand], scopes: scopes), to: url, token: nil, as: .bot)
            let thief = try await client.send(
                CreateApp(clientName: "thief", redirectURIs: [Self.outOfBand], scopes: scopes), to: url, token: nil, as: .bot)
            let proof = CodeExchangeProof()
            let address = try #require(
                AuthorizeUser(clientID: application.clientID, redirectURI: Self.outOfBand, scopes: scopes, codeChallenge: proof.challenge)
                    .address(on: url))
            /// "200 <scope>" or "<status> <OAuth error>" (each refusal with its description).
            func exchange(
                _ code: String, clientID: String? = nil, secret: String? = nil, redirectURI: String = Self.outOfBand,
                verifier: String?? = .none
            ) async -> String {
                let request = ObtainToken(
                    clientID: clientID ?? application.clientID, clientSecret: secret ?? application.clientSecret, code: code,
                    redirectURI: redirectURI, codeVerifier: verifier ?? proof.verifier)
                do {
                    return "200 " + (try await client.send(request, to: url, token: nil, as: .bot)).scope
                } catch MastodonAPIError.oauthRefused(_, let status, let error, let description) {
                    #expect(!description.isEmpty, "\(error) without a description")
                    return "\(status) \(error)"
                } catch {
                    return "\(error)"
                }
            }

            let code = try await server.approveAuthorization(at: address, as: MastodonFixture.botID)
            #expect(await exchange(code, clientID: thief.clientID, secret: thief.clientSecret) == "400 invalid_grant", "a stolen code")
            #expect(await exchange(code, verifier: .some(nil)) == "400 invalid_request", "no verifier")
            #expect(await exchange(code, verifier: CodeExchangeProof().verifier) == "400 invalid_grant", "another verifier")
            #expect(await exchange(code, verifier: proof.challenge) == "400 invalid_grant", "the challenge sent as the verifier")
            #expect(await exchange(code, secret: thief.clientSecret) == "401 invalid_client", "a wrong client secret")
            #expect(await exchange(code, redirectURI: "https://elsewhere.example/callback") == "400 invalid_grant", "another redirect URI")
            #expect(await exchange(code) == "200 read write:statuses", "the application with its verifier")
            #expect(await exchange(code) == "400 invalid_grant", "the same code again")

            let late = try await server.approveAuthorization(at: address, as: MastodonFixture.botID)
            await server.advanceClock(by: 599)
            #expect(await exchange(late) == "200 read write:statuses", "a code 9 minutes 59 seconds old")
            let expired = try await server.approveAuthorization(at: address, as: MastodonFixture.botID)
            await server.advanceClock(by: 600)
            #expect(await exchange(expired) == "400 invalid_grant", "a code 10 minutes old")
        }
    }

    @Test(
        "The authorization page shows no sign-in for a request the application did not register: an unknown client, another redirect URI, wider scopes, PKCE by plain; the test hook refuses the same"
    )
    func authorizationRequestsChecked() async throws {
        try await withFakeMastodon { server, url async throws in
            let client = Self.client()
            let application = try await client.send(
                CreateApp(clientName: "mirror_bot", redirectURIs: [Self.outOfBand], scopes: ["read"]), to: url, token: nil, as: .bot)
            let proof = CodeExchangeProof()
            func request(clientID: String? = nil, redirectURI: String = Self.outOfBand, scopes: [String] = ["read"]) throws -> URL {
                try #require(
                    AuthorizeUser(
                        clientID: clientID ?? application.clientID, redirectURI: redirectURI, scopes: scopes, codeChallenge: proof.challenge
                    )
                    .address(on: url))
            }
            let good = try await AuthorizationPage.open(try request())
            #expect(good.status == 200 && good.html.contains("<form method=\"post\" action=\"/oauth/authorize\">") && good.error == nil)
            let plain = try #require(
                URL(string: try request().absoluteString.replacingOccurrences(of: "code_challenge_method=S256", with: "code_challenge_method=plain")))
            let refused: [(URL, Int, String)] = [
                (try request(clientID: "nobody"), 401, "invalid_client"),
                (try request(redirectURI: "https://elsewhere.example/callback"), 400, "invalid_redirect_uri"),
                (try request(scopes: ["read", "write:statuses"]), 400, "invalid_scope"),
                (plain, 400, "invalid_code_challenge_method"),
            ]
            for (address, status, error) in refused {
                let page = try await AuthorizationPage.open(address)
                #expect(
                    page.status == status && page.error == error && !page.html.contains("<form"), "\(address): \(page.status) \(page.error ?? "-")")
                await #expect { _ = try await server.approveAuthorization(at: address, as: MastodonFixture.botID) } throws: { refusal in
                    (refusal as? FakeMastodonAuthorizationRefused)?.error == error
                }
            }
        }
    }

    @Test(
        "Revoking: only the token's application may revoke it (403 otherwise); once revoked the API answers 401 \"The access token was revoked\"; revoking again or an unknown token is 200; revokeAuthorizations(of:) revokes every token of the account, seed's included, and ends its open stream, while other accounts' tokens work"
    )
    func revocation() async throws {
        try await withFakeMastodon { server, url async throws in
            let client = Self.client()
            let (application, token) = try await Self.application(on: server, url, scopes: ["read"], tokenOf: MastodonFixture.botID)
            let other = try await client.send(
                CreateApp(clientName: "other", redirectURIs: [Self.outOfBand], scopes: ["read"]), to: url, token: nil, as: .bot)
            await #expect {
                _ = try await client.send(
                    RevokeToken(clientID: other.clientID, clientSecret: other.clientSecret, token: token.accessToken), to: url, token: nil, as: .bot)
            } throws: { error in
                guard case MastodonAPIError.oauthRefused(_, 403, "unauthorized_client", _)? = error as? MastodonAPIError else { return false }
                return true
            }
            #expect(try await client.send(VerifyCredentials(), to: url, token: token.accessToken, as: .bot).id == MastodonFixture.botID)
            let revoke = RevokeToken(clientID: application.clientID, clientSecret: application.clientSecret, token: token.accessToken)
            _ = try await client.send(revoke, to: url, token: nil, as: .bot)
            await #expect { _ = try await client.send(VerifyCredentials(), to: url, token: token.accessToken, as: .bot) } throws: {
                Self.isRevoked($0)
            }
            _ = try await client.send(revoke, to: url, token: nil, as: .bot)
            _ = try await client.send(
                RevokeToken(clientID: application.clientID, clientSecret: application.clientSecret, token: "no-such-token"),
                to: url, token: nil, as: .bot)

            // The bot's owner revokes every app: the seed's token and another made through OAuth; the stream opened with
            // the seed's token ends; the person's token works on.
            let (_, second) = try await Self.application(on: server, url, scopes: ["read"], tokenOf: MastodonFixture.botID)
            let stream = try await MastodonMirrorNetwork(client: MastodonFixture.client(url)).openMentionStream(of: MastodonFixture.botID)
            #expect(await server.revokeAuthorizations(of: MastodonFixture.botID) == 2)
            for revoked in [MastodonFixture.botToken, second.accessToken] {
                await #expect { _ = try await client.send(VerifyCredentials(), to: url, token: revoked, as: .bot) } throws: { Self.isRevoked($0) }
            }
            // The stream is read until it ends, in a task of its own: a stream left open fails the wait, not hangs the test.
            let ended = StreamEnd()
            let reader = Task {
                var iterator = stream.makeAsyncIterator()
                while (try? await iterator.next()) != nil {}
                ended.mark()
            }
            defer { reader.cancel() }
            try await waitUntil("the stream of the revoked token to end", within: .seconds(30)) { ended.happened }
            #expect(
                try await client.send(VerifyCredentials(), to: url, token: MastodonFixture.personToken, as: .human).id == MastodonFixture.personID)
        }
    }
}

/// Whether a stream read in another task has ended.
final class StreamEnd: Sendable {
    private let ended = Mutex(false)
    /// The stream ended.
    func mark() { ended.withLock { $0 = true } }
    /// Whether it has.
    var happened: Bool { ended.withLock { $0 } }

    @Test("A server is named as DNS compares it: case, a trailing dot and the scheme's own port make no other server")
    func serverNames() {
        let names = ["https://Mastodon.Social", "https://mastodon.social.", "https://mastodon.social:443/", "HTTPS://MASTODON.SOCIAL"]
            .compactMap(URL.init(string:)).map(FleetServers.name(of:))
        #expect(names == Array(repeating: "mastodon.social", count: 4))
        #expect(FleetServers.name(of: URL(string: "http://127.0.0.1:3000")!) == "127.0.0.1:3000")
        #expect(FleetServers.name(of: URL(string: "http://example.social:443")!) == "example.social:443")
    }
}
