import Foundation
import Synchronization
import Testing

@testable import FrontDoor

/// The door takes so many archives at once, one per person, each with room for it on the disk.
@Suite("The front door's upload slots")
struct UploadSlotsTests {
    @Test("At most the limit in flight, one per person; a slot given back is taken again")
    func limitAndOnePerPerson() async {
        let slots = UploadSlots(limit: 2, spare: 0, freeBytes: { nil })
        #expect(await slots.take(for: "alice", bytes: 10) == nil)
        #expect(await slots.take(for: "alice", bytes: 10) == .yoursInFlight)
        #expect(await slots.take(for: "bob", bytes: 10) == nil)
        #expect(await slots.take(for: "carol", bytes: 10) == .busy)
        await slots.release("alice")
        #expect(await slots.take(for: "carol", bytes: 10) == nil)
        #expect(await slots.count == 2)
    }

    @Test("Each upload needs room beside those in flight and the spare: one that does not fit is refused, and fits once room is back")
    func roomOnTheDisk() async {
        let free = Mutex(1_000)
        let slots = UploadSlots(limit: 8, spare: 100, freeBytes: { free.withLock { $0 } })
        #expect(await slots.take(for: "alice", bytes: 600) == nil)
        #expect(await slots.take(for: "bob", bytes: 301) == .noRoom, "600 reserved and 100 spare leave 300")
        #expect(await slots.take(for: "bob", bytes: 300) == nil)
        await slots.release("alice")
        free.withLock { $0 = 2_000 }
        #expect(await slots.take(for: "carol", bytes: 1_500) == nil, "2,000 free, 300 reserved, 100 spare: 1,600 left")
    }
}
