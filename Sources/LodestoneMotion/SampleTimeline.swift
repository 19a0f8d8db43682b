/// Puts a sensor's samples on a smooth timeline at their measured mean rate.
///
/// Timestamps of recorded data are not always usable as they are: logging apps round them (one of the
/// development recordings keeps four significant digits, so past 100 s twenty samples share each whole
/// second), user-space reads jitter by milliseconds, and a buffered driver may deliver a burst with one time.
/// Anything that looks at the *shape* of a signal (steps, activity) needs each sample's true spacing, so it
/// reads this timeline instead: τₖ = τₖ₋₁ + T̂, with T̂ the mean period over the last `spanSamples` samples,
/// pulled toward the reported time by `correctionGain` per sample so that τ never drifts from it. A jump of
/// more than `maximumDeviationS` (a real gap, a restart) resets τ to the reported time.
///
/// With clean timestamps τ equals the reported time to within a fraction of a period.
public struct SampleTimeline: Sendable, Hashable, Codable {
    /// Samples over which the mean period is measured. Default 1024 (51 s at 20 Hz, 10 s at 100 Hz).
    public var spanSamples = 1024
    /// Fraction of the difference to the reported time corrected per sample. Default 0.002 (a rounding
    /// sawtooth of ±0.5 s then moves a 20 Hz sample by at most 2 % of its period).
    public var correctionGain = 0.002
    /// Larger differences reset the timeline, s. Default 2.
    public var maximumDeviationS = 2.0

    /// Reported time and index of the first sample of the current span, and the count since.
    public private(set) var spanStartTimeS: Double?
    public private(set) var samplesSinceSpanStart = 0
    /// A second anchor half a span later, so the span slides.
    public private(set) var nextSpanStartTimeS: Double?
    public private(set) var samplesSinceNextSpanStart = 0
    /// The last timeline value, s.
    public private(set) var timeS: Double?
    /// The last reported time, s.
    public private(set) var lastReportedTimeS: Double?

    /// A fresh timeline.
    public init() {}

    /// The mean sample period measured so far, s (`nil` until two distinct times were seen).
    public var periodS: Double? {
        guard let start = spanStartTimeS, let last = lastReportedTimeS, samplesSinceSpanStart > 0, last > start else {
            return nil
        }
        return (last - start) / Double(samplesSinceSpanStart)
    }

    /// The timeline value of a sample reported at `reportedTimeS`.
    public mutating func place(reportedTimeS t: Double) -> Double {
        defer { lastReportedTimeS = t }
        guard let previous = timeS, let lastReported = lastReportedTimeS, abs(t - lastReported) <= maximumDeviationS else {
            restart(at: t)
            return t
        }
        advanceSpan(reportedTimeS: t)
        guard let start = spanStartTimeS, samplesSinceSpanStart > 0, t > start else {
            timeS = t
            return t
        }
        let period = (t - start) / Double(samplesSinceSpanStart)
        var tau = previous + period
        tau += correctionGain * (t - tau)
        if abs(t - tau) > maximumDeviationS {
            restart(at: t)
            return t
        }
        timeS = tau
        return tau
    }

    private mutating func restart(at t: Double) {
        spanStartTimeS = t
        samplesSinceSpanStart = 0
        nextSpanStartTimeS = nil
        samplesSinceNextSpanStart = 0
        timeS = t
    }

    private mutating func advanceSpan(reportedTimeS t: Double) {
        samplesSinceSpanStart += 1
        if nextSpanStartTimeS != nil { samplesSinceNextSpanStart += 1 }
        if nextSpanStartTimeS == nil, samplesSinceSpanStart >= spanSamples / 2 {
            nextSpanStartTimeS = t
            samplesSinceNextSpanStart = 0
        }
        if samplesSinceSpanStart >= spanSamples, let next = nextSpanStartTimeS {
            spanStartTimeS = next
            samplesSinceSpanStart = samplesSinceNextSpanStart
            nextSpanStartTimeS = t
            samplesSinceNextSpanStart = 0
        }
    }
}
