/// The geoid's height above the WGS84 ellipsoid (EGM96), for receivers that report one altitude only.
///
/// A receiver gives its height above mean sea level (GGA field 9) and usually the geoid separation (field 11);
/// some give no separation, and binary protocols may give the ellipsoidal height alone. gpsd fills the missing
/// separation from its own 5° × 5° table (EGM2008) so that `altHAE`, `altMSL` and `geoidSep` are all present
/// whenever one altitude is; `GNSSDecoder` does the same from this model.
///
/// - Model: EGM96 (NIMA/NGA and NASA GSFC, 1996; a U.S. Government work, public domain), as Debian's `proj-data`
///   ships it (`egm96_15.gtx`, 15′ grid), kept on whole degrees and rounded to the centimetre by
///   `scripts/geoid-grid`: 181 × 360 values, 130,320 bytes (`GeoidGridData.swift`).
/// - Interpolation: bilinear, as gpsd's table is read. Against all 1,038,240 nodes of the full 15′ grid: rms
///   0.445 m, p99 1.845 m, worst 13.66 m (over the steepest features, the Himalaya and the deep-sea trenches). For
///   comparison, a 5° grid read the same way is off by rms 1.90 m, p99 7.52 m, worst 23.1 m against the same nodes.
/// - Frame: separation N = geoid − ellipsoid, m (negative where the geoid is below the ellipsoid, −107 m south of
///   India); altitude above the ellipsoid = altitude above mean sea level + N.
public enum Geoid {
    /// The geoid separation N (geoid − WGS84 ellipsoid) at a point, m. Latitude is clamped to ±90°, longitude wraps.
    /// - Parameters:
    ///   - latitudeDeg: geodetic latitude, degrees, north positive.
    ///   - longitudeDeg: longitude, degrees, east positive (any value; taken modulo 360°).
    /// - Returns: N in metres, or nil when either coordinate is not finite.
    public static func separationM(latitudeDeg: Double, longitudeDeg: Double) -> Double? {
        guard latitudeDeg.isFinite, longitudeDeg.isFinite else { return nil }
        let y = min(max(latitudeDeg, -90), 90) + 90 // 0…180, rows from the south pole
        var x = (longitudeDeg + 180).truncatingRemainder(dividingBy: 360) // columns from 180° W
        if x < 0 { x += 360 }
        let i = min(Int(y), rows - 2), fy = y - Double(i)
        let j = min(Int(x), columns - 1), fx = x - Double(j)
        let j1 = (j + 1) % columns
        let heights = table
        let h00 = Double(heights[i * columns + j]), h01 = Double(heights[i * columns + j1])
        let h10 = Double(heights[(i + 1) * columns + j]), h11 = Double(heights[(i + 1) * columns + j1])
        let cm = (h00 * (1 - fx) + h01 * fx) * (1 - fy) + (h10 * (1 - fx) + h11 * fx) * fy
        return cm / 100
    }

    /// Rows of the grid: 90° S to 90° N in 1° steps.
    static let rows = 181
    /// Columns of the grid: 180° W to 179° E in 1° steps (180° E is 180° W again).
    static let columns = 360

    /// The grid, cm, row-major from the south-west corner; decoded once, at first use.
    static let table: [Int16] = decode(gridBase64)

    /// Decodes the base64 text (line breaks and spaces skipped) into little-endian Int16 values.
    static func decode(_ text: StaticString) -> [Int16] {
        var values: [Int16] = []
        values.reserveCapacity(rows * columns)
        var accumulator: UInt32 = 0, bits = 0
        var low: UInt8? = nil
        text.withUTF8Buffer { utf8 in
            for c in utf8 {
                let v: UInt32
                switch c {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = UInt32(c - UInt8(ascii: "A"))
                case UInt8(ascii: "a")...UInt8(ascii: "z"): v = UInt32(c - UInt8(ascii: "a")) + 26
                case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(c - UInt8(ascii: "0")) + 52
                case UInt8(ascii: "+"): v = 62
                case UInt8(ascii: "/"): v = 63
                default: continue // line breaks, indentation, padding
                }
                accumulator = (accumulator << 6) | v
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    let byte = UInt8(truncatingIfNeeded: accumulator >> UInt32(bits))
                    if let l = low {
                        values.append(Int16(bitPattern: UInt16(l) | UInt16(byte) << 8))
                        low = nil
                    } else {
                        low = byte
                    }
                }
            }
        }
        precondition(values.count == rows * columns, "GeoidGridData.swift holds \(values.count) values, not \(rows * columns)")
        return values
    }
}
