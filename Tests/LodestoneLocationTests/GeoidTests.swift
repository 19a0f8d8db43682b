import Foundation
import LodestoneLocation
import Testing

/// The embedded EGM96 grid (`Geoid`, 1°) against the full 15′ grid it was cut from: Debian's proj-data
/// `egm96_15.gtx` (EGM96, public domain), read here at run time (scripts/bootstrap --test installs proj-data).
@Suite struct GeoidTests {
    /// The full 15′ grid: 721 rows from 90° S, 1440 columns from 180° W, metres.
    struct FullGrid {
        let heightsM: [Float]

        static let path = "/usr/share/proj/egm96_15.gtx"

        init() throws {
            let data = try Data(contentsOf: URL(fileURLWithPath: Self.path))
            let bytes = [UInt8](data)
            #expect(bytes.count == 40 + 4 * 721 * 1440, "\(Self.path) is not the 721 × 1440 EGM96 grid")
            // Big-endian Float32, one shift a statement: Swift 6.0.3 cannot type-check the one-expression form in time.
            heightsM = stride(from: 40, to: bytes.count, by: 4).map { (i: Int) -> Float in
                var word = UInt32(bytes[i]) << 24
                word |= UInt32(bytes[i + 1]) << 16
                word |= UInt32(bytes[i + 2]) << 8
                word |= UInt32(bytes[i + 3])
                return Float(bitPattern: word)
            }
        }

        /// Bilinear on the 15′ grid, m.
        func heightM(latitudeDeg: Double, longitudeDeg: Double) -> Double {
            let y = (latitudeDeg + 90) * 4, x = (longitudeDeg + 180) * 4
            let i = min(Int(y), 719), j = Int(x) % 1440
            let fy = y - Double(i), fx = x - Double(Int(x))
            let j1 = (j + 1) % 1440
            func h(_ r: Int, _ c: Int) -> Double { Double(heightsM[r * 1440 + c]) }
            return (h(i, j) * (1 - fx) + h(i, j1) * fx) * (1 - fy) + (h(i + 1, j) * (1 - fx) + h(i + 1, j1) * fx) * fy
        }
    }

    @Test func theEmbeddedGridFollowsTheFullGrid() throws {
        let full = try FullGrid()
        // 20 000 points spread evenly over the sphere (a Fibonacci lattice: equal area per point).
        var errors: [Double] = []
        let n = 20_000
        for k in 0..<n {
            let latitudeDeg = asin(2 * (Double(k) + 0.5) / Double(n) - 1) * 180 / .pi
            var longitudeDeg = (Double(k) * 137.507_764_050_037_85).truncatingRemainder(dividingBy: 360) - 180
            if longitudeDeg >= 180 { longitudeDeg -= 360 }
            let ours = try #require(Geoid.separationM(latitudeDeg: latitudeDeg, longitudeDeg: longitudeDeg))
            errors.append(abs(ours - full.heightM(latitudeDeg: latitudeDeg, longitudeDeg: longitudeDeg)))
        }
        errors.sort()
        let rms = (errors.reduce(0) { $0 + $1 * $1 } / Double(n)).squareRoot()
        let p99 = errors[Int(0.99 * Double(n - 1))]
        print("Geoid (1°) against EGM96 15′ at \(n) equal-area points: rms \(rms) m, p99 \(p99) m, worst \(errors.last!) m")
        // scripts/geoid-grid measured rms 0.445 m, p99 1.845 m, worst 13.66 m at every node of the full grid.
        #expect(rms < 0.6)
        #expect(p99 < 2.5)
        #expect(errors.last! < 15)
    }

    @Test func knownPlacesOnTheGeoid() throws {
        // Nodes of the 1° grid are EGM96's own values, to the centimetre (read from the full grid).
        let full = try FullGrid()
        for (latitudeDeg, longitudeDeg) in [(0.0, 0.0), (90, 0), (-90, 0), (5, 79), (-5, 147), (47, 8), (-45, 170)] {
            let ours = try #require(Geoid.separationM(latitudeDeg: latitudeDeg, longitudeDeg: longitudeDeg))
            #expect(abs(ours - full.heightM(latitudeDeg: latitudeDeg, longitudeDeg: longitudeDeg)) <= 0.005)
        }
        // The geoid's lowest region, south of India, and its highest, over New Guinea (EGM96: −107 m and +85 m).
        #expect(try #require(Geoid.separationM(latitudeDeg: 5, longitudeDeg: 79)) < -100)
        #expect(try #require(Geoid.separationM(latitudeDeg: -5, longitudeDeg: 147)) > 70)
    }

    @Test func longitudeWrapsAndLatitudeIsClamped() throws {
        let a = try #require(Geoid.separationM(latitudeDeg: 12.3, longitudeDeg: -170.25))
        #expect(Geoid.separationM(latitudeDeg: 12.3, longitudeDeg: 189.75) == a)
        #expect(Geoid.separationM(latitudeDeg: 12.3, longitudeDeg: -530.25) == a)
        // Across the antimeridian the grid is continuous: 179.9° E and 179.9° W are 0.2° apart.
        let east = try #require(Geoid.separationM(latitudeDeg: -20, longitudeDeg: 179.9))
        let west = try #require(Geoid.separationM(latitudeDeg: -20, longitudeDeg: -179.9))
        #expect(abs(east - west) < 0.5)
        #expect(Geoid.separationM(latitudeDeg: 95, longitudeDeg: 0) == Geoid.separationM(latitudeDeg: 90, longitudeDeg: 0))
        #expect(Geoid.separationM(latitudeDeg: .nan, longitudeDeg: 0) == nil)
        #expect(Geoid.separationM(latitudeDeg: 0, longitudeDeg: .infinity) == nil)
    }

    @Test func aReceiverWithoutASeparationGetsBothHeights() {
        // GGA with the altitude above mean sea level and no separation (fields 11 and 12 empty).
        func sentence(_ body: String) -> String {
            let sum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
            return "$" + body + "*" + String(format: "%02X", sum) + "\r\n"
        }
        let log =
            sentence("GPRMC,123519.00,A,4807.038,N,01131.000,E,0.0,0.0,230394,,,A")
            + sentence("GPGGA,123519.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,,M,,")
            + sentence("GPRMC,123520.00,A,4807.038,N,01131.000,E,0.0,0.0,230394,,,A")
            + sentence("GPGGA,123520.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,47.1,M,,")
        var decoder = GNSSDecoder()
        var reports: [GNSSFixReport] = []
        Array(log.utf8).withUnsafeBytes { raw in
            decoder.feed(raw) { event in if case .report(let r, _) = event, r.mode == .threeDimensional { reports.append(r) } }
        }
        decoder.finish()
        let modelled = reports.first { $0.time?.iso8601.hasPrefix("1994-03-23T12:35:19") == true }
        let sent = reports.last { $0.time?.iso8601.hasPrefix("1994-03-23T12:35:20") == true }
        let expectedN = Geoid.separationM(latitudeDeg: 48 + 7.038 / 60, longitudeDeg: 11 + 31.0 / 60)!
        #expect(modelled?.geoidSeparationFromModel == true)
        #expect(modelled?.geoidSeparationM == expectedN)
        #expect(modelled?.altitudeMSLM == 545.4)
        #expect(modelled?.altitudeHAEM == 545.4 + expectedN)
        // The receiver's own separation wins, and is not marked as the model's.
        #expect(sent?.geoidSeparationFromModel == false)
        #expect(sent?.geoidSeparationM == 47.1)
        #expect(sent?.altitudeHAEM == 545.4 + 47.1)
    }
}
