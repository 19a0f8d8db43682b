// Core math on the per-sample path: a cheap sanity check that quaternion algebra stays allocation-free
// (it is all value types and SIMD3<Double>, so any allocation here means a regression in the compiler's
// specialisation or an accidental class or existential). Each step feeds the next, so nothing is hoisted.

import Benchmark
import BenchmarkSupport
import LodestoneCore

let benchmarks: @Sendable () -> Void = {
    let configuration = LodestoneBenchmarkPolicy.configuration

    // Inputs go through `identity` (an optimisation barrier) so the work is not constant-folded away.
    Benchmark("Quaternion.rotate", configuration: configuration) { benchmark in
        let q = identity(Quaternion(axis: Vector3(1, 2, 3), angleRad: 0.7))
        var v = identity(Vector3(0.1, -9.81, 0.3))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            v = q.rotate(v)
        }
        benchmark.stopMeasurement()
        blackHole(v)
    }

    Benchmark("Quaternion.multiply", configuration: configuration) { benchmark in
        let step = identity(Quaternion(axis: Vector3(0, 0, 1), angleRad: 0.001))
        var q = identity(Quaternion.identity)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            q = (q * step).normalized
        }
        benchmark.stopMeasurement()
        blackHole(q)
    }
}
