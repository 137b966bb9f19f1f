import AsyncHTTPClient
import FakeKit
import FakeMastodon
import Foundation
import MastodonNetwork
import NIOCore
import SocialNetwork
import TestSupport
import Testing

@testable import FrontDoor

/// The front door (`mirror_bot web`, its first part) on a fake Mastodon instance: a person signs in as themselves, and
/// nothing signs them in but their own approval, in their own browser, once.
@Suite("The front door: signing in as oneself on Mastodon, sessions and CSRF")
struct FrontDoorMastodonTests {
    /// Runs `body` with the door serving Mastodon's sign-in, beside a fake instance.
    static func withDoor(
        signUp: DoorSignUp? = nil, _ body: @Sendable (FakeMastodonServer, URL, URL) async throws -> Void
    ) async throws {
        try await withFakeMastodon { server, instance in
            var settings = FrontDoorServer.Settings(
                host: "127.0.0.1", port: 0, publicURL: URL(string: "http://localhost:9")!,
                networks: [("mastodon", "Mastodon", MastodonWebSignIn())])
            if let signUp { settings.signUp = signUp }
            try await LoopbackServer.withRunning(logger: MastodonFixture.logger) { onStarted in
                FrontDoorServer(settings: settings, logger: MastodonFixture.logger, onStarted: onStarted)
            } _: { door in
                try await body(server, instance, door)
            }
        }
    }

    /// Opens the start page and starts a sign-in on `instance`: the instance's authorization address.
    static func startSignIn(_ browser: DoorBrowser, instance: URL) async throws -> URL {
        let start = try await browser.get("/")
        #expect(start.status == 200)
        let csrf = try #require(start.csrf)
        let started = try await browser.post("/sign-in", [("csrf", csrf), ("network", "mastodon"), ("server", instance.absoluteString)])
        #expect(started.status == 303, "\(started.html)")
        return try #require(started.location.flatMap(URL.init(string:)))
    }

    @Test(
        "Sign in, the person's page, a new session id at sign-in, the callback good once, sign-out with its token only"
    )
    func aPersonSignsIn() async throws {
        try await Self.withDoor { server, instance, door in
            try await DoorBrowser.with(door) { browser in
                let start = try await browser.get("/")
                let setCookie = try #require(start.setCookie)
                #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Lax") && setCookie.hasPrefix("mirror_session="))
                #expect(start.html.contains("<option value=\"mastodon\">Mastodon</option>") && start.html.contains("lang=\"en\""))
                let address = try await Self.startSignIn(browser, instance: instance)
                let visitorCookie = try #require(browser.cookie)
                #expect(address.absoluteString.hasPrefix(instance.absoluteString) && address.path() == "/oauth/authorize")
                let query = MastodonAuthorizationTests.query(of: address)
                let state = try #require(query["state"])
                #expect(query["redirect_uri"] == "http://localhost:9/sign-in/callback")

                let code = try await server.approveAuthorization(at: address, as: MastodonFixture.personID)
                let callback = "/sign-in/callback?code=\(code)&state=\(state)"
                let back = try await browser.get(callback)
                #expect(back.status == 303 && back.location == "/me", "\(back.html)")
                #expect(browser.cookie != visitorCookie, "a new session id at sign-in")
                let page = try await browser.get("/me")
                #expect(page.status == 200 && page.html.contains("<strong>@person</strong> (Mastodon)"), "\(page.html)")
                #expect(!page.html.contains(code), "no code or token on a page")

                // The visitor's old id is worth nothing now.
                try await DoorBrowser.with(door) { stale in
                    stale.cookie = visitorCookie
                    #expect(try await stale.get("/me").location == "/")
                    // The callback again: the sign-in was used.
                    let replay = try await browser.get(callback)
                    #expect(replay.status == 400 && replay.html.contains("used already"))

                    // Sign-out needs the page's token.
                    #expect(try await browser.post("/sign-out", []).status == 403)
                    let csrf = try #require(page.csrf)
                    let out = try await browser.post("/sign-out", [("csrf", csrf)])
                    #expect(out.status == 303 && out.location == "/")
                    #expect(try await browser.get("/me").location == "/")
                }
            }
        }
    }

    @Test("A sign-in without the form's token is refused; another browser cannot finish a sign-in it did not start")
    func csrfAndStateStayWithTheirBrowser() async throws {
        try await Self.withDoor { server, instance, door in
            try await DoorBrowser.with(door) { first in
                try await DoorBrowser.with(door) { second in
                    _ = try await second.get("/")
                    let secondsToken = try #require(try await second.get("/").csrf)
                    _ = try await first.get("/")
                    // No token, or another browser's: refused, and nothing registered on the instance.
                    #expect(try await first.post("/sign-in", [("network", "mastodon"), ("server", instance.absoluteString)]).status == 403)
                    #expect(
                        try await first.post("/sign-in", [("csrf", secondsToken), ("network", "mastodon"), ("server", instance.absoluteString)])
                            .status == 403
                    )
                    #expect(await server.registeredApplications().isEmpty)

                    let address = try await Self.startSignIn(first, instance: instance)
                    let state = try #require(MastodonAuthorizationTests.query(of: address)["state"])
                    let code = try await server.approveAuthorization(at: address, as: MastodonFixture.personID)
                    // The second browser brings the first's callback: refused, and the sign-in is used up (on MiAuth, where the
                    // approval does not rest on the code, the first browser could otherwise finish what another approved).
                    let stolen = try await second.get("/sign-in/callback?code=\(code)&state=\(state)")
                    #expect(stolen.status == 400)
                    #expect(try await second.get("/me").location == "/")
                    let own = try await first.get("/sign-in/callback?code=\(code)&state=\(state)")
                    #expect(own.status == 400 && own.html.contains("start again"), "\(own.html)")
                    #expect(try await first.get("/me").location == "/")
                    // Started again in its own browser, it signs in.
                    let again = try await Self.startSignIn(first, instance: instance)
                    let newState = try #require(MastodonAuthorizationTests.query(of: again)["state"])
                    let newCode = try await server.approveAuthorization(at: again, as: MastodonFixture.personID)
                    let signedIn = try await first.get("/sign-in/callback?code=\(newCode)&state=\(newState)")
                    #expect(signedIn.status == 303 && signedIn.location == "/me")
                    // A network the door does not offer.
                    let csrf = try #require(try await second.get("/").csrf)
                    #expect(try await second.post("/sign-in", [("csrf", csrf), ("network", "elsewhere"), ("server", "x.example")]).status == 400)
                }
            }
        }
    }

    @Test("In Japanese for a browser that asks for it first; every answer carries the door's defences")
    func japaneseAndHeaders() async throws {
        try await Self.withDoor { _, _, door in
            try await DoorBrowser.with(door, language: "ja,en;q=0.8") { browser in
                let start = try await browser.get("/")
                #expect(start.html.contains("lang=\"ja\"") && start.html.contains("本人としてサインイン"))
                var request = HTTPClientRequest(url: door.absoluteString + "/")
                request.method = .GET
                let response = try await browser.client.execute(request, timeout: .seconds(10))
                _ = try await response.body.collect(upTo: 1 << 20)
                #expect(response.headers.first(name: "X-Frame-Options") == "DENY")
                #expect(response.headers.first(name: "Referrer-Policy") == "no-referrer")
                #expect(response.headers.first(name: "Cache-Control") == "no-store")
                #expect(response.headers.first(name: "Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)
            }
        }
    }

    @Test("A door on https: its cookie is __Host- and Secure; it never calls this machine or a private network for whoever fills in the form")
    func aPublicDoor() async throws {
        try await withFakeMastodon { server, instance in
            let settings = FrontDoorServer.Settings(
                host: "127.0.0.1", port: 0, publicURL: URL(string: "https://door.example")!, networks: [("mastodon", "Mastodon", MastodonWebSignIn())]
            )
            try await LoopbackServer.withRunning(logger: MastodonFixture.logger) { onStarted in
                FrontDoorServer(settings: settings, logger: MastodonFixture.logger, onStarted: onStarted)
            } _: { door in
                try await DoorBrowser.with(door) { browser in
                    let start = try await browser.get("/")
                    let setCookie = try #require(start.setCookie)
                    #expect(setCookie.hasPrefix("__Host-mirror_session=") && setCookie.contains("; Secure") && setCookie.contains("Path=/"))
                    let csrf = try #require(start.csrf)
                    for typed in [
                        instance.absoluteString, "localhost:3000", "127.0.0.1", "http://10.0.0.7", "192.168.1.20", "[::1]", "169.254.169.254",
                    ] {
                        let answer = try await browser.post("/sign-in", [("csrf", csrf), ("network", "mastodon"), ("server", typed)])
                        #expect(answer.status == 400 && answer.html.contains("private network"), "\(typed): \(answer.status)")
                    }
                    #expect(await server.registeredApplications().isEmpty, "nothing was asked of any server")
                }
            }
        }
    }

    @Test(
        "Private and public names told apart",
        arguments: [
            ("localhost", true), ("printer.local", true), ("10.1.2.3", true), ("172.20.0.1", true), ("172.32.0.1", false), ("100.64.0.9", true),
            ("[fd00::1]", true), ("[::ffff:127.0.0.1]", true), ("mastodon.social", false), ("https://misskey.io", false), ("8.8.8.8", false),
            // Written as the resolver reads them too: short, a single number, hexadecimal, IPv6 in full, mapped.
            ("127.1", true), ("2130706433", true), ("0x7f.0.0.1", true), ("http://127.1:9200", true), ("[0:0:0:0:0:0:0:1]", true),
            ("[::ffff:10.0.0.1]", true), ("[::ffff:8.8.8.8]", false), ("[2001:db8::1]", false), ("[fe80::1]", true), ("Mastodon.Social.", false),
        ])
    func privateNames(server: String, isPrivate: Bool) {
        #expect(FrontDoorServer.namesPrivateNetwork(server) == isPrivate)
    }

    @Test(
        "DOOR_SIGN_UP=servers signs in people of the listed servers only, named as DNS compares them; closed signs people in to manage a mirror, and offers none"
    )
    func signUpModes() async throws {
        try await withFakeMastodon { _, instance in
            let listed = FleetServers.name(of: instance)
            for (allowed, expected) in [([listed], 303), (["mastodon.example"], 403)] {
                try await Self.withDoorOnly(signUp: .servers(Set(allowed))) { door in
                    try await DoorBrowser.with(door) { browser in
                        let start = try await browser.get("/")
                        let csrf = try #require(start.csrf)
                        // Typed as a person might: capitals, a trailing slash.
                        let typed = instance.absoluteString.uppercased().replacingOccurrences(of: "HTTP://", with: "http://") + "/"
                        let started = try await browser.post("/sign-in", [("csrf", csrf), ("network", "mastodon"), ("server", typed)])
                        #expect(started.status == expected, "\(allowed): \(started.html)")
                        if expected == 403 { #expect(started.html.contains("for people on mastodon.example only"), "\(started.html)") }
                    }
                }
            }
        }
        try await Self.withDoor(signUp: .closed) { server, instance, door in
            try await DoorBrowser.with(door) { browser in
                let address = try await Self.startSignIn(browser, instance: instance)
                let state = try #require(URLComponents(url: address, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "state" }?.value)
                let code = try await server.approveAuthorization(at: address, as: "100")
                #expect(try await browser.get("/sign-in/callback?code=\(code)&state=\(state)").status == 303, "the person signs in")
                let page = try await browser.get("/me")
                #expect(page.html.contains("id=\"no-mirrors\">This door makes no new mirrors for now"), "\(page.html)")
                #expect(!page.html.contains("name=\"account\" value=\"bot\""), "no bot sign-in offered")
                let csrf = try #require(page.csrf)
                let bot = try await browser.post(
                    "/sign-in", [("csrf", csrf), ("network", "mastodon"), ("server", instance.absoluteString), ("account", "bot")])
                #expect(bot.status == 403, "\(bot.html)")
            }
        }
    }

    /// The door alone with `signUp`, its networks Mastodon's, without a fake instance of its own.
    static func withDoorOnly(signUp: DoorSignUp, _ body: @Sendable (URL) async throws -> Void) async throws {
        var settings = FrontDoorServer.Settings(
            host: "127.0.0.1", port: 0, publicURL: URL(string: "http://localhost:9")!, networks: [("mastodon", "Mastodon", MastodonWebSignIn())])
        settings.signUp = signUp
        try await LoopbackServer.withRunning(logger: MastodonFixture.logger) { onStarted in
            FrontDoorServer(settings: settings, logger: MastodonFixture.logger, onStarted: onStarted)
        } _: { door in
            try await body(door)
        }
    }

    @Test("Sign-ins started from one address are limited whatever its browsers: the 31st in ten minutes is refused")
    func signInsPerAddress() async throws {
        try await Self.withDoor { _, instance, door in
            var answers: [Int] = []
            for _ in 0..<4 {
                try await DoorBrowser.with(door) { browser in
                    let csrf = try #require(try await browser.get("/").csrf)
                    for _ in 0..<8 {
                        answers.append(
                            try await browser.post("/sign-in", [("csrf", csrf), ("network", "mastodon"), ("server", instance.absoluteString)]).status)
                    }
                }
            }
            #expect(answers.prefix(SignInAttempts.perWindow).allSatisfy { $0 == 303 }, "\(answers)")
            #expect(answers.dropFirst(SignInAttempts.perWindow).allSatisfy { $0 == 429 } && answers.count == 32, "\(answers)")
        }
    }
}
