import RealModule

/// The solution of the inverse geodesic problem between two points.
public struct GeodesicInverse: Sendable, Hashable {
    /// Length of the shortest geodesic, m (≥ 0).
    public var distanceM: Double
    /// Azimuth of the geodesic at the first point, degrees clockwise from north, (−180, 180].
    public var initialAzimuthDeg: Double
    /// Azimuth of the geodesic at the second point (the direction of travel there, not the back azimuth),
    /// degrees clockwise from north, (−180, 180].
    public var finalAzimuthDeg: Double
    /// Arc length on the auxiliary sphere, degrees.
    public var arcLengthDeg: Double
    /// Reduced length m12, m (Karney 2013 eq. 38): how far a neighbouring geodesic is displaced at the second
    /// point per radian of azimuth at the first.
    public var reducedLengthM: Double
    /// Area between the geodesic, the equator and the meridians through its end points, m² (eq. 58, S12):
    /// the contribution of this edge to a polygon's area (summed over a ring's edges it gives the ring's area,
    /// positive when the ring runs clockwise, up to a multiple of the ellipsoid's area).
    public var areaUnderM2: Double
}

extension Geodesic {
    /// Solves the inverse problem: the shortest geodesic from (`latitude1Deg`, `longitude1Deg`) to
    /// (`latitude2Deg`, `longitude2Deg`) (degrees, WGS84 or this ellipsoid). `nil` when an input is not finite
    /// or a latitude is outside [−90°, 90°].
    ///
    /// Karney 2013 §5: the points are put in a canonical order (|β1| ≥ |β2|, β1 ≤ 0, λ12 ≥ 0); meridional
    /// and equatorial geodesics are solved directly; otherwise the azimuth at the first point is found by
    /// Newton's method on λ12(α1) (eq. 45–46) from the starting point of §5 (the astroid of eq. 55 for
    /// nearly antipodal points), kept inside a bracket and bisected when a Newton step leaves it.
    public func inverse(
        latitude1Deg: Double, longitude1Deg: Double,
        latitude2Deg: Double, longitude2Deg: Double
    ) -> GeodesicInverse? {
        guard latitude1Deg.isFinite, latitude2Deg.isFinite, longitude1Deg.isFinite, longitude2Deg.isFinite,
            abs(latitude1Deg) <= 90, abs(latitude2Deg) <= 90
        else { return nil }
        let degree = GeoMath.radiansPerDegree
        let tiny = GeoMath.tiny
        let tol0 = GeoMath.epsilon
        let a = equatorialRadiusM, b = polarRadiusM, f = flattening

        // Longitude difference, with its rounding error, made non-negative.
        var (lon12, lon12Error) = GeoMath.difference(from: longitude1Deg, to: longitude2Deg)
        var lonSign: Double = lon12.sign == .minus ? -1 : 1
        lon12 = lonSign * GeoMath.round(lon12)
        // 180° − λ12, accurately: for λ12 near 180° its sine comes from this supplement.
        let lon12Supplement = GeoMath.round((180 - lon12) - lonSign * lon12Error)
        let lam12 = lon12 * degree
        var slam12: Double, clam12: Double
        if lon12 > 90 {
            (slam12, clam12) = GeoMath.sinCos(degrees: lon12Supplement)
            clam12 = -clam12
        } else {
            (slam12, clam12) = GeoMath.sinCos(degrees: lon12)
        }

        // Canonical order: |lat1| ≥ |lat2|, lat1 ≤ 0.
        var lat1 = GeoMath.round(latitude1Deg), lat2 = GeoMath.round(latitude2Deg)
        let swapped: Double = abs(lat1) < abs(lat2) ? -1 : 1
        if swapped < 0 {
            lonSign = -lonSign
            swap(&lat1, &lat2)
        }
        let latSign: Double = lat1 < 0 ? 1 : -1
        lat1 *= latSign
        lat2 *= latSign

        // Reduced latitudes β (tan β = (1 − f) tan φ), as sine and cosine.
        var (sbet1, cbet1) = GeoMath.sinCos(degrees: lat1)
        (sbet1, cbet1) = GeoMath.normalized(f1 * sbet1, cbet1)
        cbet1 = max(tiny, cbet1)
        var (sbet2, cbet2) = GeoMath.sinCos(degrees: lat2)
        (sbet2, cbet2) = GeoMath.normalized(f1 * sbet2, cbet2)
        cbet2 = max(tiny, cbet2)
        // With β1 < −45°, cos β2 − cos β1 measures |β1| − |β2| better than the sines (and λ12 uses it): when
        // the cosines are equal make the sines equal in magnitude too. Otherwise |sin β2| + sin β1 is the better
        // measure: when the sines are equal in magnitude make the cosines equal. (Near a pole the sines of
        // different latitudes round to the same double while their cosines differ by orders of magnitude, so
        // the cosines must not be overwritten there.)
        if cbet1 < -sbet1 {
            if cbet2 == cbet1 { sbet2 = sbet2.sign == .minus ? sbet1 : -sbet1 }
        } else if abs(sbet2) == -sbet1 {
            cbet2 = cbet1
        }
        let dn1 = (1 + ep2 * sbet1 * sbet1).squareRoot()
        let dn2 = (1 + ep2 * sbet2 * sbet2).squareRoot()
        // sin(β2 − β1) for nearby latitudes without the cancellation of sin β2 cos β1 − cos β2 sin β1:
        // tan β = (1 − f) tan φ gives sin(β2 − β1) = (1 − f) sin(φ2 − φ1) cos β1 cos β2 / (cos φ1 cos φ2), and
        // φ2 − φ1 is exact for nearby latitudes (Sterbenz). It sets the azimuth of lines shorter than ~1 m.
        var sbet12Accurate: Double?
        if abs(lat2 - lat1) < 1 {
            let cphi1 = GeoMath.sinCos(degrees: lat1).cos, cphi2 = GeoMath.sinCos(degrees: lat2).cos
            if cphi1 > 1e-3 && cphi2 > 1e-3 {
                sbet12Accurate = f1 * GeoMath.sinCos(degrees: lat2 - lat1).sin * cbet1 * cbet2 / (cphi1 * cphi2)
            }
        }

        var sig12 = 0.0, s12x = 0.0, m12x = 0.0
        var salp1 = 0.0, calp1 = 0.0, salp2 = 0.0, calp2 = 0.0
        // ω12 on the auxiliary sphere, when known (for the area of short edges).
        var somg12: Double? = nil, comg12 = 0.0

        var meridian = lat1 == -90 || slam12 == 0
        if meridian {
            // Along a meridian (or from a pole): α1 = λ12 (0° or 180°), α2 = 0°.
            calp1 = clam12; salp1 = slam12
            calp2 = 1; salp2 = 0
            let ssig1 = sbet1, csig1 = calp1 * cbet1
            let ssig2 = sbet2, csig2 = calp2 * cbet2
            sig12 = Double.atan2(y: GeoMath.positivePart(csig1 * ssig2 - ssig1 * csig2), x: csig1 * csig2 + ssig1 * ssig2)
            // On a meridian k² = e′², so ε = n.
            (s12x, m12x) = lengths(
                eps: n, sigma12: sig12, ssig1: ssig1, csig1: csig1, dn1: dn1,
                ssig2: ssig2, csig2: csig2, dn2: dn2)
            // The meridian is the shortest path unless it passes a conjugate point (m12 < 0 beyond σ = 1).
            if sig12 < 1 || m12x >= 0 {
                if sig12 < 3 * tiny || (sig12 < tol0 && (s12x < 0 || m12x < 0)) {
                    sig12 = 0; m12x = 0; s12x = 0
                }
                m12x *= b
                s12x *= b
            } else {
                meridian = false
            }
        }

        if !meridian && sbet1 == 0 && (f <= 0 || lon12Supplement >= f * 180) {
            // Along the equator (both points on it and λ12 ≤ (1 − f)π): α = 90°.
            calp1 = 0; calp2 = 0; salp1 = 1; salp2 = 1
            s12x = a * lam12
            sig12 = lam12 / f1
            m12x = b * Double.sin(sig12)
            somg12 = Double.sin(sig12); comg12 = Double.cos(sig12)
        } else if !meridian {
            let start = inverseStart(
                sbet1: sbet1, cbet1: cbet1, dn1: dn1, sbet2: sbet2, cbet2: cbet2, dn2: dn2,
                lam12: lam12, slam12: slam12, clam12: clam12, sbet12: sbet12Accurate)
            salp1 = start.salp1; calp1 = start.calp1
            if let shortSigma = start.sigma12 {
                // Short line: the spherical solution with the mean ω̄ is already accurate.
                sig12 = shortSigma
                salp2 = start.salp2; calp2 = start.calp2
                s12x = sig12 * b * start.dnm
                m12x = start.dnm * start.dnm * b * Double.sin(sig12 / start.dnm)
                let omg12 = lam12 / (f1 * start.dnm)
                somg12 = Double.sin(omg12); comg12 = Double.cos(omg12)
            } else {
                // Newton's method on α1 with a bracket [α1a, α1b]: λ12(α1a) < target < λ12(α1b).
                var salp1a = tiny, calp1a = 1.0, salp1b = tiny, calp1b = -1.0
                var tripNewton = false, tripBisection = false
                var iteration = 0
                var last = lambda12(
                    sbet1: sbet1, cbet1: cbet1, dn1: dn1, sbet2: sbet2, cbet2: cbet2, dn2: dn2,
                    salp1: salp1, calp1: calp1, slam120: slam12, clam120: clam12, derivative: true)
                while iteration < Self.maximumIterations {
                    let v = last.lam12
                    if tripBisection || !(abs(v) >= (tripNewton ? 8 : 1) * tol0) { break }
                    // Update the bracket.
                    if v > 0 && (iteration > Self.newtonIterations || calp1 / salp1 > calp1b / salp1b) {
                        salp1b = salp1; calp1b = calp1
                    } else if v < 0 && (iteration > Self.newtonIterations || calp1 / salp1 < calp1a / salp1a) {
                        salp1a = salp1; calp1a = calp1
                    }
                    iteration += 1
                    var stepped = false
                    if iteration < Self.newtonIterations && last.dlam12 > 0 {
                        let dalp1 = -v / last.dlam12
                        if abs(dalp1) < Double.pi {
                            let sdalp1 = Double.sin(dalp1), cdalp1 = Double.cos(dalp1)
                            let nsalp1 = salp1 * cdalp1 + calp1 * sdalp1
                            if nsalp1 > 0 {
                                (salp1, calp1) = GeoMath.normalized(nsalp1, calp1 * cdalp1 - salp1 * sdalp1)
                                // Converging quadratically: one more step and stop at 8·tol0.
                                tripNewton = abs(v) <= 16 * tol0
                                stepped = true
                            }
                        }
                    }
                    if !stepped {
                        // Bisection (of the sines and cosines, which is what the bracket tracks).
                        (salp1, calp1) = GeoMath.normalized((salp1a + salp1b) / 2, (calp1a + calp1b) / 2)
                        tripNewton = false
                        tripBisection =
                            abs(salp1a - salp1) + (calp1a - calp1) < Self.bisectionTolerance
                            || abs(salp1 - salp1b) + (calp1 - calp1b) < Self.bisectionTolerance
                    }
                    last = lambda12(
                        sbet1: sbet1, cbet1: cbet1, dn1: dn1, sbet2: sbet2, cbet2: cbet2, dn2: dn2,
                        salp1: salp1, calp1: calp1, slam120: slam12, clam120: clam12,
                        derivative: iteration < Self.newtonIterations)
                }
                sig12 = last.sig12
                salp2 = last.salp2; calp2 = last.calp2
                (s12x, m12x) = lengths(
                    eps: last.eps, sigma12: sig12, ssig1: last.ssig1, csig1: last.csig1, dn1: dn1,
                    ssig2: last.ssig2, csig2: last.csig2, dn2: dn2)
                m12x *= b
                s12x *= b
                // λ12 − ω12 = domg12: ω12 = λ12 − domg12.
                let omg12 = lam12 - last.domg12
                somg12 = Double.sin(omg12); comg12 = Double.cos(omg12)
            }
        }

        // Area under the geodesic (eq. 58–62), in the canonical frame, then signed for the original order.
        let salp0 = salp1 * cbet1
        let calp0 = Double.hypot(calp1, salp1 * sbet1)
        var s12Area = 0.0
        if calp0 != 0 && salp0 != 0 {
            let k2 = calp0 * calp0 * ep2
            let eps = Self.epsilon(k2: k2)
            let (s1, c1) = GeoMath.normalized(sbet1, calp1 * cbet1)
            let (s2, c2) = GeoMath.normalized(sbet2, calp2 * cbet2)
            let c4 = c4(eps)
            let a4 = a * a * calp0 * salp0 * e2
            s12Area = a4 * (Self.oddCosineSeries(s2, c2, c4) - Self.oddCosineSeries(s1, c1, c4))
        }
        // The spherical excess α2 − α1: for short edges not crossing a pole, from ω12 and β1, β2 (eq. 62),
        // which keeps precision when α1 ≈ α2.
        let alp12: Double
        if !meridian, let somg = somg12, comg12 > -0.7071, sbet2 - sbet1 < 1.75 {
            let domg12 = 1 + comg12, dbet1 = 1 + cbet1, dbet2 = 1 + cbet2
            alp12 =
                2
                * Double.atan2(
                    y: somg * (sbet1 * dbet2 + sbet2 * dbet1),
                    x: domg12 * (sbet1 * sbet2 + dbet1 * dbet2))
        } else {
            var salp12 = salp2 * calp1 - calp2 * salp1
            var calp12 = calp2 * calp1 + salp2 * salp1
            if salp12 == 0 && calp12 < 0 { // α12 = ±180°: pick the sign that follows from the geometry
                salp12 = tiny * calp1
                calp12 = -1
            }
            alp12 = Double.atan2(y: salp12, x: calp12)
        }
        s12Area += authalicRadiusSquaredM2 * alp12
        s12Area *= swapped * lonSign * latSign
        s12Area += 0

        // Back to the original order and signs.
        if swapped < 0 {
            swap(&salp1, &salp2)
            swap(&calp1, &calp2)
        }
        salp1 *= swapped * lonSign; calp1 *= swapped * latSign
        salp2 *= swapped * lonSign; calp2 *= swapped * latSign
        return GeodesicInverse(
            distanceM: 0 + s12x,
            initialAzimuthDeg: GeoMath.atan2Degrees(salp1, calp1),
            finalAzimuthDeg: GeoMath.atan2Degrees(salp2, calp2),
            arcLengthDeg: sig12 / degree,
            reducedLengthM: m12x,
            areaUnderM2: s12Area)
    }

    /// Newton steps before falling back to bisection only.
    static let newtonIterations = 20
    /// All iterations: Newton's, then enough bisections to exhaust a double's precision.
    static let maximumIterations = newtonIterations + Double.significandBitCount + 1 + 10
    /// Bisection stops when the bracket is this narrow (in sin + cos of α1).
    static let bisectionTolerance = GeoMath.epsilon * GeoMath.epsilon.squareRoot()

    /// The starting point of Newton's method (Karney 2013 §5): a spherical approximation with the mean ω̄
    /// (eq. 48–50), or, for nearly antipodal points, the solution of the astroid problem (eq. 55–57). For a
    /// short line whose spherical solution is already accurate, also σ12 and α2 (then `sigma12` is set).
    func inverseStart(
        sbet1: Double, cbet1: Double, dn1: Double, sbet2: Double, cbet2: Double, dn2: Double,
        lam12: Double, slam12: Double, clam12: Double, sbet12 accurate: Double? = nil
    )
        -> (salp1: Double, calp1: Double, sigma12: Double?, salp2: Double, calp2: Double, dnm: Double)
    {
        let f = flattening
        let sbet12 = accurate ?? sbet2 * cbet1 - cbet2 * sbet1 // sin(β2 − β1)
        let cbet12 = cbet2 * cbet1 + sbet2 * sbet1 // cos(β2 − β1)
        let sbet12a = sbet2 * cbet1 + cbet2 * sbet1 // sin(β2 + β1)
        let shortLine = cbet12 >= 0 && sbet12 < 0.5 && cbet2 * lam12 < 0.5
        var somg12: Double, comg12: Double
        var dnm = 1.0
        if shortLine {
            // sin²β̄ of the mean reduced latitude, w̄ = √(1 + e′² sin²β̄) (eq. 48).
            var sbetm2 = (sbet1 + sbet2) * (sbet1 + sbet2)
            sbetm2 /= sbetm2 + (cbet1 + cbet2) * (cbet1 + cbet2)
            dnm = (1 + ep2 * sbetm2).squareRoot()
            let omg12 = lam12 / (f1 * dnm)
            somg12 = Double.sin(omg12); comg12 = Double.cos(omg12)
        } else {
            somg12 = slam12; comg12 = clam12
        }
        // Spherical azimuth (eq. 49), with cos written to keep precision for small and large ω12.
        var salp1 = cbet2 * somg12
        var calp1 =
            comg12 >= 0
            ? sbet12 + cbet2 * sbet1 * somg12 * somg12 / (1 + comg12)
            : sbet12a - cbet2 * sbet1 * somg12 * somg12 / (1 - comg12)
        let ssig12 = Double.hypot(salp1, calp1)
        let csig12 = sbet1 * sbet2 + cbet1 * cbet2 * comg12
        if shortLine && ssig12 < etol2 {
            // Already the solution (eq. 50).
            let (salp2, calp2) = GeoMath.normalized(
                cbet1 * somg12,
                sbet12 - cbet1 * sbet2 * (comg12 >= 0 ? somg12 * somg12 / (1 + comg12) : 1 - comg12))
            let (s, c) = GeoMath.normalized(salp1, calp1)
            return (s, c, Double.atan2(y: ssig12, x: csig12), salp2, calp2, dnm)
        }
        if abs(n) > 0.1 || csig12 >= 0 || ssig12 >= 6 * abs(n) * Double.pi * cbet1 * cbet1 {
            // The spherical estimate is good enough to start from.
        } else if f > 0 {
            // Nearly antipodal: scale the neighbourhood of the antipode (eq. 53–54) and solve the astroid.
            let lam12x = Double.atan2(y: -slam12, x: -clam12) // λ12 − π
            let k2 = sbet1 * sbet1 * ep2
            let eps = Self.epsilon(k2: k2)
            let lamScale = f * cbet1 * a3(eps) * Double.pi
            let betScale = lamScale * cbet1
            let x = lam12x / lamScale
            let y = sbet12a / betScale
            let tol1 = 200 * GeoMath.epsilon
            let xThreshold = 1000 * GeoMath.epsilon.squareRoot()
            if y > -tol1 && x > -1 - xThreshold {
                // Near the equator: the geodesic runs close to it (eq. 56 limit).
                salp1 = min(1, -x)
                calp1 = -(1 - salp1 * salp1).squareRoot()
            } else {
                let k = Self.astroidRoot(x: x, y: y)
                let omg12a = lamScale * (-x * k / (1 + k))
                somg12 = Double.sin(omg12a); comg12 = -Double.cos(omg12a)
                salp1 = cbet2 * somg12
                calp1 = sbet12a - cbet2 * sbet1 * somg12 * somg12 / (1 - comg12)
            }
        }
        if salp1 > 0 {
            (salp1, calp1) = GeoMath.normalized(salp1, calp1)
        } else {
            salp1 = 1; calp1 = 0
        }
        return (salp1, calp1, nil, 0, 0, dnm)
    }

    /// The positive root μ of the astroid equation μ⁴ + 2μ³ + (1 − x² − y²)μ² − 2y²μ − y² = 0
    /// (Karney 2013 eq. 55). By Descartes' rule of signs there is exactly one positive root when y ≠ 0; it is
    /// found by Newton's method from above (the quartic is increasing and convex beyond its positive root),
    /// which converges monotonically. Returns 0 for y = 0 with x² ≤ 1 (no positive root).
    static func astroidRoot(x: Double, y: Double) -> Double {
        let p = x * x, q = y * y
        let c2 = 1 - p - q
        func value(_ m: Double) -> Double { (((m + 2) * m + c2) * m - 2 * q) * m - q }
        func slope(_ m: Double) -> Double { ((4 * m + 6) * m + 2 * c2) * m - 2 * q }
        if q == 0 && c2 >= 0 { return 0 }
        // Upper bound: μ⁴ + 2μ³ dominates once μ ≥ 1 + |x| + |y|.
        var m = 1 + abs(x) + abs(y)
        while value(m) < 0 { m *= 2 }
        for _ in 0..<100 {
            let v = value(m)
            let d = slope(m)
            guard d > 0 else { break }
            let next = m - v / d
            if !(next < m) || next <= 0 { break } // no further progress (converged to rounding)
            m = next
        }
        return m
    }

    /// λ12 − λ12(target) as a function of α1 (eq. 45, with ω from eq. 9 and the I3 series), the quantities of
    /// the trial geodesic, and dλ12/dα1 (eq. 46) when asked.
    func lambda12(
        sbet1: Double, cbet1: Double, dn1: Double, sbet2: Double, cbet2: Double, dn2: Double,
        salp1: Double, calp1 calp1In: Double, slam120: Double, clam120: Double, derivative: Bool
    )
        -> (
            lam12: Double, salp2: Double, calp2: Double, sig12: Double, ssig1: Double, csig1: Double,
            ssig2: Double, csig2: Double, eps: Double, domg12: Double, dlam12: Double
        )
    {
        var calp1 = calp1In
        if sbet1 == 0 && calp1 == 0 { calp1 = -GeoMath.tiny } // break the degeneracy of the equatorial line
        // Clairaut: sin α0 = sin α1 cos β1 (eq. 5).
        let salp0 = salp1 * cbet1
        let calp0 = Double.hypot(calp1, salp1 * sbet1)
        // σ1, ω1 (eq. 11): tan σ1 = tan β1 / cos α1, tan ω1 = sin α0 tan σ1.
        let somg1 = salp0 * sbet1
        let comg1 = calp1 * cbet1
        let (ssig1, csig1) = GeoMath.normalized(sbet1, comg1)
        // α2 from Clairaut; cos α2 from cos²α2 cos²β2 = cos²α1 cos²β1 + cos²β2 − cos²β1, the difference of
        // squares written in its better-conditioned form.
        let salp2 = cbet2 != cbet1 ? salp0 / cbet2 : salp1
        let calp2 =
            cbet2 != cbet1 || abs(sbet2) != -sbet1
            ? ((calp1 * cbet1) * (calp1 * cbet1)
                + (cbet1 < -sbet1 ? (cbet2 - cbet1) * (cbet1 + cbet2) : (sbet1 - sbet2) * (sbet1 + sbet2)))
                .squareRoot() / cbet2
            : abs(calp1)
        let somg2 = salp0 * sbet2
        let comg2 = calp2 * cbet2
        let (ssig2, csig2) = GeoMath.normalized(sbet2, comg2)
        let sig12 = Double.atan2(y: GeoMath.positivePart(csig1 * ssig2 - ssig1 * csig2), x: csig1 * csig2 + ssig1 * ssig2)
        let somg12 = GeoMath.positivePart(comg1 * somg2 - somg1 * comg2)
        let comg12 = comg1 * comg2 + somg1 * somg2
        // η = ω12 − λ12(target), reduced to (−π, π].
        let eta = Double.atan2(y: somg12 * clam120 - comg12 * slam120, x: comg12 * clam120 + somg12 * slam120)
        let k2 = calp0 * calp0 * ep2
        let eps = Self.epsilon(k2: k2)
        let c3 = c3(eps)
        let b312 = Self.sineSeries(ssig2, csig2, c3, terms: 5) - Self.sineSeries(ssig1, csig1, c3, terms: 5)
        // λ − ω = −f sin α0 I3(σ) (eq. 8).
        let domg12 = -flattening * a3(eps) * salp0 * (sig12 + b312)
        var dlam12 = 0.0
        if derivative {
            if calp2 == 0 {
                dlam12 = -2 * f1 * dn1 / sbet1
            } else {
                let (_, m12b) = lengths(
                    eps: eps, sigma12: sig12, ssig1: ssig1, csig1: csig1, dn1: dn1,
                    ssig2: ssig2, csig2: csig2, dn2: dn2)
                dlam12 = m12b * f1 / (calp2 * cbet2)
            }
        }
        return (eta + domg12, salp2, calp2, sig12, ssig1, csig1, ssig2, csig2, eps, domg12, dlam12)
    }
}
