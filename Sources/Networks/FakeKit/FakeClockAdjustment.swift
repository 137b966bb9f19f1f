public import Foundation

/// A fake server's clock, as its `POST /admin/clock` moves it: fake X's, the fake Mastodon's and the fake Bluesky's.
public protocol AdjustableFakeClock: Actor {
    /// The fake's time now.
    var now: Date { get }
    /// Fake seconds per real second (0: stopped).
    var speed: Double { get }
    /// Sets the clock when the next request arrives (a bot started just now and the fake then agree).
    func armClock(_ date: Date, speed: Double)
    /// Sets the clock and, when given, its speed.
    func setClock(_ date: Date, speed: Double?)
    /// Moves the clock forward.
    func advanceClock(by seconds: TimeInterval)
}

/// The body of `POST /admin/clock`: `now` and `speed` set the clock (with `on_first_request`, when the next request
/// arrives), `advance_seconds` moves it forward.
public struct FakeClockAdjustment: Decodable, Sendable {
    /// The time to set.
    public var now: Date?
    /// Seconds to move forward.
    public var advanceSeconds: Double?
    /// The speed to set.
    public var speed: Double?
    /// Whether to set the clock when the next request arrives instead of now.
    public var onFirstRequest: Bool?

    enum CodingKeys: String, CodingKey {
        case now, speed
        case advanceSeconds = "advance_seconds"
        case onFirstRequest = "on_first_request"
    }

    /// What a body that is not one is told.
    public static let expected = "expected {\"now\": ISO 8601, \"speed\": n, \"on_first_request\": bool} or {\"advance_seconds\": n}"

    /// Reads a request's body; nil when it is not one.
    public init?(body: Data) {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let read = try? decoder.decode(Self.self, from: body) else { return nil }
        self = read
    }

    /// Moves `clock` as asked; true when it was armed for the next request rather than set.
    @discardableResult
    public func apply(to clock: some AdjustableFakeClock) async -> Bool {
        let (current, currentSpeed) = (await clock.now, await clock.speed)
        if onFirstRequest == true {
            await clock.armClock(now ?? current, speed: speed ?? currentSpeed)
            return true
        }
        if now != nil || speed != nil { await clock.setClock(now ?? current, speed: speed) }
        if let advanceSeconds { await clock.advanceClock(by: advanceSeconds) }
        return false
    }
}
