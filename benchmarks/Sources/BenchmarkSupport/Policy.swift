import Benchmark

/// The one configuration every Lodestone benchmark uses (STYLE.md habit 8: the per-sample path allocates
/// nothing, and a benchmark proves it).
///
/// - `mallocCountTotal` is the only metric with a threshold: a tolerance of exactly 0 at p90 around the
///   committed p90 value in `Thresholds/<Suite>.<Benchmark>.p90.json`, which is 0 for every benchmark. It is
///   checked at p90, not p100: a rare allocation by the harness's own sampling thread must not fail CI,
///   while an allocation on every sample (or on most of them, like amortised array growth) always does.
/// - `wallClock` and `instructions` are reported to compare runs by eye and are never thresholded: they
///   depend on the machine and its load, so a committed wall-clock number would only make CI flaky.
///
/// Each measured iteration runs the operation `scalingFactor` times (1000) so that the timer's own cost is
/// small next to sub-microsecond work; reported times are per operation, malloc counts per iteration.
public enum LodestoneBenchmarkPolicy {
    /// The metrics reported for every benchmark.
    /// (Computed rather than stored: package-benchmark's types are not `Sendable`, and a computed property
    /// needs no `nonisolated(unsafe)`.)
    public static var metrics: [BenchmarkMetric] { [.mallocCountTotal, .wallClock, .instructions] }

    /// The thresholds: malloc count only, absolute tolerance 0 at p90, no relative tolerance.
    public static var thresholds: [BenchmarkMetric: BenchmarkThresholds] {
        [.mallocCountTotal: BenchmarkThresholds(absolute: [.p90: 0])]
    }

    /// The configuration: short runs (CI runs every suite; about a second per benchmark is plenty for
    /// p90 of a deterministic count and a stable median time).
    public static var configuration: Benchmark.Configuration {
        Benchmark.Configuration(
            metrics: metrics,
            timeUnits: .nanoseconds,
            warmupIterations: 10,
            scalingFactor: .kilo,
            maxDuration: .milliseconds(500),
            maxIterations: 2_000,
            thresholds: thresholds)
    }
}
