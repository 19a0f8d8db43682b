/// A square matrix of up to 8 × 8 doubles held inline (no heap storage), for the small Kalman filters of
/// location fusion: `P = F P Fᵀ + Q` and rank-one measurement updates without allocating.
///
/// Row-major in a `SIMD64<Double>`; only the leading `n × n` block is used by a filter of dimension `n`.
public struct KalmanMatrix: Sendable, Hashable, Codable {
    /// The entries, row-major: element (i, j) at `8·i + j`.
    public var storage: SIMD64<Double>

    /// The zero matrix.
    public static let zero = KalmanMatrix(storage: .zero)

    init(storage: SIMD64<Double>) { self.storage = storage }

    /// The identity (of size 8; its leading block is the identity of any smaller size).
    public static var identity: KalmanMatrix {
        var m = KalmanMatrix.zero
        for i in 0..<8 { m[i, i] = 1 }
        return m
    }

    /// A diagonal matrix.
    static func diagonal(_ d: SIMD8<Double>) -> KalmanMatrix {
        var m = KalmanMatrix.zero
        for i in 0..<8 { m[i, i] = d[i] }
        return m
    }

    subscript(i: Int, j: Int) -> Double {
        get { storage[8 &* i &+ j] }
        set { storage[8 &* i &+ j] = newValue }
    }

    /// `self · v` over the leading `n × n` block.
    func times(_ v: SIMD8<Double>, n: Int) -> SIMD8<Double> {
        var r = SIMD8<Double>.zero
        for i in 0..<n {
            var s = 0.0
            for j in 0..<n { s += self[i, j] * v[j] }
            r[i] = s
        }
        return r
    }

    /// `F · self · Fᵀ` over the leading `n × n` block.
    func congruence(by f: KalmanMatrix, n: Int) -> KalmanMatrix {
        var fp = KalmanMatrix.zero
        for i in 0..<n {
            for j in 0..<n {
                var s = 0.0
                for k in 0..<n where f[i, k] != 0 { s += f[i, k] * self[k, j] }
                fp[i, j] = s
            }
        }
        var r = KalmanMatrix.zero
        for i in 0..<n {
            for j in i..<n {
                var s = 0.0
                for k in 0..<n where f[j, k] != 0 { s += fp[i, k] * f[j, k] }
                r[i, j] = s
                r[j, i] = s
            }
        }
        return r
    }

    /// Adds `q` over the leading `n × n` block.
    mutating func add(_ q: KalmanMatrix, n: Int) {
        for i in 0..<n { for j in 0..<n { self[i, j] += q[i, j] } }
    }
}

/// The result of a scalar measurement update's first half: the innovation variance and the gain.
struct ScalarGain: Sendable {
    /// `P hᵀ`.
    var ph: SIMD8<Double>
    /// Innovation variance `h P hᵀ + r`.
    var innovationVariance: Double

    /// Gain `P hᵀ / s`.
    var gain: SIMD8<Double> { ph / innovationVariance }
}

extension KalmanMatrix {
    /// `P hᵀ` and `h P hᵀ + r` for a scalar measurement with row `h` and noise variance `r`.
    func scalarGain(h: SIMD8<Double>, r: Double, n: Int) -> ScalarGain {
        let ph = times(h, n: n)
        var s = r
        for i in 0..<n { s += h[i] * ph[i] }
        return ScalarGain(ph: ph, innovationVariance: s)
    }

    /// `P ← P − K (P hᵀ)ᵀ` (the covariance after a scalar update with gain `K = P hᵀ / s`), kept symmetric
    /// with a non-negative diagonal.
    mutating func applyUpdate(_ g: ScalarGain, n: Int) {
        let k = g.gain
        for i in 0..<n {
            for j in i..<n {
                let v = 0.5 * ((self[i, j] - k[i] * g.ph[j]) + (self[j, i] - k[j] * g.ph[i]))
                self[i, j] = v
                self[j, i] = v
            }
            if self[i, i] < 0 { self[i, i] = 0 }
        }
    }
}
