import Benchmark

/// The one configuration every Lodestone benchmark uses (STYLE.md habit 8: the per-sample path allocates
/// nothing, and a benchmark proves it).
///
/// - `mallocCountTotal` is the only metric with a threshold: a tolerance of exactly 0 at p90 around the
///   committed p90 value in `Thresholds/<Suite>.<Benchmark>.p90.json`, which is 0 for every benchmark. It is
///   checked at p90, not p100, so that a stray allocation by another thread of the harness cannot fail CI,
///   while one that happens in most iterations always does.
/// - Each measured iteration runs the operation `scalingFactor` times (1000 samples): an allocation that
///   happens even once per 1000 samples (a log growing, a buffer re-allocated every second of a 100 Hz
///   stream) lands in almost every iteration and so reaches p90. Malloc counts are per iteration (1000
///   operations) in the threshold check; the run table divides them by 1000 (`--scale` shows them raw).
/// - `wallClock` is reported to compare runs by eye and is never thresholded: it depends on the machine and
///   its load, so a committed wall-clock number would only make CI flaky.
/// - `instructions` is not in the list, on purpose: in package-benchmark 1.38.1 on Linux, asking for it makes
///   the harness read `/proc/self/stat` and `/proc/self/io` inside the measured window (its
///   `OperatingSystemStatsProducer.read(path:)`), which adds 16 mallocs to every iteration and would hide
///   ours. Instruction counts are taken in a separate, report-only pass (`../scripts/benchmarks`, on machines
///   with hardware performance counters).
public enum LodestoneBenchmarkPolicy {
    /// The metrics measured with the threshold. (Computed rather than stored: package-benchmark's types are
    /// not `Sendable`, and a computed property needs no `nonisolated(unsafe)`.)
    public static var metrics: [BenchmarkMetric] { [.mallocCountTotal, .wallClock] }

    /// The thresholds: malloc count only, absolute tolerance 0 at p90, no relative tolerance.
    public static var thresholds: [BenchmarkMetric: BenchmarkThresholds] {
        [.mallocCountTotal: BenchmarkThresholds(absolute: [.p90: 0])]
    }

    /// The configuration: short runs (CI runs every suite): up to 2000 iterations or half a second per
    /// benchmark, after 10 unmeasured warm-up iterations, is plenty for the p90 of a count and a stable median
    /// time. `.timeUnits(.nanoseconds)` keeps the time columns comparable between benchmarks.
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
