import BotClock
import BotConfiguration
import Foundation
import NIOPosix
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// On a Heroku dyno (`DYNO` set) every connection comes from the router's address: the limit of connections per address
/// is off there, and wrong passwords are counted by the router's last `X-Forwarded-For` entry instead (issue 43, item 7).
@Suite("The status server behind Heroku's router", .serialized)
struct BehindRouterTests {
    /// Whether the status page's section of `environment` says a router stands in front.
    static func behindRouter(_ environment: [String: String]) -> Bool {
        var reader = EnvironmentReader(environment: environment)
        let section = StatusPageSection(reading: &reader)
        #expect(reader.problems.isEmpty)
        return section.behindRouter
    }

    @Test("Without DYNO, a 17th connection from one address is closed at once; with DYNO, 24 are held and the last is answered")
    func perAddressLimitOffWithDyno() async throws {
        for (environment, limited) in [(["PORT": "8080"], true), (["PORT": "8080", "DYNO": "web.1"], false)] {
            let behindRouter = Self.behindRouter(environment)
            #expect(behindRouter == !limited)
            // On an event loop of its own, as in the slow-loris tests: connections are counted in the order they came.
            let loops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            defer { loops.shutdownGracefully { _ in } }
            try await StatusWorld.with(.memory, password: "pw", idleTimeout: .seconds(120), eventLoopGroup: loops, behindRouter: behindRouter) {
                world async throws in
                let port = try #require(world.url.port)
                let (held, last) = await OffThePool.run { () -> ([RawConnection], (closed: Bool, answer: String)) in
                    var held: [RawConnection] = []
                    for _ in 0..<(limited ? 16 : 23) {
                        guard let connection = try? RawConnection(port: port, from: "127.0.0.2") else { continue }
                        connection.send("GET /api/v1/actions HTTP/1.1\r\nHost: bot\r\n")  // half a request, never finished
                        held.append(connection)
                    }
                    guard let connection = try? RawConnection(port: port, from: "127.0.0.2") else { return (held, (true, "")) }
                    connection.send("GET /healthz HTTP/1.1\r\nHost: bot\r\n\r\n")
                    return (held, connection.answerHead())
                }
                #expect(held.count == (limited ? 16 : 23))
                if limited {
                    #expect(last.closed && last.answer.isEmpty, "the 17th connection from one address was answered: \(last.answer)")
                } else {
                    #expect(last.answer.hasPrefix("HTTP/1.1 200"), "the 24th connection through the router was not answered: \(last)")
                }
                _ = held
            }
        }
    }

    @Test(
        "With DYNO, wrong passwords are counted by the router's last X-Forwarded-For entry: one client is refused, another through the same router is not"
    )
    func failedLoginsByForwardedAddressWithDyno() async throws {
        let clock = ManualBotClock(now: StatusWorld.dayStart)
        try await StatusWorld.with(.memory, password: "the-right-password", clock: clock, behindRouter: Self.behindRouter(["DYNO": "web.1"])) {
            world async throws in
            let path = "/api/v1/actions"
            let guesser = [("X-Forwarded-For", "192.0.2.1, 198.51.100.7")]
            let other = [("X-Forwarded-For", "198.51.100.8")]
            for attempt in 1...10 { #expect(try await world.request(path, password: "guess \(attempt)", headers: guesser).status == 401) }
            #expect(try await world.request(path, password: "the-right-password", headers: guesser).status == 429)
            #expect(try await world.request(path, password: "the-right-password", headers: other).status == 200)
            // The client's own first entries are not believed: the router's last one names it.
            #expect(
                try await world.request(path, password: "the-right-password", headers: [("X-Forwarded-For", "198.51.100.8, 198.51.100.7")]).status
                    == 429)
        }
    }
}
