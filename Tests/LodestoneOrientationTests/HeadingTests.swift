import Foundation
import LodestoneCore
@testable import LodestoneOrientation
import LodestoneGeomagnetism
import Testing

@Suite struct HeadingTests {
    func heading(_ deg: Double, accuracy: Double = 3, calibration: Bool = false) -> Heading {
        Heading(
            timeS: 0, magneticHeadingDeg: deg, trueHeadingDeg: nil, declinationDeg: nil, headingAccuracyDeg: accuracy,
            magneticFieldMicroTesla: nil, calibrationNeeded: calibration)
    }

    @Test func headingFilterDeliversOnlyChangesOfAtLeastTheMinimum() {
        var filter = HeadingFilter(minimumChangeDeg: 5)
        let offered = [
            heading(10), heading(14), heading(15.5),
            // Across north: 15.5° → 358° is a change of 17.5°; 358° → 2.5° of 4.5°; → 3.1° of 5.1°.
            heading(358), heading(2.5), heading(3.1),
            // A change of validity or of the calibration signal is always delivered.
            heading(3.2, accuracy: -1), heading(3.3, accuracy: -1, calibration: true)
        ]
        let delivered = offered.map { filter.offer($0) }
        #expect(delivered == [true, false, true, true, false, true, true, true])
        #expect(filter.lastDelivered?.magneticHeadingDeg == 3.3)
    }

    @Test func noHeadingFilterDeliversEverything() {
        var filter = HeadingFilter()
        let delivered = [heading(1), heading(1)].map { filter.offer($0) }
        #expect(delivered == [true, true])
    }

    @Test func trueHeadingIsMagneticPlusDeclinationWrapped() throws {
        // A board facing magnetic north-west (315°) where the declination is +50° (east) faces 5° true.
        var motion = SyntheticMotion(segments: [.init(rateRadS: .zero, durationS: 2)])
        motion.initialOrientation = Quaternion(axis: Vector3(0, 0, 1), angleRad: Angle.radians(fromDegrees: 45))
        var filter = OrientationFilter(parameters: SyntheticMotion.parameters)
        run(&filter, motion.samples())
        let withDeclination = filter.heading(timeS: 2, declinationDeg: 50)
        let h = try #require(withDeclination)
        #expect(abs(Angle.wrap180(h.magneticHeadingDeg - 315)) < 1)
        #expect(abs(Angle.wrap180(try #require(h.trueHeadingDeg) - 5)) < 1)
        #expect(h.isValid)
        let withoutDeclination = filter.heading(timeS: 2, declinationDeg: nil)
        #expect(try #require(withoutDeclination).trueHeadingDeg == nil)
    }

    @Test func declinationComesFromTheWorldMagneticModel() throws {
        // Known answer: the first row of NOAA's WMM2025 test table (../shared/datasets/wmm/WMM2025_TEST_VALUES.txt).
        let text = try String(contentsOfFile: WMMFiles.directory + "/WMM2025_TEST_VALUES.txt", encoding: .utf8)
        let row = try #require(
            text.split(separator: "\n").first { !$0.hasPrefix("#") && !$0.trimmingCharacters(in: .whitespaces).isEmpty })
        let v = row.split(separator: " ").compactMap { Double($0) }
        var source = MagneticDeclination()
        let value = source.declinationDeg(latitudeDeg: v[2], longitudeDeg: v[3], heightM: v[1] * 1000, decimalYear: v[0])
        let d = try #require(value)
        // Fields: date, height km, latitude, longitude, X, Y, Z, H, F, I, D (deg), …
        #expect(abs(d - v[10]) < 0.006, "D \(d) vs table \(v[10])")
    }

    @Test func declinationIsCachedForSmallMovesAndRecomputedForLargeOnes() {
        var source = MagneticDeclination()
        let berlin = source.declinationDeg(latitudeDeg: 52.5, longitudeDeg: 13.4, heightM: 50, decimalYear: 2026.0)!
        let nearby = source.declinationDeg(latitudeDeg: 52.5001, longitudeDeg: 13.4001, heightM: 50, decimalYear: 2026.0)!
        #expect(nearby == berlin)
        let madrid = source.declinationDeg(latitudeDeg: 40.4, longitudeDeg: -3.7, heightM: 650, decimalYear: 2026.0)!
        #expect(abs(madrid - berlin) > 1)
    }

    @Test func declinationNeedsAPositionAndADateUnlessOverridden() {
        var source = MagneticDeclination()
        let noPosition = source.declinationDeg(latitudeDeg: nil, longitudeDeg: nil, heightM: nil, decimalYear: 2026)
        let noDate = source.declinationDeg(latitudeDeg: 50, longitudeDeg: 10, heightM: 0, decimalYear: nil)
        let outsideModel = source.declinationDeg(latitudeDeg: 50, longitudeDeg: 10, heightM: 0, decimalYear: 2040)
        #expect(noPosition == nil && noDate == nil && outsideModel == nil)
        source.overrideDeg = 0
        let overridden = source.declinationDeg(latitudeDeg: nil, longitudeDeg: nil, heightM: nil, decimalYear: nil)
        #expect(overridden == 0)
    }

    /// Unix time → decimal year; NOAA convention (`DecimalYear`): year + (day of year − 1 + fraction of day) / days.
    static let decimalYearCases: [(unixTimeS: Double, expected: Double)] = [
        (0, 1970),
        (1_795_305_600, 2026 + 325 / 365.0), // 2026-11-22T00:00:00Z (DecimalYear's example)
        (1_709_208_000, 2024 + 59.5 / 366.0), // 2024-02-29T12:00:00Z, leap year
        (1_735_689_599, 2024 + (365 + 86_399 / 86_400.0) / 366.0) // 2024-12-31T23:59:59Z
    ]

    @Test func unixTimeToDecimalYear() {
        for c in Self.decimalYearCases {
            let year = MagneticDeclination.decimalYear(unixTimeS: c.unixTimeS)
            #expect(year != nil && abs(year! - c.expected) < 1e-9, "\(String(describing: year)) vs \(c.expected)")
        }
    }

    @Test func badTimesHaveNoDecimalYear() {
        #expect(MagneticDeclination.decimalYear(unixTimeS: .nan) == nil)
        #expect(MagneticDeclination.decimalYear(unixTimeS: -1) == nil)
        #expect(MagneticDeclination.decimalYear(year: 2025, month: 2, day: 29) == nil)
    }
}

/// Where the shared WMM files are (CI has ../shared beside the repository too).
enum WMMFiles {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../shared/datasets/wmm").standardized.path
}
