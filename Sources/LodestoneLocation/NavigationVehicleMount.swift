import LodestoneCore
import RealModule

/// How the board sits in a vehicle, learned while driving, so that the vehicle's along-track acceleration is
/// read from the accelerometer in the board frame — without the orientation's tilt.
///
/// **Why.** An orientation filter levels on the accelerometer: it cannot tell a sustained acceleration from a
/// tilt, so while a car brakes or turns for seconds its "up" leans towards the acceleration and the acceleration
/// it rotates into East-North-Up loses much of the braking (Lodestone's orientation stage, `drive` and
/// `urban-drive` on the simulated board, seeds 1–10: tilt errors of 8–12° while braking at ~1 m/s² or turning,
/// so 1–2 m/s² of the braking vanished and a 30 s tunnel ended 60–160 m off). For a board fixed in a vehicle two
/// directions are constant in the board frame: the vehicle's up and its forward axis. The specific force along
/// the forward axis is the along-track acceleration plus g·sin(grade change), whatever the orientation filter
/// believes. (Land-vehicle navigation with a misaligned IMU does the same: e.g. P. D. Groves, *Principles of
/// GNSS, Inertial, and Multisensor Integrated Navigation Systems*, 2nd ed., Artech House 2013, §16.2.3.)
///
/// - **Up** (board frame): the specific force low-passed over `upTimeConstantS`, learned only while the
///   vehicle is not accelerating: from the mean force of each interval between two receiver velocities that
///   differ by < `steadyAccelerationMps2` (so braking and turns do not lean it, not even their first second), and
///   sample by sample at rest when there are no receiver velocities. The accelerometer's bias is part of it, so
///   the horizontal bias cancels.
/// - **Forward**: between two receiver velocities, the mean horizontal specific force (perpendicular to up) is
///   the vehicle-frame acceleration the velocities give (along-track and leftward, Δv/Δt) turned by the mount's
///   yaw θ about up. In complex coordinates of the board's horizontal plane, z_f = e^{iθ}·z_a, and the least-squares
///   rotation is θ = arg Σ z_f·z̄_a (Wahba's problem in the plane: G. Wahba, SIAM Review 7:409, 1965), summed with
///   exponential forgetting over `forgettingTimeS` of driving. Its 1σ: σθ² = s²/Σ|z_a|², s² the residual per
///   real component. Turns and speed changes both inform it; cruising adds nothing and harms nothing.
/// - A board that is moved (its up turns by more than `remountAngleDeg` for `remountTimeS`) starts over.
///
/// Allocation-free; part of `NavigationFilter.State`.
public struct VehicleMount: Sendable, Hashable, Codable {
    /// Time constant of the up estimate, s (10).
    public static let upTimeConstantS = 10.0
    /// The vehicle counts as not accelerating below this receiver acceleration, m/s² (0.25).
    public static let steadyAccelerationMps2 = 0.25
    /// Memory of the forward estimate, s of driving (300).
    public static let forgettingTimeS = 300.0
    /// The forward axis is used once its 1σ is below this, rad (0.05, 3°) …
    public static let maximumSigmaRad = 0.05
    /// … and the vehicle-frame accelerations seen sum to at least this, (m/s²)² × intervals (5: e.g. one 90° turn).
    public static let minimumInformation = 5.0
    /// Up turning by more than this, degrees, for `remountTimeS`, s, means the board was moved (30, 3).
    public static let remountAngleDeg = 30.0
    /// See `remountAngleDeg`.
    public static let remountTimeS = 3.0

    /// The vehicle's up in board axes (unit), once known.
    public private(set) var upBoard: Vector3?
    /// Specific force low-passed over 1 s, board axes, m/s² (for the remount check).
    var recentForceBoardMps2: Vector3?
    /// Time up has disagreed with `recentForceBoardMps2` by more than `remountAngleDeg`, s.
    var remountS = 0.0
    /// Which board axis spans the horizontal basis (the one most perpendicular to up), and the basis itself.
    var basisAxis = -1
    var basisFirst = Vector3.zero
    var basisSecond = Vector3.zero
    /// Σ z_f·z̄_a (real, imaginary), Σ|z_a|², Σ|z_f|² and the number of intervals, all with forgetting.
    var correlationRe = 0.0
    var correlationIm = 0.0
    var accelerationPower = 0.0
    var forcePower = 0.0
    var intervals = 0.0
    /// The specific force summed since the last receiver velocity, board axes, and the samples.
    var intervalForceSum = Vector3.zero
    var intervalSamples = 0
    /// The last receiver velocity (ENU, m/s) and its time.
    var lastVelocityEast = 0.0
    var lastVelocityNorth = 0.0
    var lastVelocityTimeS: Double?
    /// True when the receiver's last two velocities showed no acceleration.
    var isSteady = false
    /// Time of the last accelerometer sample, s.
    var lastSampleTimeS: Double?
    /// The forward axis in board axes (unit, perpendicular to up) and its 1σ about up, rad, once determined.
    public private(set) var forwardBoard: Vector3?
    /// See `forwardBoard`.
    public private(set) var forwardSigmaRad: Double?

    /// Nothing learned yet.
    public init() {}

    /// The along-track acceleration of a specific force (board axes, m/s²), when the forward axis is known.
    public func alongTrackMps2(specificForceBoardMps2 f: Vector3) -> Double? {
        forwardBoard.map { f.dot($0) }
    }

    /// Feeds one accelerometer sample (board axes, m/s²) taken at `timeS`; `atRest` when the orientation stage
    /// says the board is still.
    mutating func observe(specificForceBoardMps2 f: Vector3, timeS: Double, atRest: Bool) {
        intervalForceSum += f
        intervalSamples += 1
        let dt = lastSampleTimeS.map { timeS - $0 } ?? 0
        lastSampleTimeS = timeS
        guard let fUp = f.normalized else { return }
        guard let up = upBoard, dt > 0, dt < 1 else {
            if upBoard == nil { setUp(fUp) }
            recentForceBoardMps2 = f
            return
        }
        let recent = (recentForceBoardMps2 ?? f) + (f - (recentForceBoardMps2 ?? f)) * min(1, dt / 1.0)
        recentForceBoardMps2 = recent
        guard let recentUp = recent.normalized else { return }
        if recentUp.dot(up) < Double.cos(Angle.radians(fromDegrees: Self.remountAngleDeg)) {
            remountS += dt
            if remountS >= Self.remountTimeS {
                self = VehicleMount()
                setUp(recentUp)
                recentForceBoardMps2 = recent
                lastSampleTimeS = timeS
            }
            return
        }
        remountS = 0
        // At rest without receiver velocities (which teach up interval by interval, see below), learn it here.
        let hasVelocities = lastVelocityTimeS.map { timeS - $0 <= 2.5 } ?? false
        if atRest && !hasVelocities { learnUp(fUp, weight: dt) }
    }

    /// Moves up towards a direction of the specific force, by `weight` seconds of the time constant.
    private mutating func learnUp(_ direction: Vector3, weight: Double) {
        guard let up = upBoard, let u = (up + (direction - up) * min(1, weight / Self.upTimeConstantS)).normalized else { return }
        setUp(u)
    }

    /// Sets up and the horizontal basis; a change of basis axis starts the forward estimate over.
    private mutating func setUp(_ u: Vector3) {
        upBoard = u
        let magnitudes = Vector3(abs(u.x), abs(u.y), abs(u.z))
        let axis = magnitudes.x <= magnitudes.y && magnitudes.x <= magnitudes.z ? 0 : (magnitudes.y <= magnitudes.z ? 1 : 2)
        if axis != basisAxis {
            basisAxis = axis
            correlationRe = 0; correlationIm = 0; accelerationPower = 0; forcePower = 0; intervals = 0
            forwardBoard = nil
            forwardSigmaRad = nil
        }
        var e = Vector3.zero
        e[axis] = 1
        guard let first = (e - u * u.dot(e)).normalized else { return }
        basisFirst = first
        basisSecond = u.cross(first)
        if let sigma = forwardSigmaRad, sigma.isFinite { updateForward() }
    }

    /// Feeds the receiver's horizontal velocity (ENU, m/s) at `timeS`; `isMoving` when the vehicle model is in
    /// force over the interval since the previous one.
    mutating func observe(velocityEast: Double, velocityNorth: Double, timeS: Double, isMoving: Bool) {
        defer {
            lastVelocityEast = velocityEast
            lastVelocityNorth = velocityNorth
            lastVelocityTimeS = timeS
            intervalForceSum = .zero
            intervalSamples = 0
        }
        guard let t0 = lastVelocityTimeS else { return }
        let dt = timeS - t0
        guard dt > 0.2, dt < 2.5 else { isSteady = false; return }
        let ae = (velocityEast - lastVelocityEast) / dt, an = (velocityNorth - lastVelocityNorth) / dt
        isSteady = (ae * ae + an * an).squareRoot() < Self.steadyAccelerationMps2
        guard intervalSamples > 0, upBoard != nil else { return }
        let mean = intervalForceSum / Double(intervalSamples)
        // Learn up from the interval just ended if the vehicle did not accelerate over it: the velocities at its
        // two ends agree (an interval's own samples, so that the first second of braking does not lean it).
        if isSteady, remountS == 0, let direction = mean.normalized { learnUp(direction, weight: dt) }
        guard isMoving, let up = upBoard else { return }
        let me = (velocityEast + lastVelocityEast) / 2, mn = (velocityNorth + lastVelocityNorth) / 2
        let speed = (me * me + mn * mn).squareRoot()
        guard speed > 1 else { return }
        let (ue, un) = (me / speed, mn / speed)
        // Vehicle frame: along-track and leftward (up × forward = (−un, ue)).
        let along = ae * ue + an * un, left = -ae * un + an * ue
        let horizontal = mean - up * mean.dot(up)
        let fx = horizontal.dot(basisFirst), fy = horizontal.dot(basisSecond)
        let keep = Double.exp(-dt / Self.forgettingTimeS)
        // z_f · conj(z_a) = (fx + i fy)(along − i left).
        correlationRe = keep * correlationRe + fx * along + fy * left
        correlationIm = keep * correlationIm + fy * along - fx * left
        accelerationPower = keep * accelerationPower + along * along + left * left
        forcePower = keep * forcePower + fx * fx + fy * fy
        intervals = keep * intervals + 1
        updateForward()
    }

    /// θ = arg Σ z_f·z̄_a and its σ from the fit's residual.
    private mutating func updateForward() {
        let magnitude = (correlationRe * correlationRe + correlationIm * correlationIm).squareRoot()
        guard accelerationPower >= Self.minimumInformation, intervals >= 10, magnitude > 0 else {
            forwardBoard = nil
            forwardSigmaRad = nil
            return
        }
        // Σ|z_f − e^{iθ} z_a|² at the optimum, per real component.
        let residual = max(forcePower + accelerationPower - 2 * magnitude, 0) / (2 * intervals)
        let sigma = (residual / accelerationPower).squareRoot()
        forwardSigmaRad = sigma
        guard sigma <= Self.maximumSigmaRad else { forwardBoard = nil; return }
        let (c, s) = (correlationRe / magnitude, correlationIm / magnitude)
        forwardBoard = basisFirst * c + basisSecond * s
    }
}

/// The vehicle's turns from the gyroscope, with the gyroscope's bias about the vehicle's up estimated from the
/// receiver's course, so that dead reckoning turns with the vehicle and nothing else.
///
/// **Why.** Turning the velocity with the orientation's heading changes also turns it with every correction the
/// orientation's magnetometer makes — after a spell in which its heading was gated (a gyroscope bias it could not
/// learn, a disturbance), tens of degrees within a few seconds, which in a tunnel sends the estimate sideways
/// (`drive`, seed 3: a 4° correction in the first seconds of the tunnel ended it 40 m off). The gyroscope's rate
/// about the vehicle's up, minus its bias, is the vehicle's turn rate.
///
/// **Model** (a 2-state Kalman filter). Ψ integrates the raw rate about up (counter-clockwise); o = −χ − Ψ, with χ
/// the receiver's course (clockwise), drifts as ȯ = −b with b the rate's bias (a car's course is its heading: no side slip). Each receiver
/// velocity at speed measures o with σ = σv / speed and the side slip's `sideSlipSigmaRad`; o and b walk by
/// `offsetRandomWalk` and `biasRandomWalk`. Until the first course, b comes from the orientation: the mean of
/// the rate less the orientation's turn rate (its bias estimate and its steady magnetometer corrections), learned
/// robustly (differences beyond `orientationJumpRadS` are the orientation's corrections, not the gyroscope's).
/// Until the gyroscope's bias is known to `maximumBiasSigmaRadS`, the orientation's own turns are used.
public struct VehicleTurnModel: Sendable, Hashable, Codable {
    /// σ of the side slip (course − heading of a car), rad (0.01, 0.6°).
    public static let sideSlipSigmaRad = 0.01
    /// Random walks: of the course offset, rad/√s (0.002), and of the bias, rad/s/√s (2e-4).
    public static let offsetRandomWalk = 0.002
    /// See `offsetRandomWalk`.
    public static let biasRandomWalk = 2e-4
    /// Prior σ of the bias taken from the orientation, rad/s (0.02, ~1 °/s: an MEMS gyroscope's turn-on bias).
    public static let orientationBiasSigmaRadS = 0.02
    /// The gyroscope's turns are used once the bias σ is below this, rad/s (0.005, 0.3 °/s) …
    public static let maximumBiasSigmaRadS = 0.005
    /// … or, without a course yet, once the orientation-based bias has been learned this long, s (10).
    public static let orientationWarmUpS = 10.0
    /// Time constant of the orientation-based bias, s (30), and the jump it ignores, rad/s (0.1, 5.7 °/s).
    public static let orientationTimeConstantS = 30.0
    /// See `orientationTimeConstantS`.
    public static let orientationJumpRadS = 0.1

    /// The integrated rate about up, rad (unwrapped).
    public private(set) var integratedRad = 0.0
    /// The course offset o, rad, the bias b, rad/s, and their covariance; `hasCourse` once a course was seen.
    public private(set) var offsetRad = 0.0
    /// See `offsetRad`.
    public private(set) var biasRadS = 0.0
    var offsetVariance = 0.0
    var covariance = 0.0
    var biasVariance = 0.0
    /// See `offsetRad`.
    public private(set) var hasCourse = false
    /// Time since the last course was used, s, and the growth of the heading's variance over the last turn, rad²
    /// (the bias's uncertainty integrated: σb²·t² at time t after the course; 0 when the orientation's turn was used).
    public private(set) var sinceCourseS = 0.0
    /// See `sinceCourseS`.
    public private(set) var headingVarianceGrowthRad2 = 0.0
    /// The bias as the orientation's turns show it, rad/s, and how long it has been learned, s.
    public private(set) var orientationBiasRadS = 0.0
    var orientationAgeS = 0.0

    /// Nothing learned yet.
    public init() {}

    /// The turn over `intervalS`, rad, for the gyroscope's `rateRadS` about the vehicle's up and the
    /// orientation's own turn over the same interval.
    mutating func turn(rateRadS rate: Double, orientationTurnRad: Double, intervalS dt: Double) -> Double {
        // The orientation's view of the bias (the prior, and the fallback before any course).
        let difference = rate - orientationTurnRad / dt
        if orientationAgeS < Self.orientationWarmUpS || abs(difference - orientationBiasRadS) < Self.orientationJumpRadS {
            orientationBiasRadS +=
                (difference - orientationBiasRadS) * dt / max(min(orientationAgeS + dt, Self.orientationTimeConstantS), dt)
        }
        orientationAgeS += dt
        integratedRad += rate * dt
        headingVarianceGrowthRad2 = 0
        sinceCourseS += dt
        if hasCourse {
            // ȯ = −b: F = [[1, −dt], [0, 1]].
            offsetRad -= biasRadS * dt
            offsetVariance += -2 * dt * covariance + dt * dt * biasVariance + Self.offsetRandomWalk * Self.offsetRandomWalk * dt
            covariance -= dt * biasVariance
            biasVariance += Self.biasRandomWalk * Self.biasRandomWalk * dt
            if biasVariance.squareRoot() <= Self.maximumBiasSigmaRadS {
                headingVarianceGrowthRad2 = biasVariance * (2 * sinceCourseS * dt + dt * dt)
                return (rate - biasRadS) * dt
            }
        }
        return orientationAgeS < Self.orientationWarmUpS ? orientationTurnRad : (rate - orientationBiasRadS) * dt
    }

    /// A receiver course (rad clockwise from north: atan2(east, north)) with its σ, rad; gated at `gate`
    /// (χ², 1 degree of freedom).
    mutating func observe(courseRad: Double, sigmaRad: Double, gate: Double) {
        let r = sigmaRad * sigmaRad + Self.sideSlipSigmaRad * Self.sideSlipSigmaRad
        // Course is clockwise from north, the rate counter-clockwise about up: χ + Ψ is what stays constant.
        let measured = -courseRad - integratedRad
        guard hasCourse, offsetVariance < 1 else {
            offsetRad = measured
            offsetVariance = r
            sinceCourseS = 0
            covariance = 0
            if !hasCourse {
                biasRadS = orientationBiasRadS
                biasVariance = Self.orientationBiasSigmaRadS * Self.orientationBiasSigmaRadS
            }
            hasCourse = true
            return
        }
        var innovation = measured - offsetRad
        innovation -= 2 * Double.pi * (innovation / (2 * Double.pi)).rounded()
        let s = offsetVariance + r
        guard innovation * innovation <= gate * s else { return }
        sinceCourseS = 0
        let k0 = offsetVariance / s, k1 = covariance / s
        offsetRad += k0 * innovation
        biasRadS += k1 * innovation
        let (p00, p01, p11) = (offsetVariance, covariance, biasVariance)
        offsetVariance = p00 - k0 * p00
        covariance = p01 - k0 * p01
        biasVariance = p11 - k1 * p01
    }
}
