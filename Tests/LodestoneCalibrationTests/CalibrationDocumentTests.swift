import Foundation
import LodestoneCore
import Testing
@testable import LodestoneCalibration

@Suite struct CalibrationDocumentTests {
    static let magnetometer = MagnetometerCalibration(
        date: "2026-07-02T10:00:00Z", temperatureC: 21.3, grade: .good, hardIronMicroTesla: Vector3(12, -7.5, 4),
        softIronCorrection: unitDeterminant(Matrix3(rowMajor: [1.03, 0.02, 0, 0.02, 0.97, 0.01, 0, 0.01, 1])!.inverted!),
        fieldStrengthMicroTesla: 48.3, expectedFieldMicroTesla: 48.4, latitudeDeg: 47.3769, longitudeDeg: 8.5417,
        residualMicroTesla: 0.33, coveragePercent: 90.6, samples: 1845, outliers: 0, motionS: 34.8,
        mountingCheck: "consistent with the accelerometer")

    static var document: CalibrationDocument {
        var mag = SensorCalibration(
            id: "mag", chip: "lis3mdl", identity: "lis3mdl @ sim 0x1C",
            mount: Matrix3(rowMajor: [0, -1, 0, 1, 0, 0, 0, 0, 1])!)
        mag.magnetometer = magnetometer
        var imu = SensorCalibration(id: "imu", chip: "mpu9250")
        imu.accelerometer = AccelerometerCalibration(
            date: "2026-07-02T10:01:00Z", temperatureC: nil, grade: .acceptable,
            offsetMps2: Vector3(0.4, 0.4, 0.3), correction: .identity,
            gravityMps2: 9.8069, residualMps2: 0.06, positions: 6)
        imu.gyroscope = GyroscopeCalibration(
            date: "2026-07-02T10:02:00Z", temperatureC: 22, biasRadS: Vector3(0.01, 0, -0.006),
            noiseRMSRadS: Vector3(repeating: 0.0013), durationS: 300,
            noiseDensityRadSPerRootHz: Vector3(repeating: 1.2e-4), biasInstabilityRadS: Vector3(repeating: 1e-4),
            rateRandomWalkRadSPerRootS: Vector3(repeating: 2e-5))
        var baro = SensorCalibration(id: "baro", chip: "bmp280")
        baro.barometer = BarometerCalibration(
            date: "2026-07-02T10:03:00Z", temperatureC: 20, offsetPa: 31.5, altitudeMSLM: 408,
            qnhPa: 101_500, expectedPressurePa: 96_600, measuredPressurePa: 96_631.5,
            noisePa: 1.3, durationS: 10)
        return CalibrationDocument(board: "Simulated board", sensors: [imu, mag, baro])
    }

    func encode(_ d: CalibrationDocument) throws -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try e.encode(d), as: UTF8.self)
    }

    func decode(_ text: String) throws -> CalibrationDocument {
        try JSONDecoder().decode(CalibrationDocument.self, from: Data(text.utf8))
    }

    /// The error a broken document gives, as `key: problem`.
    func problem(_ text: String) -> String? {
        do { _ = try decode(text); return nil } catch let e as CalibrationDocumentError { return e.description } catch {
            return "not a CalibrationDocumentError: \(error)"
        }
    }

    @Test func roundTripsEveryKindExactly() throws {
        let d = Self.document
        let text = try encode(d)
        #expect(text.contains("\"format\":\"lodestone-calibration/1\""))
        #expect(text.contains("\"frame\":\"board\""))
        #expect(text.contains("\"softIronCorrection\":["))
        #expect(try decode(text) == d)
    }

    /// Each kind of damage names its key; none is silently accepted.
    @Test(arguments: [
        (
            #""format":"lodestone-calibration/1""#, #""format":"lodestone-calibration/2""#,
            "format: \"lodestone-calibration/2\" is not supported"
        ),
        (#""frame":"board""#, #""frame":"chip""#, "frame: \"chip\" is not supported"),
        (#""grade":"good""#, #""grade":"great""#, "sensors[1].magnetometer.grade: \"great\" is not a grade"),
        (
            #""hardIronMicroTesla":[12,-7.5,4]"#, #""hardIronMicroTesla":[12,-7.5]"#,
            "sensors[1].magnetometer.hardIronMicroTesla: must be 3 numbers"
        ),
        (
            #""hardIronMicroTesla":[12,-7.5,4]"#, #""hardIronMicroTesla":"12,-7.5,4""#,
            "sensors[1].magnetometer.hardIronMicroTesla: must be 3 numbers"
        ),
        (
            #""residualMicroTesla":0.33"#, #""residualMicroTesla":0.33,"colour":"red""#,
            "sensors[1].magnetometer.colour: unknown key"
        ),
        (#""residualMicroTesla":0.33,"#, "", "sensors[1].magnetometer.residualMicroTesla: missing"),
        (#""id":"mag""#, #""id":"imu""#, "sensors: sensors[1].id \"imu\" appears twice"),
        (
            #""date":"2026-07-02T10:00:00Z""#, #""date":"yesterday""#,
            "sensors[1].magnetometer.date: \"yesterday\" is not a UTC time"
        ),
        (#""positions":6"#, #""positions":5"#, "sensors[0].accelerometer.positions: 5 is out of range"),
        (#""offsetPa":31.5"#, #""offsetPa":null"#, "sensors[2].barometer.offsetPa: is null")
    ])
    func brokenDocumentsNameTheKey(_ find: String, _ replace: String, _ expected: String) throws {
        let text = try encode(Self.document)
        #expect(text.contains(find), "fixture lacks \(find)")
        let broken = text.replacingOccurrences(of: find, with: replace)
        let p = problem(broken)
        #expect(p?.hasPrefix(expected) == true, "got \(p ?? "no error")")
        #expect(p?.contains("\n") == false)
    }

    @Test func aSoftIronCorrectionMustBeSymmetricPositiveDefiniteWithUnitDeterminant() throws {
        let text = try encode(Self.document)
        let w = Self.magnetometer.softIronCorrection.rowMajor.map { "\($0)" }.joined(separator: ",")
        #expect(text.contains(w))
        #expect(problem(text.replacingOccurrences(of: w, with: "1,0.1,0,0,1,0,0,0,1"))?.contains("must be symmetric") == true)
        #expect(problem(text.replacingOccurrences(of: w, with: "2,0,0,0,2,0,0,0,2"))?.contains("determinant 1") == true)
        #expect(problem(text.replacingOccurrences(of: w, with: "-1,0,0,0,-1,0,0,0,1"))?.contains("positive definite") == true)
    }

    @Test func mergeReplacesOneKindAndKeepsTheOthersInBoardOrder() {
        var d = Self.document
        var newer = SensorCalibration(id: "imu", chip: "mpu9250")
        var m = Self.magnetometer
        m.residualMicroTesla = 0.5
        newer.magnetometer = m
        d.merge(newer, order: ["imu", "mag", "baro"])
        #expect(d["imu"]?.magnetometer?.residualMicroTesla == 0.5)
        #expect(d["imu"]?.accelerometer != nil)
        #expect(d["imu"]?.gyroscope != nil)
        // A sensor re-mounted since: its old calibrations are in other axes and are dropped.
        var moved = SensorCalibration(id: "imu", chip: "mpu9250", mount: Matrix3(rowMajor: [0, 1, 0, -1, 0, 0, 0, 0, 1])!)
        moved.magnetometer = m
        d.merge(moved, order: ["imu", "mag", "baro"])
        #expect(d["imu"]?.accelerometer == nil)
        var new = SensorCalibration(id: "extra", chip: "lis3mdl")
        new.magnetometer = m
        d.merge(new, order: ["imu", "extra", "mag", "baro"])
        #expect(d.sensors.map(\.id) == ["imu", "extra", "mag", "baro"])
    }

    @Test func correctionsApplyPerKind() {
        let c = SensorCorrection(Self.document["imu"]!)
        var r = SensorReading(
            timeS: 0, pressurePa: 1000, accelerationMps2: Vector3(0.4, 0.4, 10.1), angularVelocityRadS: Vector3(0.01, 0, -0.006),
            magneticFieldMicroTesla: Vector3(1, 2, 3))
        c.apply(to: &r)
        #expect(
            maximumDifference(
                Matrix3(rows: r.accelerationMps2!, r.angularVelocityRadS!, .zero),
                Matrix3(rows: Vector3(0, 0, 9.8), .zero, .zero)) < 1e-12)
        #expect(r.magneticFieldMicroTesla == Vector3(1, 2, 3)) // imu has no magnetometer calibration here
        #expect(r.pressurePa == 1000)
        let mag = SensorCorrection(Self.document["mag"]!)
        mag.apply(to: &r)
        #expect(
            (r.magneticFieldMicroTesla! - Self.magnetometer.softIronCorrection * (Vector3(1, 2, 3) - Vector3(12, -7.5, 4))).length
                < 1e-12)
    }
}
