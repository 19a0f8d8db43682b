import LodestoneCore
import RealModule

/// How the person turns the board in the hand during a segment, on top of what the carrier does: the
/// motions of a guided calibration. The board turns about its own centre (no lever arm, so no added
/// acceleration) and every motion starts and ends at rest in the carrier's orientation, so segments join
/// without a jump in attitude or rate.
///
/// The handling rotation sits between the carrier and the board's mounting:
/// `boardToENU = carrierToENU · H · mounting`, with `H = Rx(tilt) · Ry(roll) · Rz(spin)` (carrier right axis,
/// then forward, then the board's own z), each angle an analytic function of time with exact derivatives,
/// so the gyroscope truth stays the exact rate of the attitude.
public enum BoardHandling: Sendable, Hashable, Codable {
    /// The magnetometer calibration motion: twirl the board about its own z axis at about `twirlDegPerS`
    /// (ramped up and down over `rampS`, the total rounded to whole turns) while slowly turning it over about
    /// the carrier's right axis by `turnOverDeg` over the segment. The field's direction in board axes then
    /// sweeps a spiral over the whole sphere.
    case twirl(turnOverDeg: Double, twirlDegPerS: Double, rampS: Double)
    /// The accelerometer six-position motion: set the board down flat face up, then on its left edge, face
    /// down, on its right edge, on its bottom edge, on its top edge, and back face up, holding each for
    /// `holdS` and taking `moveS` between them. Any time left in the segment is spent face up.
    case sixFaces(holdS: Double, moveS: Double)

    /// The poses of `sixFaces` as (tilt about carrier right, roll about carrier forward), degrees: +z, +x, −z,
    /// −x, +y, −y up, then +z up again. Rolling on through −360° keeps each move a quarter turn.
    static let sixFacePoses: [(tiltDeg: Double, rollDeg: Double)] = [
        (0, 0), (0, -90), (0, -180), (0, -270), (90, -360), (-90, -360), (0, -360)
    ]

    /// Tilt, roll and spin (rad) with their rates and accelerations at `tau` s into a segment of `durationS`.
    func angles(tau: Double, durationS: Double) -> (tilt: Jet, roll: Jet, spin: Jet) {
        switch self {
        case let .twirl(turnOverDeg, twirlDegPerS, rampS):
            let d = durationS.isFinite ? max(durationS, 0.1) : 60
            let ramp = min(max(rampS, 0.1), d / 2)
            let tilt = Smootherstep.ramp(from: 0, to: Angle.radians(fromDegrees: turnOverDeg), tau: tau, durationS: d)
            // Rate ω·(s(u₁) − s(u₂)): up over the first ramp, down over the last; angle ω·R·(I(u₁) − I(u₂)).
            let turns = max(1, (Angle.radians(fromDegrees: twirlDegPerS) * (d - ramp) / (2 * Double.pi)).rounded())
            let omega = turns * 2 * Double.pi / (d - ramp)
            let u1 = tau / ramp, u2 = (tau - (d - ramp)) / ramp
            let (s1, ds1, _) = Smootherstep.jet(u1), (s2, ds2, _) = Smootherstep.jet(u2)
            let spin = Jet(
                omega * ramp * (Self.rampIntegral(u1) - Self.rampIntegral(u2)),
                omega * (s1 - s2), omega * (ds1 - ds2) / ramp)
            return (tilt, .zero, spin)
        case let .sixFaces(holdS, moveS):
            let hold = max(holdS, 0), move = max(moveS, 0.1)
            let poses = Self.sixFacePoses
            // Pose k is held over [k·(hold + move), k·(hold + move) + hold]; then the move to pose k + 1.
            let period = hold + move
            let k = max(0, Int((tau / period).rounded(.down)))
            guard k < poses.count - 1 else {
                let last = poses[poses.count - 1]
                return (Jet(Angle.radians(fromDegrees: last.tiltDeg)), Jet(Angle.radians(fromDegrees: last.rollDeg)), .zero)
            }
            let into = tau - Double(k) * period - hold
            let from = poses[k], to = poses[k + 1]
            let tilt = Smootherstep.ramp(
                from: Angle.radians(fromDegrees: from.tiltDeg), to: Angle.radians(fromDegrees: to.tiltDeg),
                tau: into, durationS: move)
            let roll = Smootherstep.ramp(
                from: Angle.radians(fromDegrees: from.rollDeg), to: Angle.radians(fromDegrees: to.rollDeg),
                tau: into, durationS: move)
            return (tilt, roll, .zero)
        }
    }

    /// ∫₀ᵘ s for the smootherstep s, continued past 1 (where s = 1): u − ½.
    static func rampIntegral(_ u: Double) -> Double {
        u >= 1 ? u - 0.5 : Smootherstep.integral(u)
    }
}
