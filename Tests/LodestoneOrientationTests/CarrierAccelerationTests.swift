import Foundation
import LodestoneCore
@testable import LodestoneOrientation
import Testing

/// The carrier's own acceleration taken out of the levelling (issue 17, orientation in vehicles): a car in a steady
/// turn presses its board sideways with the centripetal acceleration, which an accelerometer cannot tell from a tilt.
struct CarrierAccelerationTests {
    /// A level board in a car going round a circle at 15 m/s, turning at 0.2 rad/s (11.5 °/s) about up: 3 m/s² toward
    /// the centre, along the board's −x. The earth's field (dip 63°, magnetic north = north) in the turning board's
    /// axes. Returns the tilt error (°) at the end of `durationS`, with the carrier's acceleration given to the filter
    /// or not.
    static func tiltErrorDeg(givesCarrierAcceleration: Bool, durationS: Double = 120) -> Double {
        var filter = OrientationFilter()
        let rateRadS = 0.2, speedMps = 15.0, dipRad = 63 * Double.pi / 180
        let g = PhysicalConstants.standardGravityMps2
        let centripetalMps2 = rateRadS * speedMps
        var i = 0
        while Double(i) * 0.01 <= durationS {
            let t = Double(i) * 0.01
            let yaw = rateRadS * t
            let field = Vector3(50 * cos(dipRad) * sin(yaw), 50 * cos(dipRad) * cos(yaw), -50 * sin(dipRad))
            // The board's −x in ENU, turned by the yaw: the centre of the circle.
            let carrierENU = Vector3(-cos(yaw), -sin(yaw), 0) * centripetalMps2
            filter.update(
                timeS: t, gyroscopeRadS: Vector3(0, 0, rateRadS),
                accelerometerMps2: Vector3(-centripetalMps2, 0, g), magnetometerMicroTesla: field,
                carrierAccelerationMps2: givesCarrierAcceleration ? carrierENU : .zero)
            i += 1
        }
        guard let q = filter.boardToENU else { return .infinity }
        let up = q.rotating(Vector3(0, 0, 1))
        return acos(min(1, up.z)) * 180 / Double.pi
    }

    @Test func aSteadyTurnLeansTheLevellingUnlessTheCarriersAccelerationIsTakenOut() {
        let leaning = Self.tiltErrorDeg(givesCarrierAcceleration: false)
        let level = Self.tiltErrorDeg(givesCarrierAcceleration: true)
        // atan(3 / 9.81) = 17°: the levelling follows the specific force, less what its low-pass lags behind.
        #expect(leaning > 8, "without the carrier's acceleration: \(leaning)°")
        #expect(level < 1, "with it: \(level)°")
    }
}
