/// How a fleet's processes share its bots (`mirror_bot fleet`): the key that seals their settings and the leases'
/// timing. Read by every command (the key is checked only where it is used).
public struct FleetSection: ConfigurationSection, Equatable {
    /// `FLEET_KEY`: the text the bots' settings are sealed with (AES-GCM), the same in every process; nil when unset.
    public var key: String?
    /// `FLEET_LEASE_SECONDS`: a bot whose lease was not renewed this long (its process killed) is another's to claim.
    public var leaseSeconds: Int
    /// `FLEET_ROUND_SECONDS`: how often a process renews its leases and claims bots; under a third of the lease.
    public var roundSeconds: Int
    /// `FLEET_DATABASE_CONNECTIONS`: the connections of a process's pool for its bots' statements (its leases have two
    /// of their own). Every process and command together must stay within the server's limit (Heroku's smallest
    /// plans allow 20).
    public var databaseConnections: Int

    /// The variables of this section.
    public static let variableNames = ["FLEET_KEY", "FLEET_LEASE_SECONDS", "FLEET_ROUND_SECONDS", "FLEET_DATABASE_CONNECTIONS"]

    /// Reads the section.
    public init(reading environment: inout EnvironmentReader) {
        key = environment.environment["FLEET_KEY"]
        leaseSeconds = environment.count("FLEET_LEASE_SECONDS", default: 20, allowsZero: false, maximum: 3_600, meaning: "seconds")
        roundSeconds = environment.count("FLEET_ROUND_SECONDS", default: 5, allowsZero: false, maximum: 1_200, meaning: "seconds")
        databaseConnections = environment.count("FLEET_DATABASE_CONNECTIONS", default: 10, allowsZero: false, maximum: 500, meaning: "connections")
        if roundSeconds * 3 > leaseSeconds, environment.value("FLEET_ROUND_SECONDS") != nil || environment.value("FLEET_LEASE_SECONDS") != nil {
            environment.malformed(
                "FLEET_ROUND_SECONDS",
                expected: "under a third of FLEET_LEASE_SECONDS (\(leaseSeconds)), so that a lease is renewed twice before it lapses",
                shown: String(roundSeconds))
        }
    }
}
