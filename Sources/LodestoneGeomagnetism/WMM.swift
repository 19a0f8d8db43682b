import LodestoneCore
import RealModule

/// The World Magnetic Model: the geomagnetic main field and its secular variation as a degree-and-order-12
/// spherical-harmonic expansion (Schmidt semi-normalised Gauss coefficients).
///
/// Source: Chulliat et al., *The US/UK World Magnetic Model for 2025-2030: Technical Report*, NOAA NCEI
/// (2025), DOI 10.25923/prbc-s316, section "The model equations"; the algorithm follows NOAA's reference
/// implementation (`GeomagnetismLibrary.c`: geodetic → geocentric spherical on WGS84, Gauss-normalised
/// associated Legendre functions by recursion converted to Schmidt semi-normalisation, the summation, the
/// special By summation at the geographic poles, and the rotation back to geodetic north-east-down).
///
/// The model is built once from a coefficient file (`init(coefficientFileText:)`) or taken from the embedded
/// WMM2025 (`wmm2025`). `elements(latitudeDeg:longitudeDeg:heightKm:decimalYear:)` allocates nothing: the
/// coefficient and normalisation tables are arrays filled once at `init` and only read afterwards; the
/// Legendre recursion runs order-by-order (outer loop m, inner loop n) so it needs only scalar temporaries.
public struct WorldMagneticModel: Sendable {
    /// Degree and order of the expansion, 12 for the WMM.
    public static let maximumDegree = 12
    /// Number of (n, m) rows in a coefficient file: Σ_{n=1…12} (n + 1) = 90.
    public static let coefficientRowCount = 90
    /// Geomagnetic reference radius, km (WMM technical report).
    public static let referenceRadiusKm = 6371.2
    /// WGS84 semi-major axis, km.
    public static let wgs84SemiMajorAxisKm = 6378.137
    /// WGS84 flattening.
    public static let wgs84Flattening = 1 / 298.257223563
    /// Height range the model is specified for, km above the WGS84 ellipsoid (WMM technical report).
    public static let heightRangeKm: ClosedRange<Double> = -1...850

    /// Epoch of the coefficients, decimal year (2025.0 for WMM2025).
    public let epochDecimalYear: Double
    /// Model name from the file header, e.g. `WMM-2025`.
    public let modelName: String
    /// Release date from the file header as a decimal year (2024-11-13 = 2024.866120 for WMM2025).
    public let releaseDecimalYear: Double
    /// First date the model accepts, decimal year: the earlier of release date and epoch (NOAA's
    /// `wmm-calculator` accepts WMM2025 from its release date, 2024-11-13).
    public let validFromDecimalYear: Double
    /// First date the model refuses, decimal year: epoch + 5 years (2030.0 for WMM2025).
    public let validUntilDecimalYear: Double

    /// (g, h, ġ, ḣ) per (n, m) at index n(n+1)/2 + m; index 0 (n = 0) is zero. nT and nT/year.
    let coefficients: [SIMD4<Double>]
    /// Gauss-normalised → Schmidt semi-normalised factors per (n, m), same indexing.
    let schmidtFactors: [Double]

    /// Builds a model from the text of a WMM coefficient file (`WMM.COF`).
    ///
    /// The text is parsed by whitespace, never by column position: a header `epoch model-name MM/DD/YYYY`,
    /// 90 rows `n m g h gdot hdot` for n = 1…12, m = 0…n in that order, then a line of `9`s. Blank lines are
    /// skipped, CR-LF line ends accepted, and anything after the end marker ignored.
    ///
    /// - Throws: `WMMError` naming the 1-based line that is wrong.
    public init(coefficientFileText text: String) throws(WMMError) {
        var lineNumber = 0
        var header: (epoch: Double, name: String, releaseDecimalYear: Double)?
        var rows = 0
        var expectedDegree = 1, expectedOrder = 0
        var table = [SIMD4<Double>](repeating: .zero, count: Self.index(Self.maximumDegree, Self.maximumDegree) + 1)
        var sawEndMarker = false

        // "\r\n" is one Character (grapheme cluster) in Swift, so split on either form, not on "\n" alone.
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            let fields = rawLine.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            if fields.isEmpty { continue }
            let lineText = String(rawLine)

            if header == nil {
                header = try Self.parseHeader(fields, line: lineNumber, text: lineText)
                continue
            }
            let isEndMarker = fields.count == 1 && fields[0].count >= 4 && fields[0].allSatisfy { $0 == "9" }
            if rows == Self.coefficientRowCount {
                guard isEndMarker else { throw .missingEndMarker(line: lineNumber, text: lineText) }
                sawEndMarker = true
                break
            }
            if isEndMarker { throw .truncatedCoefficientFile(line: lineNumber, rowsRead: rows) }

            guard fields.count == 6,
                let nValue = Double(fields[0]), let mValue = Double(fields[1]),
                let g = Double(fields[2]), let hCoefficient = Double(fields[3]),
                let gDot = Double(fields[4]), let hDot = Double(fields[5]),
                [nValue, mValue, g, hCoefficient, gDot, hDot].allSatisfy(\.isFinite),
                nValue == nValue.rounded(), mValue == mValue.rounded(),
                abs(nValue) < 1000, abs(mValue) < 1000
            else { throw .malformedCoefficientRow(line: lineNumber, text: lineText) }
            let n = Int(nValue), m = Int(mValue)
            guard n == expectedDegree, m == expectedOrder else {
                throw .unexpectedDegreeOrder(
                    line: lineNumber, expectedDegree: expectedDegree,
                    expectedOrder: expectedOrder, foundDegree: n, foundOrder: m)
            }
            table[Self.index(n, m)] = SIMD4(g, hCoefficient, gDot, hDot)
            rows += 1
            if expectedOrder == expectedDegree { expectedDegree += 1; expectedOrder = 0 } else { expectedOrder += 1 }
        }

        guard let h = header else { throw .emptyCoefficientFile }
        if rows < Self.coefficientRowCount { throw .truncatedCoefficientFile(line: lineNumber, rowsRead: rows) }
        if !sawEndMarker { throw .missingEndMarker(line: lineNumber + 1, text: nil) }

        epochDecimalYear = h.epoch
        modelName = h.name
        releaseDecimalYear = h.releaseDecimalYear
        validFromDecimalYear = min(h.epoch, h.releaseDecimalYear)
        validUntilDecimalYear = h.epoch + 5
        coefficients = table
        schmidtFactors = Self.makeSchmidtFactors()
    }

    /// Index of (n, m) in the triangular tables.
    @inline(__always) static func index(_ n: Int, _ m: Int) -> Int { n * (n + 1) / 2 + m }

    private static func parseHeader(_ fields: [Substring], line: Int, text: String) throws(WMMError)
        -> (epoch: Double, name: String, releaseDecimalYear: Double)
    {
        guard fields.count == 3, let epoch = Double(fields[0]), epoch.isFinite, (1900...2200).contains(epoch),
            fields[1].hasPrefix("WMM")
        else { throw .malformedHeader(line: line, text: text) }
        let dateParts = fields[2].split(separator: "/", omittingEmptySubsequences: false)
        guard dateParts.count == 3, let month = Int(dateParts[0]), let day = Int(dateParts[1]),
            let year = Int(dateParts[2]),
            let release = try? DecimalYear.from(year: year, month: month, day: day)
        else { throw .malformedHeader(line: line, text: text) }
        return (epoch, String(fields[1]), release)
    }

    /// Ratio of Schmidt semi-normalised to Gauss-normalised associated Legendre functions,
    /// √((m == 0 ? 1 : 2)·(n − m)!/(n + m)!)·(2n − 1)!!/(n − m)!, built by NOAA's recursion.
    private static func makeSchmidtFactors() -> [Double] {
        var s = [Double](repeating: 0, count: index(maximumDegree, maximumDegree) + 1)
        s[0] = 1
        for n in 1...maximumDegree {
            s[index(n, 0)] = s[index(n - 1, 0)] * Double(2 * n - 1) / Double(n)
            for m in 1...n {
                s[index(n, m)] =
                    s[index(n, m - 1)]
                    * (Double((n - m + 1) * (m == 1 ? 2 : 1)) / Double(n + m)).squareRoot()
            }
        }
        return s
    }

    /// The main-field elements and their secular variation at a place and time.
    ///
    /// - Parameters:
    ///   - latitudeDeg: geodetic latitude on WGS84, degrees, −90…90 (the poles are handled as NOAA does).
    ///   - longitudeDeg: degrees east, any finite value (−120 and 240 are the same place).
    ///   - heightKm: height above the WGS84 **ellipsoid** (what GNSS reports, not MSL), km, −1…850.
    ///   - decimalYear: UTC date as a decimal year (`DecimalYear.from`), in
    ///     `validFromDecimalYear ..< validUntilDecimalYear`.
    /// - Throws: `WMMError.dateOutsideValidity`, `.invalidLatitude`, `.invalidLongitude`, `.invalidHeight`.
    public func elements(
        latitudeDeg: Double, longitudeDeg: Double, heightKm: Double,
        decimalYear: Double
    ) throws(WMMError) -> MagneticElements {
        guard latitudeDeg.isFinite, abs(latitudeDeg) <= 90 else { throw .invalidLatitude(degrees: latitudeDeg) }
        guard longitudeDeg.isFinite else { throw .invalidLongitude(degrees: longitudeDeg) }
        guard heightKm.isFinite, Self.heightRangeKm.contains(heightKm) else { throw .invalidHeight(kilometres: heightKm) }
        guard decimalYear.isFinite, decimalYear >= validFromDecimalYear, decimalYear < validUntilDecimalYear else {
            throw .dateOutsideValidity(
                decimalYear: decimalYear, validFrom: validFromDecimalYear,
                validUntil: validUntilDecimalYear)
        }

        // Geodetic → geocentric spherical (WGS84); NOAA MAG_GeodeticToSpherical.
        let a = Self.wgs84SemiMajorAxisKm
        let f = Self.wgs84Flattening
        let e2 = f * (2 - f)
        let latitudeRad = Angle.radians(fromDegrees: latitudeDeg)
        let sinLatitude = Double.sin(latitudeRad), cosLatitude = Double.cos(latitudeRad)
        let rc = a / (1 - e2 * sinLatitude * sinLatitude).squareRoot()
        let xp = (rc + heightKm) * cosLatitude
        let zp = (rc * (1 - e2) + heightKm) * sinLatitude
        let r = (xp * xp + zp * zp).squareRoot()
        let geocentricLatitudeRad = Double.asin(zp / r)

        let longitudeRad = Angle.radians(fromDegrees: longitudeDeg)
        let cosLongitude = Double.cos(longitudeRad), sinLongitude = Double.sin(longitudeRad)
        let ratio = Self.referenceRadiusKm / r
        let x = Double.sin(geocentricLatitudeRad) // cos(colatitude)
        let z = ((1 - x) * (1 + x)).squareRoot() // sin(colatitude)
        let cosPhi = Double.cos(geocentricLatitudeRad)
        let dt = decimalYear - epochDecimalYear

        // Summation of field and secular variation (NOAA MAG_Summation, MAG_SecVarSummation), spherical frame:
        // bx northward, by eastward, bz downward.
        var bx = 0.0, by = 0.0, bz = 0.0
        var sx = 0.0, sy = 0.0, sz = 0.0
        coefficients.withUnsafeBufferPointer { c in
            schmidtFactors.withUnsafeBufferPointer { s in
                var pmm = 1.0, dpmm = 0.0 // Gauss-normalised P(m,m) and dP/dθ
                var cosM = 1.0, sinM = 0.0 // cos(mλ), sin(mλ)
                var radiusPowerM = ratio * ratio // (a/r)^(m+2)
                for m in 0...Self.maximumDegree {
                    if m > 0 {
                        let p = z * pmm
                        dpmm = z * dpmm + x * pmm
                        pmm = p
                        (cosM, sinM) =
                            m == 1
                            ? (cosLongitude, sinLongitude)
                            : (cosM * cosLongitude - sinM * sinLongitude, cosM * sinLongitude + sinM * cosLongitude)
                        radiusPowerM *= ratio
                    }
                    var p1 = pmm, dp1 = dpmm // P(n−1, m)
                    var p2 = 0.0, dp2 = 0.0 // P(n−2, m)
                    var radiusPower = radiusPowerM // (a/r)^(n+2)
                    for n in m...Self.maximumDegree {
                        var p = pmm, dp = dpmm
                        if n > m {
                            if n == m + 1 {
                                p = x * p1
                                dp = x * dp1 - z * p1
                            } else {
                                let k = Double((n - 1) * (n - 1) - m * m) / Double((2 * n - 1) * (2 * n - 3))
                                p = x * p1 - k * p2
                                dp = x * dp1 - z * p1 - k * dp2
                            }
                            p2 = p1; dp2 = dp1; p1 = p; dp1 = dp
                            radiusPower *= ratio
                        }
                        if n == 0 { continue }
                        let i = Self.index(n, m)
                        // Schmidt semi-normalised; the derivative's sign flips from colatitude to latitude.
                        let schmidtP = p * s[i]
                        let schmidtDP = -dp * s[i]
                        let k = c[i]
                        let g = k[0] + dt * k[2], h = k[1] + dt * k[3]
                        let cosTerm = g * cosM + h * sinM, sinTerm = g * sinM - h * cosM
                        bz -= radiusPower * cosTerm * Double(n + 1) * schmidtP
                        by += radiusPower * sinTerm * Double(m) * schmidtP
                        bx -= radiusPower * cosTerm * schmidtDP
                        let cosRate = k[2] * cosM + k[3] * sinM, sinRate = k[2] * sinM - k[3] * cosM
                        sz -= radiusPower * cosRate * Double(n + 1) * schmidtP
                        sy += radiusPower * sinRate * Double(m) * schmidtP
                        sx -= radiusPower * cosRate * schmidtDP
                    }
                }
            }
        }
        if abs(cosPhi) > 1e-10 {
            by /= cosPhi
            sy /= cosPhi
        } else {
            // At a geographic pole By = (1/cos φ)·Σ… is 0/0; NOAA's MAG_SummationSpecial evaluates the limit
            // with the m = 1 terms only.
            (by, sy) = poleEastComponents(
                sinPhi: x, ratio: ratio, cosLongitude: cosLongitude,
                sinLongitude: sinLongitude, dt: dt)
        }

        // Rotate from geocentric spherical to geodetic north-east-down (NOAA MAG_RotateMagneticVector).
        let psi = geocentricLatitudeRad - latitudeRad
        let sinPsi = Double.sin(psi), cosPsi = Double.cos(psi)
        let north = bx * cosPsi - bz * sinPsi
        let down = bx * sinPsi + bz * cosPsi
        let northRate = sx * cosPsi - sz * sinPsi
        let downRate = sx * sinPsi + sz * cosPsi
        return Self.makeElements(
            north: north, east: by, down: down, northRate: northRate, eastRate: sy,
            downRate: downRate, latitudeDeg: latitudeDeg, longitudeDeg: longitudeDeg)
    }

    /// By and its rate at a geographic pole (NOAA `MAG_SummationSpecial`, `MAG_SecVarSummationSpecial`).
    private func poleEastComponents(
        sinPhi: Double, ratio: Double, cosLongitude: Double, sinLongitude: Double,
        dt: Double
    ) -> (Double, Double) {
        var by = 0.0, sy = 0.0
        var p1 = 1.0, p2 = 0.0 // PcupS[n−1], PcupS[n−2]
        var schmidt1 = 1.0
        var radiusPower = ratio * ratio
        coefficients.withUnsafeBufferPointer { c in
            for n in 1...Self.maximumDegree {
                radiusPower *= ratio
                let schmidt2 = schmidt1 * Double(2 * n - 1) / Double(n)
                let schmidt3 = schmidt2 * (Double(n * 2) / Double(n + 1)).squareRoot()
                schmidt1 = schmidt2
                var p = p1
                if n > 1 {
                    let k = Double((n - 1) * (n - 1) - 1) / Double((2 * n - 1) * (2 * n - 3))
                    p = sinPhi * p1 - k * p2
                }
                p2 = p1; p1 = p
                let k = c[Self.index(n, 1)]
                let g = k[0] + dt * k[2], h = k[1] + dt * k[3]
                by += radiusPower * (g * sinLongitude - h * cosLongitude) * p * schmidt3
                sy += radiusPower * (k[2] * sinLongitude - k[3] * cosLongitude) * p * schmidt3
            }
        }
        return (by, sy)
    }

    /// H, F, D, I, grid variation and their rates (NOAA MAG_CalculateGeoMagneticElements,
    /// MAG_CalculateSecularVariationElements, MAG_CalculateGridVariation for the polar case).
    private static func makeElements(
        north x: Double, east y: Double, down z: Double, northRate xDot: Double,
        eastRate yDot: Double, downRate zDot: Double, latitudeDeg: Double,
        longitudeDeg: Double
    ) -> MagneticElements {
        let h = (x * x + y * y).squareRoot()
        let f = (h * h + z * z).squareRoot()
        let declinationDeg = Angle.degrees(fromRadians: Double.atan2(y: y, x: x))
        let inclinationDeg = Angle.degrees(fromRadians: Double.atan2(y: z, x: h))
        // H = 0 only exactly at a magnetic dip pole, where D and its rate are undefined; report 0 rather than NaN.
        let hDot = h > 0 ? (x * xDot + y * yDot) / h : 0
        let fDot = f > 0 ? (x * xDot + y * yDot + z * zDot) / f : 0
        let declinationRate = h > 0 ? Angle.degrees(fromRadians: (x * yDot - y * xDot) / (h * h)) : 0
        let inclinationRate = f > 0 ? Angle.degrees(fromRadians: (h * zDot - z * hDot) / (f * f)) : 0
        var gridVariation: Double?
        if latitudeDeg >= 55 {
            gridVariation = Angle.wrap180(declinationDeg - longitudeDeg)
        } else if latitudeDeg <= -55 {
            gridVariation = Angle.wrap180(declinationDeg + longitudeDeg)
        }
        return MagneticElements(
            northNT: x, eastNT: y, downNT: z, horizontalNT: h, totalNT: f,
            declinationDeg: declinationDeg, inclinationDeg: inclinationDeg, gridVariationDeg: gridVariation,
            northRateNTPerYear: xDot, eastRateNTPerYear: yDot, downRateNTPerYear: zDot,
            horizontalRateNTPerYear: hDot, totalRateNTPerYear: fDot,
            declinationRateDegPerYear: declinationRate, inclinationRateDegPerYear: inclinationRate)
    }
}

extension WorldMagneticModel {
    /// WMM2025 (epoch 2025.0, released 2024-12-17, coefficients dated 2024-11-13), valid from 2024-11-13
    /// (decimal 2024.866120) up to, not including, 2030.0. Built from `wmm2025CoefficientFileText`, which is
    /// compiled into the binary, so it needs no file at run time.
    public static let wmm2025: WorldMagneticModel = {
        do {
            return try WorldMagneticModel(coefficientFileText: wmm2025CoefficientFileText)
        } catch {
            // Not an input path: the text is a compile-time constant checked byte for byte against WMM.COF by
            // LodestoneGeomagnetismTests, so a failure here is a programmer error.
            preconditionFailure("embedded WMM2025 coefficients do not parse: \(error)")
        }
    }()
}
