// The schedule's random choices are made with SplitMix64, so users of the schedule get it with it.
@_exported public import SeededRandom
