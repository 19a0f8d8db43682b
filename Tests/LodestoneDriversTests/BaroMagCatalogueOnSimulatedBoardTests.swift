import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation
import Testing

/// The barometers and magnetometers of the driver catalogue on the simulated board: scenario truth → chip models →
/// the drivers made by `ChipCatalog` → SI values, through a mounted magnetometer, over ten minutes of a mixed day.
@Suite struct BaroMagCatalogueOnSimulatedBoardTests {
    static let turned = Matrix3(rowMajor: [0, 1, 0, -1, 0, 0, 0, 0, 1])! // chip rotated −90° about z

    /// Reads every chip of `placements` against the truth; returns the worst pressure error per barometer (Pa) and
    /// the worst field error per magnetometer (µT, vector length, board axes).
    static func worstErrors(_ placements: [SimulatedBoard.Placement], seconds: Double) throws -> [String: Double] {
        let board = try SimulatedBoard(scenario: Scenario.named("mixed-day")!, placements: placements, noise: .none, seed: 11)
        var drivers: [(SimulatedBoard.Placement, any SensorDriver)] = []
        for p in placements {
            var d = try ChipCatalog.makeDriver(chip: p.chip, bus: board.bus, address: p.address)
            _ = try d.probe()
            try d.configure(SensorConfiguration(rateHz: p.rateHz, oversampling: 16))
            drivers.append((p, d))
        }
        var worst: [String: Double] = [:]
        var previousPressurePa: Double?
        var t = 0.0
        while t < seconds {
            board.advance(toTimeS: t)
            let truth = board.truth
            for i in drivers.indices {
                let p = drivers[i].0
                let r = try drivers[i].1.read(timeS: t).mounted(by: p.mount)
                let error: Double
                if let pressure = r.pressurePa {
                    // The MS5611's reads are pipelined: each returns the conversion started by the previous read.
                    let truthPa = p.chip == "ms5611" ? (previousPressurePa ?? truth.pressurePa) : truth.pressurePa
                    error = abs(pressure - truthPa)
                } else {
                    error = (r.magneticFieldMicroTesla! - truth.magneticFieldBoardMicroTesla!).length
                }
                worst[p.id] = max(worst[p.id] ?? 0, error)
            }
            previousPressurePa = truth.pressurePa
            t += 0.37
        }
        return worst
    }

    @Test func everyChipReadsTheTruthWithinItsResolution() throws {
        let a = try Self.worstErrors(
            [
                .init(id: "bme280", chip: "bme280", address: 0x76, mount: .identity, rateHz: 10),
                .init(id: "ms5611", chip: "ms5611", address: 0x77, mount: .identity, rateHz: 10),
                .init(id: "lps22hb", chip: "lps22hb", address: 0x5D, mount: .identity, rateHz: 10),
                .init(id: "lps25h", chip: "lps25h", address: 0x5C, mount: .identity, rateHz: 7),
                .init(id: "hmc5883l", chip: "hmc5883l", address: 0x1E, mount: Self.turned, rateHz: 15),
                .init(id: "qmc5883l", chip: "qmc5883l", address: 0x0D, mount: Self.turned, rateHz: 10),
                .init(id: "mmc5983ma", chip: "mmc5983ma", address: 0x30, mount: Self.turned, rateHz: 10)
            ], seconds: 600)
        let b = try Self.worstErrors(
            [
                .init(id: "bmp388", chip: "bmp388", address: 0x76, mount: .identity, rateHz: 10),
                .init(id: "bmp390", chip: "bmp390", address: 0x77, mount: .identity, rateHz: 10)
            ], seconds: 600)
        // BME280 ×16: 20-bit pressure, ≈ 0.2 Pa; MS5611: D1 steps ≈ 0.02 Pa, integer Pa output; LPS: 1/4096 hPa;
        // BMP3 ×16: 20-bit, ≈ 0.15 Pa; HMC5883L ±1.3 gauss: 0.092 µT per axis; QMC5883L ±2 gauss: 0.0083 µT;
        // MMC5983MA: 0.0061 µT.
        #expect(a["bme280"]! < 0.5 && a["ms5611"]! < 1.0 && a["lps22hb"]! < 0.02 && a["lps25h"]! < 0.02, "\(a)")
        #expect(a["hmc5883l"]! < 0.09 && a["qmc5883l"]! < 0.01 && a["mmc5983ma"]! < 0.008, "\(a)")
        #expect(b["bmp388"]! < 0.5 && b["bmp390"]! < 0.5, "\(b)")
    }
}
