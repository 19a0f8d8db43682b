/// Every register chip Lodestone knows, by the name board files use (`bmp280`, `lsm9ds1-mag`). The one list of chip
/// identities: the driver catalog (`ChipCatalog.makeDriver`), the SPI framings, the simulator's models and the energy
/// model's tables each switch over it exhaustively, so a new case is a compile error at every place that must learn
/// the chip (`LodestoneDrivers.docc/AddingADriver.md`), never a silent `default`.
public enum ChipID: String, CaseIterable, Sendable, Hashable, Codable {
    case bmp280, lis3mdl, mpu6050, mpu6500, mpu9250, ak09916, ak8963, icm20948, lsm6ds3, lsm6dsl, lsm6dsox, lsm9ds1
    case lsm9ds1Magnetometer = "lsm9ds1-mag"
    case adxl345, bme280, bmp388, bmp390, ms5611, lps22hb, lps25h, hmc5883l, qmc5883l, mmc5983ma

    /// The chip a board-file name means (case-insensitive); `nil` for a name that is not a register chip. An exact
    /// (lower-case) name takes no allocation, as the scheduler's re-planning requires.
    public init?(name: String) {
        if let id = ChipID(rawValue: name) { self = id; return }
        let lower = name.lowercased()
        guard lower != name, let id = ChipID(rawValue: lower) else { return nil }
        self = id
    }

    /// The board-file name.
    public var name: String { rawValue }
}
