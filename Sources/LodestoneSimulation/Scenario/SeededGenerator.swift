import RealModule

/// A small, fast, seedable random number generator: xoshiro256** (Blackman & Vigna, "Scrambled linear
/// pseudorandom number generators", ACM TOMS 47(4), 2021), its 256-bit state filled from the seed by
/// splitmix64 as the authors recommend.
///
/// Deterministic on every platform for a given seed; a value type, so a copy replays the same sequence.
/// Not for cryptography.
public struct SeededGenerator: RandomNumberGenerator, Sendable, Hashable, Codable {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64

    /// A generator whose sequence is fixed by `seed` (any value, 0 included).
    public init(seed: UInt64) {
        var x = seed
        func splitmix64() -> UInt64 {
            x &+= 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s0 = splitmix64(); s1 = splitmix64(); s2 = splitmix64(); s3 = splitmix64()
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3
        s2 ^= t
        s3 = s3 << 45 | s3 >> 19
        return result
    }

    /// A uniform double in [0, 1) with 53 random bits.
    public mutating func uniform() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// A uniform double in `range`.
    public mutating func uniform(in range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * uniform()
    }

    /// A standard normal deviate (mean 0, variance 1), Box–Muller transform; one deviate per two uniforms.
    public mutating func gaussian() -> Double {
        let u1 = 1 - uniform() // (0, 1]: log is finite
        let u2 = uniform()
        return (-2 * Double.log(u1)).squareRoot() * Double.cos(2 * Double.pi * u2)
    }
}
