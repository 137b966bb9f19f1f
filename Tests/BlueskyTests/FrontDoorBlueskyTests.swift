import BlueskyAPI
import BlueskyNetwork
import FakeBluesky
import FakeKit
import Foundation
import FrontDoor
import Logging
import SocialNetwork
import TestSupport
import Testing

@testable import FakeBluesky

/// The front door on the fake Bluesky: the door is a confidential atproto OAuth client, its metadata and key set served
/// at its own address and read by the fake's authorization server, which checks the client's signed assertion on
/// each request.
@Suite("The front door: signing in on Bluesky (atproto OAuth, the door a confidential client)")
struct FrontDoorBlueskyTests {
    static let logger = Logger(label: "test.door.bluesky") { _ in SwiftLogNoOpLogHandler() }

    /// The door at a free port on 127.0.0.1 (its `PUBLIC_URL`, which the fake reads the client's documents from), its
    /// Bluesky flow resolving handles at the fake `service`.
    static func withDoor(service: URL, _ body: (URL) async throws -> Void) async throws {
        let port = try FreePort.pick()
        let publicURL = URL(string: "http://127.0.0.1:\(port)")!
        let door = WebDoor(publicURL: publicURL, secret: Data(repeating: 7, count: 32), environment: ["BLUESKY_SERVICE_URL": service.absoluteString])
        let settings = FrontDoorServer.Settings(
            host: "127.0.0.1", port: port, publicURL: publicURL, networks: [("bluesky", "Bluesky", try #require(BlueskyWebSignIn().at(door)))])
        try await LoopbackServer.withRunning(logger: logger) { onStarted in
            FrontDoorServer(settings: settings, logger: logger, onStarted: onStarted)
        } _: { base in
            try await body(base)
        }
    }

    @Test(
        "The door serves its client metadata (its client_id its own address, its callback, private_key_jwt, DPoP) and key set; signing in reads them at the fake, signs each request, and lands on the person's page; the callback again is refused"
    )
    func aPersonSignsIn() async throws {
        let server = FakeBlueskyServer(seed: BlueskyFixture.seed)
        try await server.withRunning { service in
            // The door signs its proofs and assertions with the wall clock, as every web app does.
            await server.setClock(Date())
            try await Self.withDoor(service: service) { door in
                try await DoorBrowser.with(door) { browser in
                    let metadataAnswer = try await browser.get("/oauth/client-metadata.json")
                    let metadata = try #require(try JSONSerialization.jsonObject(with: Data(metadataAnswer.html.utf8)) as? [String: Any])
                    #expect(metadata["client_id"] as? String == door.absoluteString + "/oauth/client-metadata.json")
                    #expect(metadata["redirect_uris"] as? [String] == [door.absoluteString + "/sign-in/callback"])
                    #expect(metadata["token_endpoint_auth_method"] as? String == "private_key_jwt")
                    #expect(metadata["dpop_bound_access_tokens"] as? Bool == true && metadata["application_type"] as? String == "web")
                    let keys = try #require(
                        try JSONSerialization.jsonObject(with: Data(try await browser.get("/oauth/jwks.json").html.utf8)) as? [String: Any])
                    let key = try #require((keys["keys"] as? [[String: String]])?.first)
                    #expect(key["kty"] == "EC" && key["crv"] == "P-256" && key["kid"] != nil && key["d"] == nil, "the public half only: \(key)")

                    let csrf = try #require(try await browser.get("/").csrf)
                    let notAHandle = try await browser.post("/sign-in", [("csrf", csrf), ("network", "bluesky"), ("server", "not a handle")])
                    #expect(notAHandle.status == 400 && notAHandle.html.contains("is not a Bluesky handle"), "\(notAHandle.html)")
                    let started = try await browser.post("/sign-in", [("csrf", csrf), ("network", "bluesky"), ("server", "@person.test")])
                    #expect(started.status == 303, "\(started.html)")
                    let address = try #require(started.location.flatMap(URL.init(string:)))
                    #expect(address.path == "/oauth/authorize" && address.absoluteString.contains("client_id=http"), "\(address)")
                    let (redirect, page) = try await SignInPage.submit(at: address, identifier: "person.test", password: "person.test-password")
                    let callback = try #require(redirect, "\(page)")
                    #expect(callback.absoluteString.hasPrefix(door.absoluteString + "/sign-in/callback?"), "\(callback)")
                    let back = try await browser.get(SignInPage.pathAndQuery(of: callback))
                    #expect(back.status == 303 && back.location == "/me", "\(back.html)")
                    let me = try await browser.get("/me")
                    #expect(me.html.contains("<strong>@person.test</strong> (Bluesky)"), "\(me.html)")
                    #expect(try await browser.get(SignInPage.pathAndQuery(of: callback)).status == 400, "a callback used twice")

                    let refusals = await server.oauthRefusals()
                    #expect(!refusals.contains { $0.contains("invalid_client") }, "\(refusals)")
                    #expect(await server.oauthTokensIssued()["authorization_code"] == 1)
                    #expect(await server.oauthGrantsLive(of: BlueskyFixture.person) == 1)
                }
            }
        }
    }

    @Test("The fake takes a client's assertion only signed by a key of its key set, for this server, once")
    func assertionsAreChecked() throws {
        let clientID = "https://door.example/oauth/client-metadata.json"
        let client = ConfidentialClient(clientID: clientID, seed: Data(repeating: 1, count: 32))
        let other = ConfidentialClient(clientID: clientID, seed: Data(repeating: 2, count: 32))
        #expect(client.publicJWK["kid"] != other.publicJWK["kid"], "another secret, another key")
        #expect(
            ConfidentialClient(clientID: clientID, seed: Data(repeating: 1, count: 32)).publicJWK == client.publicJWK, "the same secret, the same key"
        )
        let jwk = client.publicJWK
        let point = try #require(FakeBlueskyOAuthState.decode(jwk["x"]!).flatMap { x in FakeBlueskyOAuthState.decode(jwk["y"]!).map { x + $0 } })
        let fake = FakeBlueskyClient(
            clientID: clientID, redirectURIs: ["https://door.example/sign-in/callback"], scope: "atproto",
            keys: [jwk["kid"]!: try .init(x963Representation: [0x04] + point)])
        let now = Date()
        var seen: Set<String> = []
        func form(_ assertion: String) -> [String: String] {
            ["client_assertion_type": ConfidentialClient.assertionType, "client_assertion": assertion]
        }
        let good = try client.assertion(audience: "https://pds.example", now: now)
        #expect(fake.checkAssertion(form(good), issuer: "https://pds.example", now: now, seen: &seen) == nil)
        #expect(fake.checkAssertion(form(good), issuer: "https://pds.example", now: now, seen: &seen) == "client_assertion was replayed")
        let forged = try other.assertion(audience: "https://pds.example", now: now)
        #expect(fake.checkAssertion(form(forged), issuer: "https://pds.example", now: now, seen: &seen)?.contains("not signed with a key") == true)
        // The other key's signature under this client's header (its kid): the signature does not verify.
        let relabelled = String(good.split(separator: ".")[0]) + "." + forged.split(separator: ".")[1...].joined(separator: ".")
        #expect(
            fake.checkAssertion(form(relabelled), issuer: "https://pds.example", now: now, seen: &seen)
                == "client_assertion's signature does not verify")
        let elsewhere = try client.assertion(audience: "https://other.example", now: now)
        #expect(
            fake.checkAssertion(form(elsewhere), issuer: "https://pds.example", now: now, seen: &seen) == "client_assertion's aud is not this server")
        #expect(fake.checkAssertion([:], issuer: "https://pds.example", now: now, seen: &seen)?.contains("private_key_jwt") == true)
        let stale = try client.assertion(audience: "https://pds.example", now: now.addingTimeInterval(-3_600))
        #expect(fake.checkAssertion(form(stale), issuer: "https://pds.example", now: now, seen: &seen) == "client_assertion has expired")

    }

    @Test(
        "A door on the internet calls only https servers on the internet: a handle whose DID document names a PDS on this machine is refused before anything is sent there"
    )
    func publicOnly() async throws {
        let oauth = BlueskyOAuth(publicOnly: true)
        for address in ["http://127.0.0.1:1", "https://localhost", "https://10.0.0.5", "https://[::1]", "http://pds.example"] {
            await #expect(throws: BlueskyOAuthError.self, "\(address)") { _ = try await oauth.server(for: URL(string: address)!) }
        }
        // The same on a door for this machine (http://localhost): loopback servers are a test's, and allowed.
        let server = FakeBlueskyServer(seed: BlueskyFixture.seed)
        try await server.withRunning { url in
            let metadata = try await BlueskyOAuth(publicOnly: false).server(for: url)
            #expect(metadata.issuer.hasPrefix("http://127.0.0.1"))
            await #expect(throws: BlueskyOAuthError.self) { _ = try await BlueskyOAuth(publicOnly: true).server(for: url) }
        }
    }

    @Test(
        "A confidential client's own refusal (invalid_client, a grant bound to another key) is told from the person taking the grant back: the mirror pauses and keeps everything"
    )
    func clientRefusalIsNoWithdrawal() {
        let client = BlueskyOAuthError.refused(endpoint: "token", status: 401, error: "invalid_client", description: "Invalid client assertion")
        let rekeyed = BlueskyOAuthError.refused(
            endpoint: "token", status: 400, error: "invalid_grant", description: "The session was initiated with a different key")
        let revoked = BlueskyOAuthError.refused(endpoint: "token", status: 400, error: "invalid_grant", description: "The session was revoked")
        #expect(client.isClientRefused && rekeyed.isClientRefused)
        #expect(!revoked.isClientRefused && revoked.isGrantRefused && !revoked.isLapse)
    }
}
