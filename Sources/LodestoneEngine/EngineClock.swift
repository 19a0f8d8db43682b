/// The engine's notion of wall time. Injected: the real one sleeps, tests use a manual one.
public protocol EngineClock {
    /// Seconds on a monotonic clock.
    func nowS() -> Double
    /// Blocks until `nowS() >= deadlineS`.
    func sleep(untilS deadlineS: Double)
}
