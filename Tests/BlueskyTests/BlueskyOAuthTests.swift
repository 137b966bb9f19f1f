import AsyncHTTPClient
import BlueskyAPI
import BlueskyNetwork
import BotClock
import FakeBluesky
import Foundation
import HTTPCore
import NIOCore
import NIOFoundationCompat
import SocialNetwork
import Testing

/// atproto OAuth against the fake's authorization server, which checks each step: PAR, PKCE, DPoP proofs with nonces.
@Suite("Bluesky OAuth: PAR, PKCE and DPoP against a server that checks each step")
struct BlueskyOAuthTests {
    static let redirect = "http://127.0.0.1:54321/callback"
    static let scope = "atproto rpc:app.bsky.feed.getActorLikes?aud=*"
    /// A browser that does not follow redirects: the test reads where the server sends the person.
    static let browser = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))

    /// The person's browser: opens `address`, signs in as `identifier` with `password` and presses `decision`; returns
    /// the redirect's query (nil when the page did not redirect) and the pages' statuses.
    static func signIn(at address: URL, identifier: String, password: String, decision: String = "accept") async throws -> (
        query: [String: String]?, pages: [Int]
    ) {
        let page = try await browser.execute(HTTPClientRequest(url: address.absoluteString), timeout: .seconds(10))
        let html = String(buffer: try await page.body.collect(upTo: 1 << 20))
        guard page.status == .ok, let match = html.firstMatch(of: /name="request_uri" value="([^"]+)"/) else { return (nil, [Int(page.status.code)]) }
        var form = HTTPClientRequest(url: "\(address.scheme!)://\(address.host!):\(address.port!)/oauth/authorize")
        form.method = .POST
        form.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        let fields = [
            "request_uri": String(match.1).replacingOccurrences(of: "&amp;", with: "&"), "identifier": identifier, "password": password,
            "decision": decision,
        ]
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        form.body = .bytes(
            ByteBuffer(string: fields.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed)!)" }.joined(separator: "&")))
        let answer = try await browser.execute(form, timeout: .seconds(10))
        _ = try await answer.body.collect(upTo: 1 << 20)
        guard answer.status == .found, let location = answer.headers.first(name: "Location"), let components = URLComponents(string: location) else {
            return (nil, [200, Int(answer.status.code)])
        }
        #expect(location.hasPrefix(redirect + "?"), "redirected to \(location)")
        return (Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { $1 }, [200, 302])
    }

    /// Sends one POST with `form` and the DPoP header `proof` as given; returns status and OAuth error.
    static func post(_ url: URL, _ form: String, proof: String?) async throws -> (Int, String?) {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        if let proof { request.headers.add(name: "DPoP", value: proof) }
        request.body = .bytes(ByteBuffer(string: form))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let data = Data(buffer: try await response.body.collect(upTo: 1 << 20))
        let error = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["error"] as? String
        return (Int(response.status.code), error)
    }

    @Test(
        "The person signs in as themselves: PAR with PKCE and a DPoP proof (the nonce asked for and given), the server's own page, the redirect with state and iss, the code exchanged for DPoP-bound tokens naming their DID; a refresh gives new tokens and spends the old refresh token"
    )
    func signInAndRefresh() async throws {
        let server = FakeBlueskyServer(seed: BlueskyFixture.seed)
        try await server.withRunning { url in
            let oauth = BlueskyOAuth()
            let key = DPoPKey()
            let metadata = try await oauth.server(for: url)
            #expect(metadata.issuer == "http://127.0.0.1:\(url.port!)" && metadata.pushedAuthorizationRequestEndpoint.path == "/oauth/par")
            let now = await server.now()
            let authorization = try await oauth.authorize(
                at: metadata, handle: "person.test", scope: Self.scope, redirectURI: Self.redirect, key: key, now: now)
            #expect(authorization.address.absoluteString.hasPrefix(metadata.authorizationEndpoint.absoluteString + "?client_id=http"))
            #expect(
                await server.oauthRefusals() == ["par: use_dpop_nonce: Authorization server requires nonce in DPoP proof"],
                "the first proof has no nonce; the one sent again has the server's")
            let (query, pages) = try await Self.signIn(at: authorization.address, identifier: "person.test", password: "person.test-password")
            let redirected = try #require(query, "pages: \(pages)")
            #expect(redirected["iss"] == metadata.issuer && redirected["state"] == authorization.state && redirected["code"] != nil)

            let tokens = try await oauth.finish(authorization, redirectQuery: redirected, key: key, now: now)
            #expect(tokens.sub == BlueskyFixture.person && tokens.tokenType == "DPoP" && tokens.scope == Self.scope)
            let refreshToken = try #require(tokens.refreshToken)
            let renewed = try await oauth.refresh(
                refreshToken, clientID: authorization.clientID, tokenEndpoint: metadata.tokenEndpoint, key: key, now: now)
            #expect(renewed.sub == BlueskyFixture.person && renewed.refreshToken != refreshToken && renewed.accessToken != tokens.accessToken)
            #expect(await server.oauthTokensIssued() == ["authorization_code": 1, "refresh_token": 1])

            // The same code twice is refused (and what it gave revoked); the spent refresh token too.
            await #expect(throws: BlueskyOAuthError.self) { try await oauth.finish(authorization, redirectQuery: redirected, key: key, now: now) }
            do {
                _ = try await oauth.refresh(refreshToken, clientID: authorization.clientID, tokenEndpoint: metadata.tokenEndpoint, key: key, now: now)
                Issue.record("a spent refresh token was taken")
            } catch let error as BlueskyOAuthError {
                #expect(error.isGrantRefused, "\(error)")
            }
        }
    }

    @Test(
        "A stolen code is useless: with another DPoP key, another client, or without the PKCE verifier the exchange is refused; a wrong password or a denial gives no code; a redirect with another state is ignored"
    )
    func stolenCode() async throws {
        let server = FakeBlueskyServer(seed: BlueskyFixture.seed)
        try await server.withRunning { url in
            let oauth = BlueskyOAuth()
            let key = DPoPKey()
            let metadata = try await oauth.server(for: url)
            let now = await server.now()
            func authorized() async throws -> (BlueskyOAuth.Authorization, [String: String]) {
                let authorization = try await oauth.authorize(
                    at: metadata, handle: "person.test", scope: Self.scope, redirectURI: Self.redirect, key: key, now: now)
                let (query, pages) = try await Self.signIn(at: authorization.address, identifier: "person.test", password: "person.test-password")
                return (authorization, try #require(query, "pages: \(pages)"))
            }

            // Another program holding the code, with its own key: refused for the key, and the code spent.
            let (first, firstQuery) = try await authorized()
            let thief = BlueskyOAuth()
            await #expect(
                throws: BlueskyOAuthError.refused(
                    endpoint: "token", status: 400, error: "invalid_dpop_key_binding",
                    description: "DPoP key does not match the one used for PAR")
            ) {
                try await thief.finish(first, redirectQuery: firstQuery, key: DPoPKey(), now: now)
            }
            // Another client id, with the right key.
            var (second, secondQuery) = try await authorized()
            second.clientID = BlueskyOAuth.loopbackClientID(redirectURI: Self.redirect, scope: "atproto")
            await #expect(
                throws: BlueskyOAuthError.refused(
                    endpoint: "token", status: 400, error: "invalid_grant", description: "The code was issued to another client")
            ) {
                try await oauth.finish(second, redirectQuery: secondQuery, key: key, now: now)
            }
            // Without the verifier this run made.
            var (third, thirdQuery) = try await authorized()
            third.proof = CodeExchangeProof()
            await #expect(
                throws: BlueskyOAuthError.refused(endpoint: "token", status: 400, error: "invalid_grant", description: "Invalid code_verifier")
            ) {
                try await oauth.finish(third, redirectQuery: thirdQuery, key: key, now: now)
            }
            // Another state: not this run's sign-in.
            let (fourth, fourthQuery) = try await authorized()
            var forged = fourthQuery
            forged["state"] = "someone-else's"
            await #expect(throws: BlueskyOAuthError.self) { try await oauth.finish(fourth, redirectQuery: forged, key: key, now: now) }

            // A wrong password: the page again, no code. A denial: the redirect says so.
            let fifth = try await oauth.authorize(
                at: metadata, handle: "person.test", scope: Self.scope, redirectURI: Self.redirect, key: key, now: now)
            let wrong = try await Self.signIn(at: fifth.address, identifier: "person.test", password: "guess")
            #expect(wrong.query == nil && wrong.pages == [200, 401])
            let denied = try #require(
                try await Self.signIn(at: fifth.address, identifier: "person.test", password: "person.test-password", decision: "deny").query)
            #expect(denied["error"] == "access_denied" && denied["code"] == nil)
            await #expect(
                throws: BlueskyOAuthError.refused(endpoint: "authorize", status: 400, error: "access_denied", description: "The user denied access")
            ) {
                try await oauth.finish(fifth, redirectQuery: denied, key: key, now: now)
            }
            // A denial forged by another page (the listener is on this machine's loopback, reachable from any page the
            // browser shows): without this sign-in's state it is not this sign-in's answer, and ends nothing.
            await #expect(throws: BlueskyOAuthError.mismatch("the answer carries another state than this sign-in's: not this run's sign-in, ignored"))
            {
                try await oauth.finish(fifth, redirectQuery: ["error": "access_denied", "state": "forged"], key: key, now: now)
            }
            #expect(await server.oauthTokensIssued().isEmpty, "no tokens for any of these")
        }
    }

    @Test(
        "Signing in on the page as another account than the handle named is refused, and the grant that other account gave is revoked at the server, not left live"
    )
    func signedInAsSomeoneElse() async throws {
        let server = FakeBlueskyServer(seed: BlueskyFixture.seed)
        try await server.withRunning { url in
            await server.setClock(Date(), speed: 1)
            let signIn = try await BlueskyOAuthSignIn.begin(
                handle: "person.test", service: url, liking: false, redirectURI: Self.redirect, logger: BlueskyFixture.quiet_logger)
            let back = try await Self.signIn(at: signIn.address, identifier: "friend.test", password: "friend.test-password")
            do {
                _ = try await signIn.finish(redirectQuery: try #require(back.query))
                Issue.record("a sign-in as friend.test was taken for person.test")
            } catch let refused as AuthorizationRefused {
                #expect(refused.description.contains("not as @person.test"), "\(refused)")
            }
            #expect(await server.oauthTokensIssued()["authorization_code"] == 1)
            #expect(await server.requestCounts()["oauth/revoke"] == 1, "the other account's grant revoked")
            #expect(await server.oauthGrantsLive(of: BlueskyFixture.friend) == 0)
        }
    }

    @Test(
        "The command's loopback listener waits for this sign-in's own answer: a forged denial and a request without its state are answered and passed over"
    )
    func listenerTakesOnlyItsAnswer() async throws {
        let listener = try await LoopbackRedirect.listen()
        let waiting = Task { await listener.query { $0["state"] == "this-sign-in" } }
        for query in ["error=access_denied&state=forged", "code=stolen", "code=real&state=this-sign-in&iss=http%3A%2F%2Fas"] {
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: listener.redirectURI + "?" + query), timeout: .seconds(10))
            _ = try await response.body.collect(upTo: 1 << 16)
            #expect(response.status == .ok)
        }
        let taken = await waiting.value
        await listener.close()
        #expect(taken?["code"] == "real" && taken?["iss"] == "http://as")
    }

    @Test(
        "Where the service does not serve resolveIdentity, the handle is resolved by resolveHandle and its DID document from the directory, which must claim the handle back; an unknown handle is refused as such"
    )
    func identityWithoutResolveIdentity() async throws {
        let server = FakeBlueskyServer(seed: BlueskyFixture.seed)
        try await server.withRunning { url in
            await server.setClock(Date(), speed: 1)
            await server.add(fault: .notImplemented, for: "com.atproto.identity.resolveIdentity")
            let signIn = try await BlueskyOAuthSignIn.begin(
                handle: "@Person.test", service: url, liking: false, redirectURI: Self.redirect, logger: BlueskyFixture.quiet_logger)
            let back = try await Self.signIn(at: signIn.address, identifier: "person.test", password: "person.test-password")
            let (authorized, session) = try await signIn.finish(redirectQuery: try #require(back.query))
            #expect(authorized.networkAccount == BlueskyFixture.person && session.pds?.absoluteString == url.absoluteString)
            let counts = await server.requestCounts()
            #expect(counts["com.atproto.identity.resolveHandle"] == 1, "resolved by resolveHandle: \(counts)")

            await server.add(fault: .notImplemented, for: "com.atproto.identity.resolveIdentity")
            await #expect(throws: AuthorizationRefused.self) {
                _ = try await BlueskyOAuthSignIn.begin(
                    handle: "nobody.test", service: url, liking: false, redirectURI: Self.redirect, logger: BlueskyFixture.quiet_logger)
            }
            // A DID document naming another handle does not verify this one.
            let document = try JSONDecoder().decode(DIDDocument.self, from: Data(#"{"id": "did:plc:x", "alsoKnownAs": ["at://someone.else"]}"#.utf8))
            #expect(!document.claims(handle: "person.test") && document.claims(handle: "Someone.Else"))
        }
    }

    @Test(
        "DPoP proofs are checked: a replayed proof, one for another address or method, one signed by another key than its jwk, one without a nonce or too old, and none at all are each refused"
    )
    func proofsChecked() async throws {
        let server = FakeBlueskyServer(seed: BlueskyFixture.seed)
        try await server.withRunning { url in
            let metadata = try await BlueskyOAuth().server(for: url)
            let par = metadata.pushedAuthorizationRequestEndpoint
            let now = await server.now()
            let key = DPoPKey()
            let form = BlueskyOAuthTests.parForm(CodeExchangeProof())
            // No nonce: refused, and the nonce is given.
            #expect(try await Self.post(par, form, proof: try key.proof(method: "POST", url: par, nonce: nil, now: now)) == (400, "use_dpop_nonce"))
            let nonce = try await Self.nonce(of: par, now: now)
            let proof = try key.proof(method: "POST", url: par, nonce: nonce, now: now)
            #expect(try await Self.post(par, form, proof: proof) == (201, nil))
            #expect(try await Self.post(par, form, proof: proof) == (400, "invalid_dpop_proof"), "the same proof again")
            #expect(await server.oauthRefusals().last == "par: invalid_dpop_proof: DPoP proof replayed")

            let current = try await Self.nonce(of: par, now: now)
            #expect(try await Self.post(par, form, proof: nil) == (400, "invalid_dpop_proof"))
            #expect(
                try await Self.post(par, form, proof: try key.proof(method: "GET", url: par, nonce: current, now: now)) == (400, "invalid_dpop_proof")
            )
            #expect(
                try await Self.post(par, form, proof: try key.proof(method: "POST", url: metadata.tokenEndpoint, nonce: current, now: now)) == (
                    400, "invalid_dpop_proof"
                ))
            #expect(
                try await Self.post(par, form, proof: try key.proof(method: "POST", url: par, nonce: current, now: now.addingTimeInterval(-3_600)))
                    == (400, "invalid_dpop_proof"))
            #expect(
                try await Self.post(par, form, proof: try key.proof(method: "POST", url: par, nonce: "made-up", now: now)) == (400, "use_dpop_nonce"))
            // Another key's signature under this key's jwk.
            let mine = try key.proof(method: "POST", url: par, nonce: current, now: now).split(separator: ".")
            let other = try DPoPKey().proof(method: "POST", url: par, nonce: current, now: now).split(separator: ".")
            #expect(try await Self.post(par, form, proof: "\(mine[0]).\(mine[1]).\(other[2])") == (400, "invalid_dpop_proof"))
            let refusals = await server.oauthRefusals().suffix(6)
            #expect(
                Array(refusals) == [
                    "par: invalid_dpop_proof: DPoP proof required", "par: invalid_dpop_proof: htm does not match",
                    "par: invalid_dpop_proof: htu does not match \(par.absoluteString)",
                    "par: invalid_dpop_proof: iat is missing or too far from now",
                    "par: use_dpop_nonce: Authorization server requires nonce in DPoP proof", "par: invalid_dpop_proof: signature does not verify",
                ],
                "\(refusals)")
        }
    }

    @Test("The person revoking the app's access ends the grant: the next refresh is refused with invalid_grant, which says only a new sign-in helps")
    func revoked() async throws {
        let server = FakeBlueskyServer(seed: BlueskyFixture.seed)
        try await server.withRunning { url in
            let oauth = BlueskyOAuth()
            let key = DPoPKey()
            let metadata = try await oauth.server(for: url)
            let now = await server.now()
            let authorization = try await oauth.authorize(
                at: metadata, handle: "person.test", scope: Self.scope, redirectURI: Self.redirect, key: key, now: now)
            let query = try #require(
                try await Self.signIn(at: authorization.address, identifier: "person.test", password: "person.test-password").query)
            let tokens = try await oauth.finish(authorization, redirectQuery: query, key: key, now: now)
            await server.revokeOAuthGrants(of: BlueskyFixture.person)
            do {
                _ = try await oauth.refresh(
                    try #require(tokens.refreshToken), clientID: authorization.clientID, tokenEndpoint: metadata.tokenEndpoint, key: key, now: now)
                Issue.record("a revoked grant was refreshed")
            } catch let error as BlueskyOAuthError {
                #expect(error.isGrantRefused && error.description.contains("invalid_grant: The session was revoked"), "\(error)")
            }
        }
    }

    @Test(
        "An OAuth session acts as the person: DPoP-bound requests (the PDS's nonce asked for and given), its scope kept (likes only when granted), renewed at the authorization server when its access token expires, and a revoked grant refused as such; no password login ever"
    )
    func sessionActsAsThePerson() async throws {
        let server = FakeBlueskyServer(seed: BlueskyFixture.seed)
        try await server.withRunning { url in
            // The sign-in signs its proofs with the machine's clock: the fake's runs with it.
            await server.setClock(Date(), speed: 1)
            // The client's own clock, moved with the fake's below.
            let clock = ManualBotClock(now: await server.now())
            func signedIn(liking: Bool) async throws -> BlueskyClient {
                let signIn = try await BlueskyOAuthSignIn.begin(
                    handle: "@person.test", service: url, liking: liking, redirectURI: Self.redirect, logger: BlueskyFixture.quiet_logger)
                let back = try await Self.signIn(at: signIn.address, identifier: "person.test", password: "person.test-password")
                let (authorized, session) = try await signIn.finish(redirectQuery: try #require(back.query))
                #expect(authorized.networkAccount == BlueskyFixture.person && session.oauth?.scope == BlueskyOAuthSignIn.scope(liking: liking))
                #expect(session.pds?.absoluteString == url.absoluteString, "the PDS from the DID document")
                let sessions = InMemoryBlueskySessions()
                await sessions.save(session, of: .human)
                return BlueskyClient(
                    configuration: .init(
                        service: url, accounts: [.human: BlueskyAccess(handle: "person.test", appPassword: nil, signsInWithOAuth: true)],
                        initialBackoff: .milliseconds(1)),
                    sessionStore: sessions, clock: clock, logger: BlueskyFixture.quiet_logger)
            }
            let client = try await signedIn(liking: true)
            let narrow = try await signedIn(liking: false)
            let me = try await client.send(GetSession(), as: .human)
            #expect(me.did == BlueskyFixture.person && me.handle == "person.test")
            #expect(
                await server.oauthRefusals().contains(
                    "xrpc com.atproto.server.getSession: use_dpop_nonce: Authorization server requires nonce in DPoP proof"))
            _ = try await client.send(GetActorLikes(actor: BlueskyFixture.person, limit: 5), as: .human)

            // An hour on: the access token expired, renewed with the refresh token (spent: the next one is kept).
            let before = try await client.session(of: .human)
            await server.advanceClock(by: 3_700)
            clock.advance(by: 3_700)
            _ = try await client.send(GetSession(), as: .human)
            let after = try await client.session(of: .human)
            var rebound = after.oauth
            rebound?.renewedAt = nil
            #expect(after.refreshJwt != before.refreshJwt && rebound == before.oauth, "the same grant, key and server")
            #expect(after.oauth?.renewedAt == clock.now(), "the renewal noted (the server's idle limit counts from it)")
            #expect(await server.oauthTokensIssued()["refresh_token"] == 1)

            // Without the likes permission, likes are refused for the scope, not as a revoked grant.
            do {
                _ = try await narrow.send(GetActorLikes(actor: BlueskyFixture.person, limit: 5), as: .human)
                Issue.record("likes read without their scope")
            } catch BlueskyAPIError.rejected(_, let status, let error, _) {
                #expect(status == 403 && error == "ScopeMissingError")
            }

            // Revoked: refused as a grant the person took back.
            await server.revokeOAuthGrants(of: BlueskyFixture.person)
            do {
                _ = try await client.send(GetSession(), as: .human)
                Issue.record("a revoked grant still acts")
            } catch BlueskyAPIError.grantRefused(let account, let detail) {
                #expect(account == .human && detail.contains("invalid_grant"), "\(detail)")
            }
            #expect(await server.createSessionCalls() == 0)
        }
    }

    /// A pushed request's form for the loopback client.
    static func parForm(_ proof: CodeExchangeProof) -> String {
        let clientID = BlueskyOAuth.loopbackClientID(redirectURI: redirect, scope: scope)
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let fields = [
            "client_id": clientID, "response_type": "code", "redirect_uri": redirect, "scope": scope, "state": "s",
            "code_challenge": proof.challenge, "code_challenge_method": "S256",
        ]
        return fields.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed)!)" }.joined(separator: "&")
    }

    /// The server's current nonce: a request without one is refused with it.
    static func nonce(of url: URL, now: Date) async throws -> String {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(name: "DPoP", value: try DPoPKey().proof(method: "POST", url: url, nonce: nil, now: now))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        _ = try await response.body.collect(upTo: 1 << 20)
        return try #require(response.headers.first(name: "DPoP-Nonce"))
    }
}
