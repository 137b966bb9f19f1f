import BotCore
import Foundation
import Stores

/// The day plans and their slots in memory: a plan stored once, a slot claimed once.
struct InMemoryPlanStore: PlanStore {
    let set: InMemoryStoreSet

    func slots(of day: String) async throws -> [PlanSlot]? {
        try set.withTables("reading the plan of \(day)") { tables in
            tables.plans[day].map { plan in
                plan.slots.sorted { $0.key < $1.key }.map { minute, slot in
                    PlanSlot(
                        minute: minute, state: slot.state, sourcePostID: slot.sourcePostID, botPostID: slot.botPostID, reason: slot.reason,
                        postedAt: slot.postedAt, postedUnchecked: slot.postedUnchecked, originalCheckedAt: slot.originalCheckedAt)
                }
            }
        }
    }

    func drawnAt(of day: String) async throws -> Date? { try set.withTables("reading when the plan of \(day) was drawn") { $0.plans[day]?.drawnAt } }

    func storePlan(day: String, timeZone: String, minutes: [Int], drawnAt: Date) async throws -> [PlanSlot] {
        try set.withTables("storing the plan of \(day)") { tables in
            guard tables.plans[day] == nil else { return }
            var slots: [Int: Tables.Slot] = [:]
            for minute in minutes where (0..<MinuteWindow.minutesPerDay).contains(minute) { slots[minute] = Tables.Slot(updatedAt: drawnAt) }
            tables.plans[day] = Tables.DayPlan(timeZone: timeZone, drawnAt: drawnAt, slots: slots)
        }
        return try await slots(of: day) ?? []
    }

    /// Changes the slot `minute` of `day` when it exists; whether `change` said it changed it.
    private func update(_ operation: String, day: String, minute: Int, _ change: (inout Tables.Slot) -> Bool) throws -> Bool {
        try set.withTables(operation) { tables in
            guard var slot = tables.plans[day]?.slots[minute] else { return false }
            let changed = change(&slot)
            tables.plans[day]?.slots[minute] = slot
            return changed
        }
    }

    func claim(day: String, minute: Int) async throws -> Bool {
        try update("claiming slot \(minute) of \(day)", day: day, minute: minute) { slot in
            guard slot.state == .planned else { return false }
            slot.state = .posting
            return true
        }
    }

    func markPosted(day: String, minute: Int, sourcePostID: PostID, botPostID: PostID?, postedAt: Date, reason: String, unchecked: Bool) async throws
    {
        try set.withTables("recording slot \(minute) of \(day) as posted") { tables in
            if var slot = tables.plans[day]?.slots[minute] {
                (slot.state, slot.sourcePostID, slot.botPostID, slot.reason, slot.postedAt, slot.postedUnchecked, slot.updatedAt) = (
                    .posted, sourcePostID, botPostID, reason, postedAt, unchecked, postedAt
                )
                tables.plans[day]?.slots[minute] = slot
            }
            tables.botPosts.append(.init(sourcePostID: sourcePostID, botPostID: botPostID, postedAt: postedAt))
        }
    }

    func markSkipped(day: String, minute: Int, at: Date, reason: String) async throws {
        _ = try update("recording slot \(minute) of \(day) as skipped", day: day, minute: minute) { slot in
            guard slot.state == .planned || slot.state == .posting else { return false }
            (slot.state, slot.reason, slot.updatedAt) = (.skipped, reason, at)
            return true
        }
    }

    func noteSending(day: String, minute: Int, sourcePostID: PostID) async throws {
        _ = try update("noting what slot \(minute) of \(day) sends", day: day, minute: minute) { slot in
            guard slot.state == .posting else { return false }
            slot.sourcePostID = sourcePostID
            return true
        }
    }

    func interrupted(day: String) async throws -> [InterruptedSlot] {
        try set.withTables("reading the interrupted slots of \(day)") { tables in
            (tables.plans[day]?.slots ?? [:]).filter { $0.value.state == .posting }.sorted { $0.key < $1.key }.map { minute, slot in
                InterruptedSlot(minute: minute, sourcePostID: slot.sourcePostID, text: slot.sourcePostID.flatMap { tables.posts[$0]?.post.text })
            }
        }
    }

    func uncheckedPosts() async throws -> [UncheckedPost] {
        try set.withTables("reading the posts whose original was not checked") { tables in
            tables.plans.flatMap { day, plan in
                plan.slots.compactMap { minute, slot -> UncheckedPost? in
                    guard slot.postedUnchecked, slot.originalCheckedAt == nil, slot.state == .posted, let source = slot.sourcePostID,
                        let postedAt = slot.postedAt
                    else { return nil }
                    return UncheckedPost(day: day, minute: minute, sourcePostID: source, botPostID: slot.botPostID, postedAt: postedAt)
                }
            }.sorted { ($0.postedAt, $0.day, $0.minute) < ($1.postedAt, $1.day, $1.minute) }
        }
    }

    func markChecked(day: String, minute: Int, at date: Date) async throws {
        _ = try update("recording that the original of slot \(minute) of \(day) was checked", day: day, minute: minute) { slot in
            slot.originalCheckedAt = date
            return true
        }
    }
}
