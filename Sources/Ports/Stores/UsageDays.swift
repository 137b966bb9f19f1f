/// A paid network's bill by mirror_bot's own count, per UTC day and process run (table `api_usage_days`): what the
/// daily budget holds to across restarts. Each run writes its own row, so a `train` and a running `start` never
/// overwrite each other.
public protocol UsageDays: Sendable {
    /// Stores a run's bill of a day, replacing what that run stored for that day before.
    func record(_ entry: UsageEntry) async throws
    /// What the runs other than `runID` spent on `day`, in US dollars.
    func spent(on day: String, excludingRun runID: String) async throws -> Double
    /// Every entry of `day` and the days after it, oldest first.
    func entries(since day: String) async throws -> [UsageEntry]
    /// Deletes the entries of days before `day`.
    func removeDays(before day: String) async throws
}

extension UsageDays {
    /// What every run spent on `day`.
    public func spent(on day: String) async throws -> Double { try await spent(on: day, excludingRun: "") }
}

/// One run's bill on one UTC day.
public struct UsageEntry: Sendable, Equatable {
    /// The UTC day, `YYYY-MM-DD`.
    public var day: String
    /// The run that wrote it.
    public var runID: String
    /// The command that ran (`start`, `train scheduler`, ...).
    public var command: String
    /// The counts, as the network's client encodes them (JSON).
    public var bill: String
    /// The cost in US dollars.
    public var cost: Double

    /// An entry from its parts.
    public init(day: String, runID: String, command: String, bill: String, cost: Double) {
        self.day = day
        self.runID = runID
        self.command = command
        self.bill = bill
        self.cost = cost
    }
}
