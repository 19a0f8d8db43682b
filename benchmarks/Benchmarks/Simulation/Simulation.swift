import Benchmark
import BenchmarkSupport

let benchmarks: @Sendable () -> Void = {
}
