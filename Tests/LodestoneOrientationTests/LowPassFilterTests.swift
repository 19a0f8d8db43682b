import LodestoneCore
@testable import LodestoneOrientation
import Testing

@Suite struct LowPassFilterTests {
    @Test func butterworthHasUnitGainAtZeroFrequency() {
        for (tau, dt) in [(3.0, 0.0035), (0.5, 0.01), (0.05, 0.005), (20.0, 0.001)] {
            let k = ButterworthCoefficients(timeConstantS: tau, intervalS: dt)
            #expect(abs((k.b0 + k.b1 + k.b2) / (1 + k.a1 + k.a2) - 1) < 1e-6)
        }
    }
}
