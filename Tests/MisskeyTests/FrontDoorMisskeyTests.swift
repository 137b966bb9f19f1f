import FakeKit
import FakeMisskey
import Foundation
import FrontDoor
import MisskeyNetwork
import TestSupport
import Testing

/// The front door on a fake Misskey instance: MiAuth, the instance sending the browser back to the door's callback
/// with the door's state and its session; the token fetched once.
@Suite("The front door: signing in as oneself on Misskey (MiAuth)")
struct FrontDoorMisskeyTests {
    @Test(
        "Sign in with MiAuth: the session's page names the door's callback with its state; back there, the person's page; the callback again refused")
    func aPersonSignsIn() async throws {
        let server = FakeMisskeyServer(seed: MisskeyFixture.seed, logger: MisskeyFixture.quietLogger)
        try await server.withRunning { instance in
            let settings = FrontDoorServer.Settings(
                host: "127.0.0.1", port: 0, publicURL: URL(string: "http://localhost:9")!, networks: [("misskey", "Misskey", MisskeyWebSignIn())])
            try await LoopbackServer.withRunning(logger: MisskeyFixture.quietLogger) { onStarted in
                FrontDoorServer(settings: settings, logger: MisskeyFixture.quietLogger, onStarted: onStarted)
            } _: { door in
                try await DoorBrowser.with(door) { browser in
                    let csrf = try #require(try await browser.get("/").csrf)
                    let started = try await browser.post("/sign-in", [("csrf", csrf), ("network", "misskey"), ("server", instance.absoluteString)])
                    #expect(started.status == 303, "\(started.html)")
                    let address = try #require(started.location.flatMap { URLComponents(string: $0) })
                    let session = try #require(address.path.split(separator: "/").last.map(String.init))
                    #expect(address.path == "/miauth/\(session)")
                    let callback = try #require(address.queryItems?.first { $0.name == "callback" }?.value.flatMap(URLComponents.init(string:)))
                    #expect(callback.path == "/sign-in/callback")
                    let state = try #require(callback.queryItems?.first { $0.name == "state" }?.value)
                    #expect(address.queryItems?.first { $0.name == "permission" }?.value == "read:account,read:reactions")

                    // Before the person allows it: the door says so, and the sign-in is spent (start again).
                    let early = try await browser.get("/sign-in/callback?state=\(state)&session=\(session)")
                    #expect(early.status == 400 && early.html.contains("no approval for this sign-in"), "\(early.html)")

                    // Again, allowed this time (the fake's consent page is pressed through its admin route).
                    let csrf2 = try #require(try await browser.get("/").csrf)
                    let again = try await browser.post("/sign-in", [("csrf", csrf2), ("network", "misskey"), ("server", instance.absoluteString)])
                    let second = try #require(again.location.flatMap { URLComponents(string: $0) })
                    let session2 = try #require(second.path.split(separator: "/").last.map(String.init))
                    let state2 = try #require(
                        second.queryItems?.first { $0.name == "callback" }?.value.flatMap(URLComponents.init(string:))?.queryItems?.first {
                            $0.name == "state"
                        }?.value)
                    #expect(
                        await server.approveMiAuth(
                            session: session2, accountID: MisskeyFixture.person, permissions: ["read:account", "read:reactions"]))
                    let back = try await browser.get("/sign-in/callback?state=\(state2)&session=\(session2)")
                    #expect(back.status == 303 && back.location == "/me", "\(back.html)")
                    let page = try await browser.get("/me")
                    #expect(page.html.contains("<strong>@person</strong> (Misskey)"), "\(page.html)")
                    #expect(try await browser.get("/sign-in/callback?state=\(state2)&session=\(session2)").status == 400)
                }
            }
        }
    }
}
