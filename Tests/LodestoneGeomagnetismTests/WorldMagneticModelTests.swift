import LodestoneCore
import LodestoneGeomagnetism
import Testing

/// Known-answer tests against NOAA's published WMM2025 test values (see ../shared/datasets/wmm/README.md for
/// provenance and the tolerances used here).
@Suite struct WorldMagneticModelTests {
    let model = WorldMagneticModel.wmm2025

    /// Angle difference modulo 360°, in (−180, 180].
    func angleDifference(_ a: Double, _ b: Double) -> Double { Angle.wrap180(a - b) }

    @Test func embeddedCoefficientsEqualWMMCOFByteForByte() throws {
        let file = try WMMDataset.bytes("WMM.COF")
        #expect(file.count == 4557)
        #expect(Array(WorldMagneticModel.wmm2025CoefficientFileText.utf8) == file)
    }

    @Test func headerAndValidityWindowOfWMM2025() throws {
        #expect(model.modelName == "WMM-2025")
        #expect(model.epochDecimalYear == 2025.0)
        // 2024-11-13 is day 318 of a leap year: 2024 + 317/366 (NOAA convention, day_of_year − 1).
        #expect(abs(model.validFromDecimalYear - (2024 + 317.0 / 366)) < 1e-12)
        #expect(model.validUntilDecimalYear == 2030.0)
    }

    @Test func reproducesTheTwelvePointTestValueTable() throws {
        let rows = try WMMDataset.rows("WMM2025_TEST_VALUES.txt")
        #expect(rows.count == 12)
        for row in rows {
            #expect(row.count == 19)
            let v = row.map { Double($0) ?? .nan }
            let e = try model.elements(latitudeDeg: v[2], longitudeDeg: v[3], heightKm: v[1], decimalYear: v[0])
            let where_ = "t=\(v[0]) h=\(v[1]) lat=\(v[2]) lon=\(v[3])"
            let nT = 0.06, deg = 0.006
            #expect(abs(e.northNT - v[4]) <= nT, "X \(where_)")
            #expect(abs(e.eastNT - v[5]) <= nT, "Y \(where_)")
            #expect(abs(e.downNT - v[6]) <= nT, "Z \(where_)")
            #expect(abs(e.horizontalNT - v[7]) <= nT, "H \(where_)")
            #expect(abs(e.totalNT - v[8]) <= nT, "F \(where_)")
            #expect(abs(angleDifference(e.inclinationDeg, v[9])) <= deg, "I \(where_)")
            #expect(abs(angleDifference(e.declinationDeg, v[10])) <= deg, "D \(where_)")
            if row[11] == "NaN" {
                #expect(e.gridVariationDeg == nil, "GV \(where_)")
            } else {
                let gv = try #require(e.gridVariationDeg, "GV \(where_)")
                #expect(abs(angleDifference(gv, v[11])) <= deg, "GV \(where_)")
            }
            #expect(abs(e.northRateNTPerYear - v[12]) <= nT, "Xdot \(where_)")
            #expect(abs(e.eastRateNTPerYear - v[13]) <= nT, "Ydot \(where_)")
            #expect(abs(e.downRateNTPerYear - v[14]) <= nT, "Zdot \(where_)")
            #expect(abs(e.horizontalRateNTPerYear - v[15]) <= nT, "Hdot \(where_)")
            #expect(abs(e.totalRateNTPerYear - v[16]) <= nT, "Fdot \(where_)")
            #expect(abs(e.inclinationRateDegPerYear - v[17]) <= deg, "Idot \(where_)")
            #expect(abs(e.declinationRateDegPerYear - v[18]) <= deg, "Ddot \(where_)")
        }
    }

    @Test func reproducesTheHundredPointHighPrecisionFile() throws {
        let rows = try WMMDataset.rows("WMM2025_TEST_VALUES_100_HIGHPREC.txt")
        #expect(rows.count == 100)
        var worstNT = 0.0, worstRateNT = 0.0
        for row in rows {
            #expect(row.count == 18)
            let v = row.map { Double($0) ?? .nan }
            let e = try model.elements(latitudeDeg: v[2], longitudeDeg: v[3], heightKm: v[1], decimalYear: v[0])
            let where_ = "t=\(v[0]) h=\(v[1]) lat=\(v[2]) lon=\(v[3])"
            #expect(abs(angleDifference(e.declinationDeg, v[4])) <= 0.006, "D \(where_)")
            #expect(abs(angleDifference(e.inclinationDeg, v[5])) <= 0.006, "I \(where_)")
            let fields = [(e.horizontalNT, v[6]), (e.northNT, v[7]), (e.eastNT, v[8]), (e.downNT, v[9]), (e.totalNT, v[10])]
            for (i, (computed, published)) in fields.enumerated() {
                #expect(abs(computed - published) <= 0.01, "field \(i) \(where_)")
                worstNT = max(worstNT, abs(computed - published))
            }
            #expect(abs(e.declinationRateDegPerYear - v[11]) <= 1e-4, "Ddot \(where_)")
            #expect(abs(e.inclinationRateDegPerYear - v[12]) <= 1e-4, "Idot \(where_)")
            let rates = [
                (e.horizontalRateNTPerYear, v[13]), (e.northRateNTPerYear, v[14]), (e.eastRateNTPerYear, v[15]),
                (e.downRateNTPerYear, v[16]), (e.totalRateNTPerYear, v[17])
            ]
            for (i, (computed, published)) in rates.enumerated() {
                #expect(abs(computed - published) <= 0.001, "rate \(i) \(where_)")
                worstRateNT = max(worstRateNT, abs(computed - published))
            }
        }
        // NOAA's own Python package agrees to 0.0008 nT and 2e-6 nT/yr (README); so should we.
        #expect(worstNT < 0.001)
        #expect(worstRateNT < 1e-5)
    }

    @Test func geographicPolesAreFiniteAndContinuous() throws {
        for (pole, longitude) in [(90.0, 0.0), (90.0, 123.0), (-90.0, -45.0)] {
            let atPole = try model.elements(latitudeDeg: pole, longitudeDeg: longitude, heightKm: 0, decimalYear: 2027)
            let near = try model.elements(
                latitudeDeg: pole > 0 ? pole - 1e-7 : pole + 1e-7,
                longitudeDeg: longitude, heightKm: 0, decimalYear: 2027)
            #expect(abs(atPole.northNT - near.northNT) < 0.05)
            #expect(abs(atPole.eastNT - near.eastNT) < 0.05)
            #expect(abs(atPole.downNT - near.downNT) < 0.05)
            #expect(abs(atPole.eastRateNTPerYear - near.eastRateNTPerYear) < 0.01)
            #expect(atPole.totalNT.isFinite && atPole.declinationDeg.isFinite && atPole.declinationRateDegPerYear.isFinite)
            #expect(atPole.gridVariationDeg != nil)
        }
    }

    @Test func fieldENUIsEastNorthUpInMicrotesla() throws {
        let e = try model.elements(latitudeDeg: 47.4, longitudeDeg: 8.5, heightKm: 0.45, decimalYear: 2026.5)
        #expect(e.fieldENUMicroTesla == Vector3(e.eastNT / 1000, e.northNT / 1000, -e.downNT / 1000))
        #expect(e.fieldENUMicroTesla.z < 0) // northern hemisphere: the field points down
        #expect(abs(e.fieldENUMicroTesla.length - e.totalNT / 1000) < 1e-9)
    }

    @Test(arguments: [2024.86, 2020.0, 2030.0, 2031.5, Double.nan, -Double.infinity])
    func refusesDatesOutsideTheValidityWindow(decimalYear: Double) {
        #expect(throws: WMMError.self) {
            try model.elements(latitudeDeg: 10, longitudeDeg: 20, heightKm: 0, decimalYear: decimalYear)
        }
        do {
            _ = try model.elements(latitudeDeg: 10, longitudeDeg: 20, heightKm: 0, decimalYear: decimalYear)
        } catch {
            guard case .dateOutsideValidity(_, let from, let until) = error else {
                Issue.record("wrong error \(error)"); return
            }
            #expect(from == model.validFromDecimalYear && until == 2030.0)
        }
    }

    @Test func acceptsTheFirstAndLastValidDates() throws {
        let first = try DecimalYear.from(year: 2024, month: 11, day: 13)
        _ = try model.elements(latitudeDeg: 0, longitudeDeg: 0, heightKm: 0, decimalYear: first)
        _ = try model.elements(latitudeDeg: 0, longitudeDeg: 0, heightKm: 0, decimalYear: 2029.999999)
        let dayBefore = try DecimalYear.from(year: 2024, month: 11, day: 12, hour: 23, minute: 59, second: 59)
        #expect(throws: WMMError.self) {
            try model.elements(latitudeDeg: 0, longitudeDeg: 0, heightKm: 0, decimalYear: dayBefore)
        }
    }

    @Test func refusesImpossiblePlaces() {
        #expect(throws: WMMError.invalidLatitude(degrees: 90.5)) {
            try model.elements(latitudeDeg: 90.5, longitudeDeg: 0, heightKm: 0, decimalYear: 2026)
        }
        #expect(throws: WMMError.invalidLongitude(degrees: .infinity)) {
            try model.elements(latitudeDeg: 0, longitudeDeg: .infinity, heightKm: 0, decimalYear: 2026)
        }
        #expect(throws: WMMError.invalidHeight(kilometres: 900)) {
            try model.elements(latitudeDeg: 0, longitudeDeg: 0, heightKm: 900, decimalYear: 2026)
        }
    }

    @Test func longitudeIsPeriodic() throws {
        let a = try model.elements(latitudeDeg: -80, longitudeDeg: 240, heightKm: 0, decimalYear: 2025)
        let b = try model.elements(latitudeDeg: -80, longitudeDeg: -120, heightKm: 0, decimalYear: 2025)
        #expect(abs(a.northNT - b.northNT) < 1e-6 && abs(a.eastNT - b.eastNT) < 1e-6 && abs(a.downNT - b.downNT) < 1e-6)
    }
}

@Suite struct DecimalYearTests {
    @Test func followsNOAAConvention() throws {
        // README example: 2026-11-22T00:00Z = 2026 + 325/365.
        #expect(abs(try DecimalYear.from(year: 2026, month: 11, day: 22) - (2026 + 325.0 / 365)) < 1e-12)
        #expect(try DecimalYear.from(year: 2025, month: 1, day: 1) == 2025.0)
        #expect(abs(try DecimalYear.from(year: 2024, month: 12, day: 31, hour: 12) - (2024 + 365.5 / 366)) < 1e-12)
        #expect(
            abs(
                try DecimalYear.from(year: 2027, month: 7, day: 2, hour: 6, minute: 30, second: 15)
                    - (2027 + (182 + (6 * 3600 + 30 * 60 + 15) / 86400.0) / 365)) < 1e-12)
    }

    @Test(arguments: [(2025, 2, 29), (2025, 13, 1), (2025, 0, 1), (2025, 4, 31), (0, 1, 1)])
    func refusesDatesThatDoNotExist(date: (Int, Int, Int)) {
        #expect(throws: WMMError.invalidDate(year: date.0, month: date.1, day: date.2, hour: 0, minute: 0, second: 0)) {
            try DecimalYear.from(year: date.0, month: date.1, day: date.2)
        }
    }

    @Test func leapYearsAreGregorian() {
        #expect(DecimalYear.isLeapYear(2024) && DecimalYear.isLeapYear(2000))
        #expect(!DecimalYear.isLeapYear(2100) && !DecimalYear.isLeapYear(2025))
    }
}
