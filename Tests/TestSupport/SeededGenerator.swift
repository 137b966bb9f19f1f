public import Schedule

/// A deterministic random number generator, so that random choices in tests repeat.
public typealias SeededGenerator = SplitMix64
