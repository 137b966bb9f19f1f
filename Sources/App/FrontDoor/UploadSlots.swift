import Foundation

/// The archives the door takes at once: at most `limit` uploads in flight, one per person, and each only when the
/// disk holding them has room for it beside those already in flight (their sizes reserved as they start: the
/// `Content-Length`, else the largest the door takes) and `spare` more. An upload that does not fit is refused at
/// once, before any of its body is read: the person is told to try again in a minute.
actor UploadSlots {
    /// Why an upload was not let in.
    enum Refusal: Equatable {
        /// As many uploads as the door takes are in flight.
        case busy
        /// This person has one in flight.
        case yoursInFlight
        /// The disk has no room for it.
        case noRoom
    }

    /// The most uploads in flight.
    let limit: Int
    /// Bytes the disk keeps free beside the uploads.
    let spare: Int
    /// The free bytes of the disk uploads are written to, asked at each start.
    let freeBytes: @Sendable () -> Int?
    private var inFlight: [String: Int] = [:]

    /// Slots for `limit` uploads, the disk's free bytes read by `freeBytes`, `spare` bytes kept free.
    init(limit: Int, spare: Int = 256 << 20, freeBytes: @escaping @Sendable () -> Int?) {
        self.limit = limit
        self.spare = spare
        self.freeBytes = freeBytes
    }

    /// The free bytes of the file system holding `folder` (nil when it cannot be read).
    static func freeBytes(of folder: URL) -> Int? {
        (try? FileManager.default.attributesOfFileSystem(forPath: folder.path)[.systemFreeSize] as? NSNumber)?.intValue
    }

    /// Lets `person`'s upload of `bytes` in, or says why not; a slot let in is given back with `release(person)`.
    func take(for person: String, bytes: Int) -> Refusal? {
        guard inFlight[person] == nil else { return .yoursInFlight }
        guard inFlight.count < limit else { return .busy }
        let reserved = inFlight.values.reduce(0, +)
        if let free = freeBytes(), free - reserved - spare < bytes { return .noRoom }
        inFlight[person] = bytes
        return nil
    }

    /// Gives `person`'s slot back.
    func release(_ person: String) { inFlight[person] = nil }

    /// How many uploads are in flight.
    var count: Int { inFlight.count }
}
