import LodestoneCore
import LodestoneGeomagnetism
import RealModule

/// One scenario segment with everything the generator derives from it once, at `init`.
struct PlannedSegment: Sendable {
    var kind: SegmentKind
    /// Start time, s; end is `startS + durationS` (`durationS` is +∞ for the final hold).
    var startS: Double
    var durationS: Double
    var gnssOutage: Bool
    var gnssMultipath: Bool
    // Horizontal speed: smootherstep ramp from the previous segment's speed, starting at the segment start.
    var speedFromMps: Double
    var speedToMps: Double
    var speedRampS: Double
    // Heading (clockwise from north): one smootherstep turn centred in the segment.
    var headingStartRad: Double
    var headingChangeRad: Double
    var turnStartS: Double
    var turnDurationS: Double
    // Vertical: a trapezoidal speed profile with smootherstep corners inside a window of the segment.
    var heightStartM: Double
    var verticalDistanceM: Double
    var verticalStartS: Double
    var verticalWindowS: Double
    var verticalRampS: Double
    var verticalSpeedMps: Double
    var floorStart: Int
    // Periodic motion: blended from the previous segment's profile over `blendS`.
    var from: MotionProfile
    var to: MotionProfile
    var blendS: Double
    var phaseStartRad: Double
    // The person turning the board in the hand, if at all.
    var handling: BoardHandling? = nil

    var endS: Double { startS + durationS }
}

/// Generates the true trajectory of the simulated board for a `Scenario`: position on the WGS84 ellipsoid,
/// velocity, kinematic acceleration, attitude, angular rate, specific force, pressure, temperature, magnetic
/// field and labels, at any non-decreasing sample times.
///
/// How it stays physically consistent:
/// - Every motion is an analytic function of time with exact first and second derivatives (`Jet`): speed and
///   heading ramps and vertical profiles are quintic smootherstep blends (continuous acceleration across
///   segment boundaries); step bounce, sway, pedalling and vibration are sinusoids with continuous phase whose
///   amplitudes and cadence blend between segments. Velocity and acceleration are therefore exact derivatives
///   of position, and the gyroscope truth is the exact derivative of the attitude.
/// - Horizontal position integrates the smooth path velocity on the ellipsoid (dφ/dt = v_N/(M + h),
///   dλ/dt = v_E/((N + h) cos φ)) with classical RK4 on a fixed 10 ms grid, plus one partial RK4 step to the
///   sample time; the periodic displacements (centimetres) are added analytically. The grid makes results
///   independent of the sample rate and of the pattern of sample times.
/// - Specific force = R⁻¹·(a + γ·up) with γ the WGS84 normal gravity at the current latitude and height
///   (`Geodesy.normalGravityMps2`), not 9.80665.
/// - Earth rotation and transport rate are not modelled (ENU treated as inertial).
///
/// After the last segment the carrier decelerates to rest and holds stationary for ever.
/// Deterministic for a seed. `sample(atTimeS:)` allocates nothing (the plan is an array built at `init` and
/// only read).
public struct TrajectoryGenerator: Sendable {
    /// What `sample(atTimeS:)` mutates: the integrator's grid point and position there. Equatable and Codable
    /// so a run can be snapshotted and restored.
    public struct State: Sendable, Hashable, Codable {
        /// Index k of the grid time k·`integrationStepS` the position below belongs to.
        public internal(set) var gridIndex: Int
        /// Latitude of the smooth path at the grid time, rad.
        public internal(set) var latitudeRad: Double
        /// Longitude of the smooth path at the grid time, rad.
        public internal(set) var longitudeRad: Double
        /// Latitude one grid step earlier (equal to `latitudeRad` at k = 0), rad: a sample up to one step
        /// before the grid time needs no restart.
        public internal(set) var previousLatitudeRad: Double
        /// Longitude one grid step earlier, rad.
        public internal(set) var previousLongitudeRad: Double
        /// Plan segment containing the grid time (a search hint).
        public internal(set) var segmentIndex: Int
    }

    /// The RK4 grid step, s.
    public static let integrationStepS = 0.01
    /// Latest time sampled, s (≈ 31.7 years); later times are clamped to it.
    public static let maximumTimeS = 1e9
    /// Latitudes are clamped into ±this, degrees, to keep dλ/dt finite.
    public static let maximumLatitudeDeg = 89.9

    /// The scenario, as given.
    public let scenario: Scenario
    /// The seed.
    public let seed: UInt64
    /// The integrator state; `sample(atTimeS:)` advances it.
    public private(set) var state: State

    let plan: [PlannedSegment]
    let initialState: State
    let startHeightM: Double
    let geoidUndulationM: Double
    let floorHeightM: Double
    let mounting: Quaternion
    let startDecimalYear: Double
    /// Phase offsets, rad: up, forward, right, roll, pitch, yaw, –, –.
    let gaitPhaseRad: SIMD8<Double>
    /// Phase offsets of the vibration lines, rad.
    let vibrationPhaseRad: SIMD4<Double>
    /// Sea-level pressure drift: offset from ISA (Pa), and four sinusoids (amplitude Pa, period s, phase rad).
    let seaLevelOffsetPa: Double
    let weatherAmplitudePa: SIMD4<Double>
    let weatherPeriodS: SIMD4<Double>
    let weatherPhaseRad: SIMD4<Double>
    /// Air temperature at the start altitude (°C) and the phase of its ±2 °C diurnal cycle (rad).
    let temperatureBaseC: Double
    let temperaturePhaseRad: Double
    let magneticModel: WorldMagneticModel

    /// A generator for `scenario` whose random variety (gait amplitude and cadence per segment, oscillation
    /// phases, weather, temperature) is fixed by `seed`.
    ///
    /// Inputs are sanitised rather than trapped on: durations below 0.1 s (or not finite) count as 0.1 s,
    /// non-finite angles and heights as 0, latitudes are clamped to ±89.9°, a non-finite or zero mounting
    /// quaternion becomes the identity, a floor height that is not positive becomes 3 m.
    public init(scenario: Scenario, seed: UInt64, magneticModel: WorldMagneticModel = .wmm2025) {
        self.scenario = scenario
        self.seed = seed
        self.magneticModel = magneticModel
        var rng = SeededGenerator(seed: seed)

        func finite(_ x: Double, or fallback: Double = 0) -> Double { x.isFinite ? x : fallback }
        let latitudeDeg = min(max(finite(scenario.startLatitudeDeg), -Self.maximumLatitudeDeg), Self.maximumLatitudeDeg)
        startHeightM = finite(scenario.startHeightM)
        geoidUndulationM = finite(scenario.geoidUndulationM)
        floorHeightM = scenario.floorHeightM.isFinite && scenario.floorHeightM > 0 ? scenario.floorHeightM : 3
        let m = scenario.boardMounting
        mounting = [m.w, m.x, m.y, m.z].allSatisfy(\.isFinite) && m.norm > 0 ? m.normalized : .identity
        startDecimalYear = finite(scenario.startDecimalYear, or: 2026.5)

        // Plan: the scenario's segments, then the stationary hold.
        var plan: [PlannedSegment] = []
        plan.reserveCapacity(scenario.segments.count + 1)
        var t = 0.0
        var heading = Angle.radians(fromDegrees: finite(scenario.startHeadingDeg))
        var height = 0.0
        var floor = 0
        var previousSpeed = 0.0
        var previousKind = SegmentKind.stationary
        var previousProfile = MotionProfile.typical(for: .stationary)
        var phase = 0.0
        let hold = ScenarioSegment(
            .stationary, durationS: .infinity,
            gnssOutage: scenario.segments.last?.gnssOutage ?? false)
        for (index, segment) in (scenario.segments + [hold]).enumerated() {
            let isHold = index == scenario.segments.count
            let kind = segment.kind
            let duration =
                isHold
                ? Double.infinity
                : (segment.durationS.isFinite && segment.durationS >= 0.1 ? segment.durationS : 0.1)
            let speed = segment.targetSpeedMps
            let acceleration = max(typicalAccelerationMps2(previousKind), typicalAccelerationMps2(kind))
            let speedRamp = min(duration, max(1.0, abs(speed - previousSpeed) / acceleration))
            let turn = isHold ? 0 : Angle.radians(fromDegrees: finite(segment.headingChangeDeg))
            let turnDuration = turn == 0 ? 0 : min(duration, max(2.0, abs(turn) / typicalTurnRateRadS(kind)))
            let floors = kind.verticalDirection == 0 ? 0 : max(0, segment.floors)
            let distance = Double(kind.verticalDirection * floors) * floorHeightM
            var verticalStart = 0.0, window = 0.0, verticalRamp = 0.0, verticalSpeed = 0.0
            if distance != 0 {
                // Lifts: doors for up to 2 s at each end, then ≈ 1 m/s² corners; stairs: 1 s corners.
                let doors = kind.isLift ? min(2.0, duration / 4) : 0
                verticalStart = doors
                window = duration - 2 * doors
                verticalRamp = min(kind.isLift ? 2.0 : 1.0, window / 2)
                verticalSpeed = distance / (window - verticalRamp)
            }
            let profile = MotionProfile.typical(for: kind)
                .scaled(amplitude: rng.uniform(in: 0.85...1.15), cadence: rng.uniform(in: 0.95...1.05))
            let planned = PlannedSegment(
                kind: kind, startS: t, durationS: duration, gnssOutage: segment.gnssOutage,
                gnssMultipath: segment.gnssMultipath,
                speedFromMps: previousSpeed, speedToMps: speed, speedRampS: speedRamp,
                headingStartRad: heading, headingChangeRad: turn, turnStartS: (duration - turnDuration) / 2,
                turnDurationS: turnDuration,
                heightStartM: height, verticalDistanceM: distance, verticalStartS: verticalStart,
                verticalWindowS: window, verticalRampS: verticalRamp, verticalSpeedMps: verticalSpeed,
                floorStart: floor, from: previousProfile, to: profile, blendS: min(1.5, duration),
                phaseStartRad: phase, handling: isHold ? nil : segment.handling)
            plan.append(planned)
            if isHold { break }
            // The gait phase is wrapped modulo 4π, not 2π: the half-cadence channels use φ/2.
            phase = Self.phase(planned, tau: duration).value.truncatingRemainder(dividingBy: 4 * Double.pi)
            t += duration
            heading += turn
            height += distance
            floor += kind.verticalDirection * floors
            previousSpeed = speed
            previousKind = kind
            previousProfile = profile
        }
        self.plan = plan

        var gait = SIMD8<Double>.zero
        for i in 0..<6 { gait[i] = rng.uniform(in: 0...(2 * Double.pi)) }
        gaitPhaseRad = gait
        var vibration = SIMD4<Double>.zero
        for i in 0..<4 { vibration[i] = rng.uniform(in: 0...(2 * Double.pi)) }
        vibrationPhaseRad = vibration
        seaLevelOffsetPa = min(max(800 * rng.gaussian(), -2500), 2500)
        // Periods 1.7 d, 14.4 h, 5.5 h, 2.2 h; each term alone drifts ≈ 1–4 hPa/day, together a few hPa/day.
        weatherPeriodS = SIMD4(1.7, 0.6, 0.23, 0.09) * 86_400
        var amplitude = SIMD4<Double>(60, 25, 10, 4)
        var weatherPhase = SIMD4<Double>.zero
        for i in 0..<4 {
            amplitude[i] *= rng.uniform(in: 0.5...1.5)
            weatherPhase[i] = rng.uniform(in: 0...(2 * Double.pi))
        }
        weatherAmplitudePa = amplitude
        weatherPhaseRad = weatherPhase
        temperatureBaseC = rng.uniform(in: 8...26)
        temperaturePhaseRad = rng.uniform(in: 0...(2 * Double.pi))

        let latitudeRad = Angle.radians(fromDegrees: latitudeDeg)
        let longitudeRad = Angle.radians(fromDegrees: finite(scenario.startLongitudeDeg))
        let start = State(
            gridIndex: 0, latitudeRad: latitudeRad, longitudeRad: longitudeRad,
            previousLatitudeRad: latitudeRad, previousLongitudeRad: longitudeRad, segmentIndex: 0)
        initialState = start
        state = start
    }

    // MARK: - Sampling

    /// The true state at `timeS` (s since the scenario start).
    ///
    /// Times should be non-decreasing; any rate, fixed or variable, gives the same trajectory (bit for bit at
    /// equal times). Going back by up to one integration step (10 ms, e.g. timestamp jitter) is free; going
    /// back further restarts the integration from the beginning (correct, but slow for long runs). NaN counts
    /// as 0, negative times as 0, times beyond `maximumTimeS` as `maximumTimeS`.
    public mutating func sample(atTimeS timeS: Double) -> TruthSample {
        let t = timeS.isNaN ? 0 : min(max(timeS, 0), Self.maximumTimeS)
        advance(to: t)
        let h = Self.integrationStepS
        var latitude = state.latitudeRad, longitude = state.longitudeRad
        var gridTime = Double(state.gridIndex) * h
        if t < gridTime {
            // Up to one step back (advance(to:) restarts for anything earlier): start from the previous grid point.
            latitude = state.previousLatitudeRad
            longitude = state.previousLongitudeRad
            gridTime = Double(state.gridIndex - 1) * h
        }
        if t > gridTime {
            (latitude, longitude) = rk4Step(
                time: gridTime, latitudeRad: latitude, longitudeRad: longitude,
                stepS: t - gridTime, hint: state.segmentIndex)
        }
        let index = segmentIndex(containing: t, from: state.segmentIndex)
        let segment = plan[index]
        let tau = t - segment.startS

        // Smooth path.
        let speed = Self.speed(segment, tau: tau)
        let heading = Self.heading(segment, tau: tau)
        let vertical = Self.vertical(segment, tau: tau)

        // Periodic motion in the carrier frame.
        let (s, ds, dds) = Smootherstep.jet(tau / segment.blendS)
        let blend = Jet(s, ds / segment.blendS, dds / (segment.blendS * segment.blendS))
        func channel(_ a: Double, _ b: Double) -> Jet { Jet(a) + (b - a) * blend }
        let from = segment.from, to = segment.to
        let phase = Self.phase(segment, tau: tau)
        let halfPhase = 0.5 * phase
        var up = channel(from.bounceUpM, to.bounceUpM) * (phase + gaitPhaseRad[0]).cos
        var forward = channel(from.surgeForwardM, to.surgeForwardM) * (phase + gaitPhaseRad[1]).sin
        var right = channel(from.swayRightM, to.swayRightM) * (halfPhase + gaitPhaseRad[2]).sin
        let roll = channel(from.rollRad, to.rollRad) * (halfPhase + gaitPhaseRad[3]).sin
        let pitch = channel(from.pitchRad, to.pitchRad) * (phase + gaitPhaseRad[4]).sin
        let yaw = channel(from.yawRad, to.yawRad) * (halfPhase + gaitPhaseRad[5]).sin
        for k in 0..<4 {
            let amplitude = channel(from.vibrationMps2[k], to.vibrationMps2[k])
            if amplitude.value == 0 && amplitude.rate == 0 && amplitude.acceleration == 0 { continue }
            let omega = 2 * Double.pi * MotionProfile.vibrationHz[k]
            // Reduce f·t modulo 1 before scaling by 2π to keep the argument small over long runs.
            let cycles = (MotionProfile.vibrationHz[k] * t).truncatingRemainder(dividingBy: 1)
            let angle = Jet(2 * Double.pi * cycles + vibrationPhaseRad[k], omega, 0)
            let displacement = (-1 / (omega * omega)) * (amplitude * angle.sin)
            switch k {
            case 0, 1: up = up + displacement
            case 2: forward = forward + displacement
            default: right = right + displacement
            }
        }

        // Carrier frame → ENU.
        let sinHeading = heading.sin, cosHeading = heading.cos
        let east = right * cosHeading + forward * sinHeading
        let north = forward * cosHeading - right * sinHeading
        let pathEast = speed * sinHeading, pathNorth = speed * cosHeading
        let velocity = Vector3(pathEast.value + east.rate, pathNorth.value + north.rate, vertical.rate + up.rate)
        let acceleration = Vector3(
            pathEast.rate + east.acceleration, pathNorth.rate + north.acceleration,
            vertical.acceleration + up.acceleration)

        // Position: path + periodic displacement.
        let pathHeight = startHeightM + segment.heightStartM + vertical.value
        let meridian = Geodesy.meridianRadiusM(latitudeRad: latitude)
        let primeVertical = Geodesy.primeVerticalRadiusM(latitudeRad: latitude)
        let cosLatitude = max(Double.cos(latitude), 1e-9)
        latitude += north.value / (meridian + pathHeight)
        longitude += east.value / ((primeVertical + pathHeight) * cosLatitude)
        let heightM = pathHeight + up.value

        // Attitude: heading (+ yaw sway) about up, pitch about carrier right, roll about carrier forward, mounting.
        let yawTotal = heading + yaw
        let carrierToENU = Self.aboutZ(-yawTotal.value) * Self.aboutX(pitch.value) * Self.aboutY(roll.value)
        var rate = Vector3(0, 0, -yawTotal.rate)
        rate = Self.aboutX(pitch.value).conjugate.rotate(rate) + Vector3(pitch.rate, 0, 0)
        rate = Self.aboutY(roll.value).conjugate.rotate(rate) + Vector3(0, roll.rate, 0)
        // The person turning the board in the hand: H = Rx(tilt)·Ry(roll)·Rz(spin) between carrier and mounting.
        var handled = carrierToENU
        if let h = segment.handling?.angles(tau: tau, durationS: segment.durationS) {
            let (tiltX, rollY, spinZ) = (Self.aboutX(h.tilt.value), Self.aboutY(h.roll.value), Self.aboutZ(h.spin.value))
            handled = carrierToENU * tiltX * rollY * spinZ
            rate = tiltX.conjugate.rotate(rate) + Vector3(h.tilt.rate, 0, 0)
            rate = rollY.conjugate.rotate(rate) + Vector3(0, h.roll.rate, 0)
            rate = spinZ.conjugate.rotate(rate) + Vector3(0, 0, h.spin.rate)
        }
        let boardToENU = (handled * mounting).normalized
        let angularVelocity = mounting.conjugate.rotate(rate)

        let gravity = Geodesy.normalGravityMps2(latitudeRad: latitude, heightM: heightM)
        let specificForce = boardToENU.conjugate.rotate(acceleration + Vector3(0, 0, gravity))

        // Air.
        let altitudeMSL = heightM - geoidUndulationM
        let seaLevel = seaLevelPressurePa(atTimeS: t)
        let pressure = StandardAtmosphere.pressurePa(altitudeMSLM: altitudeMSL, seaLevelPressurePa: seaLevel)
        let diurnal = 2 * Double.sin(2 * Double.pi * (t / 86_400).truncatingRemainder(dividingBy: 1) + temperaturePhaseRad)
        let temperature =
            temperatureBaseC + diurnal
            - StandardAtmosphere.lapseRateKPerM * (altitudeMSL - (startHeightM - geoidUndulationM))

        // Magnetic field (WMM2025), nil outside the model's validity.
        let latitudeDeg = Angle.degrees(fromRadians: latitude)
        let longitudeDeg = Angle.degrees(fromRadians: longitude)
        var fieldENU: Vector3?
        if let e = try? magneticModel.elements(
            latitudeDeg: latitudeDeg, longitudeDeg: longitudeDeg,
            heightKm: heightM / 1000,
            decimalYear: startDecimalYear + t / Self.secondsPerJulianYear)
        {
            fieldENU = e.fieldENUMicroTesla
        }

        let floor = segment.floorStart + Int((vertical.value / floorHeightM).rounded())
        return TruthSample(
            timeS: t, latitudeDeg: latitudeDeg, longitudeDeg: Angle.wrap180(longitudeDeg), heightM: heightM,
            altitudeMSLM: altitudeMSL, velocityENUMps: velocity, accelerationENUMps2: acceleration,
            boardToENU: boardToENU, angularVelocityBoardRadS: angularVelocity, specificForceBoardMps2: specificForce,
            gravityMps2: gravity, pressurePa: pressure, seaLevelPressurePa: seaLevel, temperatureC: temperature,
            magneticFieldENUMicroTesla: fieldENU,
            magneticFieldBoardMicroTesla: fieldENU.map { boardToENU.conjugate.rotate($0) },
            segment: segment.kind, activity: segment.kind.activity, floor: floor, gnssOutage: segment.gnssOutage,
            gnssMultipath: segment.gnssMultipath)
    }

    /// Seconds per Julian year (365.25 d), used to advance the decimal year.
    public static let secondsPerJulianYear = 365.25 * 86_400

    /// Sea-level pressure of the simulated weather at `timeS`, Pa.
    public func seaLevelPressurePa(atTimeS t: Double) -> Double {
        var p = PhysicalConstants.seaLevelPressurePa + seaLevelOffsetPa
        if let tendency = scenario.pressureTendencyPaPerHour, tendency.isFinite {
            p += min(max(tendency * t / 3600, -20_000), 20_000) // at most ±200 hPa: the air stays air
        }
        for k in 0..<4 {
            let cycles = (t / weatherPeriodS[k]).truncatingRemainder(dividingBy: 1)
            p += weatherAmplitudePa[k] * Double.sin(2 * Double.pi * cycles + weatherPhaseRad[k])
        }
        return p
    }

    // MARK: - Path profiles (pure functions of the plan)

    static func speed(_ s: PlannedSegment, tau: Double) -> Jet {
        Smootherstep.ramp(from: s.speedFromMps, to: s.speedToMps, tau: tau, durationS: s.speedRampS)
    }

    static func heading(_ s: PlannedSegment, tau: Double) -> Jet {
        if s.headingChangeRad == 0 { return Jet(s.headingStartRad) }
        return Smootherstep.ramp(
            from: s.headingStartRad, to: s.headingStartRad + s.headingChangeRad,
            tau: tau - s.turnStartS, durationS: s.turnDurationS)
    }

    /// Height gained since the segment start (m), vertical speed and acceleration.
    static func vertical(_ s: PlannedSegment, tau: Double) -> Jet {
        if s.verticalDistanceM == 0 { return .zero }
        let w = tau - s.verticalStartS
        let window = s.verticalWindowS, ramp = s.verticalRampS, v = s.verticalSpeedMps
        if w <= 0 { return .zero }
        if w >= window { return Jet(s.verticalDistanceM) }
        if w < ramp {
            let (sv, ds, _) = Smootherstep.jet(w / ramp)
            return Jet(v * ramp * Smootherstep.integral(w / ramp), v * sv, v * ds / ramp)
        }
        if w <= window - ramp { return Jet(v * (w - ramp / 2), v, 0) }
        let r = (window - w) / ramp
        let (sv, ds, _) = Smootherstep.jet(r)
        return Jet(s.verticalDistanceM - v * ramp * Smootherstep.integral(r), v * sv, -v * ds / ramp)
    }

    /// Gait phase φ (rad) and its derivatives: φ̇ = 2π·cadence, the cadence blending like the amplitudes.
    static func phase(_ s: PlannedSegment, tau: Double) -> Jet {
        let f0 = s.from.cadenceHz, f1 = s.to.cadenceHz, b = s.blendS
        let u = tau / b
        let (sv, ds, _) = Smootherstep.jet(u)
        let cycles = f0 * tau + (f1 - f0) * (b * Smootherstep.integral(u) + max(0, tau - b))
        return Jet(
            s.phaseStartRad + 2 * Double.pi * cycles, 2 * Double.pi * (f0 + (f1 - f0) * sv),
            2 * Double.pi * (f1 - f0) * ds / b)
    }

    // MARK: - Integration of the smooth path on the ellipsoid

    /// The plan segment containing time `t`, searching from `hint`.
    func segmentIndex(containing t: Double, from hint: Int) -> Int {
        var i = min(max(hint, 0), plan.count - 1)
        while i > 0 && t < plan[i].startS { i -= 1 }
        while i + 1 < plan.count && t >= plan[i + 1].startS { i += 1 }
        return i
    }

    /// dφ/dt, dλ/dt (rad/s) of the smooth path at `time`.
    func latitudeLongitudeRate(time: Double, latitudeRad: Double, hint: Int) -> (Double, Double) {
        let segment = plan[segmentIndex(containing: time, from: hint)]
        let tau = time - segment.startS
        let v = Self.speed(segment, tau: tau).value
        let heading = Self.heading(segment, tau: tau).value
        let height = startHeightM + segment.heightStartM + Self.vertical(segment, tau: tau).value
        let meridian = Geodesy.meridianRadiusM(latitudeRad: latitudeRad)
        let primeVertical = Geodesy.primeVerticalRadiusM(latitudeRad: latitudeRad)
        let cosLatitude = max(Double.cos(latitudeRad), 1e-9)
        return (
            v * Double.cos(heading) / (meridian + height),
            v * Double.sin(heading) / ((primeVertical + height) * cosLatitude)
        )
    }

    /// One classical Runge–Kutta step of the path from `time` over `stepS`.
    func rk4Step(time: Double, latitudeRad: Double, longitudeRad: Double, stepS: Double, hint: Int) -> (Double, Double) {
        let half = stepS / 2
        let k1 = latitudeLongitudeRate(time: time, latitudeRad: latitudeRad, hint: hint)
        let k2 = latitudeLongitudeRate(time: time + half, latitudeRad: latitudeRad + half * k1.0, hint: hint)
        let k3 = latitudeLongitudeRate(time: time + half, latitudeRad: latitudeRad + half * k2.0, hint: hint)
        let k4 = latitudeLongitudeRate(time: time + stepS, latitudeRad: latitudeRad + stepS * k3.0, hint: hint)
        let latitude = latitudeRad + stepS / 6 * (k1.0 + 2 * k2.0 + 2 * k3.0 + k4.0)
        let longitude = longitudeRad + stepS / 6 * (k1.1 + 2 * k2.1 + 2 * k3.1 + k4.1)
        return (min(max(latitude, -Self.maximumLatitudeRad), Self.maximumLatitudeRad), longitude)
    }

    static let maximumLatitudeRad = Angle.radians(fromDegrees: maximumLatitudeDeg)

    /// Moves the grid to the last grid time ≤ `t`.
    mutating func advance(to t: Double) {
        let h = Self.integrationStepS
        if t < Double(state.gridIndex - 1) * h { state = initialState }
        let targetIndex = Int((t / h).rounded(.down))
        while state.gridIndex < targetIndex {
            let gridTime = Double(state.gridIndex) * h
            let i = segmentIndex(containing: gridTime, from: state.segmentIndex)
            state.segmentIndex = i
            let segment = plan[i]
            // At rest the path does not move and RK4 adds exact zeros: jump to the end of the rest directly.
            // (The result is bit-identical to stepping, so sampling patterns cannot change the trajectory.)
            if segment.speedToMps == 0,
                segment.speedFromMps == 0 || gridTime >= segment.startS + segment.speedRampS
            {
                let restEnd = segment.durationS.isFinite ? Int((segment.endS / h).rounded(.down)) : Int.max
                let jump = min(targetIndex, restEnd)
                if jump > state.gridIndex {
                    state.gridIndex = jump
                    state.previousLatitudeRad = state.latitudeRad // the path did not move
                    state.previousLongitudeRad = state.longitudeRad
                    continue
                }
            }
            state.previousLatitudeRad = state.latitudeRad
            state.previousLongitudeRad = state.longitudeRad
            (state.latitudeRad, state.longitudeRad) = rk4Step(
                time: gridTime, latitudeRad: state.latitudeRad, longitudeRad: state.longitudeRad, stepS: h, hint: i)
            state.gridIndex += 1
        }
        state.segmentIndex = segmentIndex(containing: Double(state.gridIndex) * h, from: state.segmentIndex)
    }

    // MARK: - Elementary rotations

    static func aboutX(_ angleRad: Double) -> Quaternion {
        Quaternion(w: Double.cos(angleRad / 2), x: Double.sin(angleRad / 2), y: 0, z: 0)
    }

    static func aboutY(_ angleRad: Double) -> Quaternion {
        Quaternion(w: Double.cos(angleRad / 2), x: 0, y: Double.sin(angleRad / 2), z: 0)
    }

    static func aboutZ(_ angleRad: Double) -> Quaternion {
        Quaternion(w: Double.cos(angleRad / 2), x: 0, y: 0, z: Double.sin(angleRad / 2))
    }
}
