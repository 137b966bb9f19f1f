/// A small, fast, seedable random number generator (SplitMix64): the same seed gives the same choices, so a
/// schedule can be reproduced (`mirror_bot schedule --seed N`) and tested.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator that always produces the same sequence for the same seed.
    public init(seed: UInt64) { state = seed }

    /// A generator seeded from the system's generator.
    public init() {
        var system = SystemRandomNumberGenerator()
        state = system.next()
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
