import Foundation
import Stores
import TestSupport
import Testing

/// `replaceValue`: a compare-and-set two processes on one store cannot interleave (a refresh token spent once).
@Suite("The bot's state: compare-and-set")
struct BotStateReplaceTests {
    @Test("A value is set, changed or removed only from the value expected; of many setting it at once, one wins", arguments: StoreBackends.archives)
    func compareAndSet(_ kind: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(kind) { stores in
            let state = stores.state
            #expect(try await state.replaceValue(of: "claim", expecting: nil, with: "a"), "set where none is")
            #expect(try await !state.replaceValue(of: "claim", expecting: nil, with: "b"), "not set over another's")
            #expect(try await !state.replaceValue(of: "claim", expecting: "x", with: "b"), "not changed from a value it does not hold")
            #expect(try await state.value(of: "claim") == "a")
            #expect(try await state.replaceValue(of: "claim", expecting: "a", with: "b"))
            #expect(try await !state.replaceValue(of: "claim", expecting: "a", with: nil), "not removed from a value it no longer holds")
            #expect(try await state.replaceValue(of: "claim", expecting: "b", with: nil))
            #expect(try await state.value(of: "claim") == nil)
            #expect(try await state.replaceValue(of: "claim", expecting: nil, with: nil), "none where none was expected")

            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for contender in 0..<16 { group.addTask { try await state.replaceValue(of: "race", expecting: nil, with: "\(contender)") } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(winners == 1, "\(winners) claims taken at once")
            let holder = try #require(try await state.value(of: "race"))
            let movers = try await withThrowingTaskGroup(of: Bool.self) { group in
                for contender in 0..<16 { group.addTask { try await state.replaceValue(of: "race", expecting: holder, with: "next \(contender)") } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(movers == 1, "\(movers) moved the same value")
        }
    }
}
