import FakeKit
import FakeMastodon
import FakeX
import Foundation
import Testing

@Suite("A fake's line of the fakes' registry: what it refuses to serve, said before it listens")
struct FakeNetworkLineTests {
    static func request(persona: FakePersona?, seedPath: String? = nil, extraBots: Int = 0, options: [String] = []) -> FakeServeRequest {
        FakeServeRequest(
            persona: persona, seedPath: seedPath, speed: nil, extraBots: extraBots, options: options, host: "127.0.0.1", port: 0
        ) { port in Issue.record("listened on \(port) though the request was refused") }
    }

    static let persona = FakePersona(.init(dayStart: Date(timeIntervalSince1970: 1_795_273_200), historyDays: 2, followedAccounts: 1))

    @Test("Fake X refuses an access level it does not know, an option of another fake, credits that are no amount, extra bots")
    func fakeXOptions() async {
        let cases: [(FakeServeRequest, String)] = [
            (Self.request(persona: Self.persona, options: ["--access", "premium"]), "--access must be pay-per-use or enterprise, not premium"),
            (Self.request(persona: Self.persona, options: ["--access=free"]), "--access must be pay-per-use or enterprise, not free"),
            (Self.request(persona: Self.persona, options: ["--domain", "a.example"]), "fake X takes --access and --credits, not --domain."),
            (Self.request(persona: Self.persona, options: ["--credits", "-3"]), "--credits must be a number of dollars, not -3"),
            (Self.request(persona: Self.persona, options: ["--credits"]), "--credits needs a value."),
            (Self.request(persona: Self.persona, extraBots: 2), "--network x serves no extra bots."),
            (Self.request(persona: nil), "Give either --seed FILE or --persona."),
        ]
        for (request, message) in cases {
            await #expect(throws: FakeServeError.self, "\(request.options)") {
                do { try await FakeXNetwork().serve(request) } catch let error as FakeServeError {
                    #expect(error.description == message)
                    throw error
                }
            }
        }
    }

    @Test("A fake that serves only the persona says so for a seed file, and refuses options it does not take")
    func personaOnly() async {
        for (request, message) in [
            (Self.request(persona: nil, seedPath: "/tmp/seed.json"), "--network mastodon serves the generated persona: give --persona."),
            (Self.request(persona: Self.persona, options: ["--access", "enterprise"]), "fake Mastodon takes --password, not --access."),
            (Self.request(persona: Self.persona, options: ["--password"]), "--password needs a value."),
        ] {
            await #expect(throws: FakeServeError.self) {
                do { try await FakeMastodonNetwork().serve(request) } catch let error as FakeServeError {
                    #expect(error.description == message)
                    throw error
                }
            }
        }
    }

    @Test("The demo's shell lines: the values reach the shell as written, the fake's address put in where it is named")
    func demoScript() throws {
        let demo = FakeDemo(
            serveOptions: ["--access", "it's"], environment: [("A_URL", FakeDemo.serverURL + "/api"), ("B", #"a "b" $HOME `x` \ c"#)],
            trainSchedulerArguments: ["--max-posts", "900"], trainSchedulerNote: "at most $0.91", likes: true)
        let script =
            demo.shell(networkName: "Name's") + """
                demo_environment
                printf '%s\\n' "$network_name" "${fake_options[1]}" "${train_scheduler_args[*]}" "$train_scheduler_note" "$demo_likes" "$A_URL" "$B"
                """
        let bash = Process()
        bash.executableURL = URL(fileURLWithPath: "/bin/bash")
        bash.arguments = ["-euc", script]
        bash.environment = ["FAKE_X_URL": "http://127.0.0.1:9"]
        let output = Pipe()
        bash.standardOutput = output
        try bash.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        bash.waitUntilExit()
        #expect(bash.terminationStatus == 0)
        #expect(
            text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                == ["Name's", "it's", "--max-posts 900", "at most $0.91", "1", "http://127.0.0.1:9/api", #"a "b" $HOME `x` \ c"#, ""], "\(text)")
    }

    @Test("Each fake's demo names the persona's accounts with its address, and only X's bills its archive's reading")
    func everyFakesDemo() {
        for fake in [FakeXNetwork() as any FakeNetwork, FakeMastodonNetwork()] {
            let demo = fake.demo(likes: false)
            #expect(demo.environment.contains { $0.value.contains(FakeDemo.serverURL) }, "\(fake.key)")
            #expect(!demo.trainSchedulerNote.isEmpty)
        }
        #expect(FakeXNetwork().demo(likes: true).serveOptions == ["--access", "enterprise"])
        #expect(FakeXNetwork().demo(likes: false).serveOptions == ["--access", "pay-per-use"])
        #expect(FakeMastodonNetwork().demo(likes: false).serveOptions.isEmpty && FakeMastodonNetwork().demo(likes: false).likes)
    }
}
