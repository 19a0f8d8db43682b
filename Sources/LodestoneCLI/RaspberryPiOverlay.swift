import LodestoneCore
import LodestoneEngine

/// The Raspberry Pi `config.txt` line that has the kernel drive a chip `lodestone scan` found, through its IIO driver
/// (then read with `chip: "iio"`): the firmware's `i2c-sensor` overlay with the chip's parameter, its `addr` and,
/// off the default bus, the bus parameter.
///
/// The parameter names are the overlay's own (Raspberry Pi's kernel tree, `arch/arm/boot/dts/overlays/`:
/// `i2c-sensor-common.dtsi`'s `__overrides__` — `bme280`, `bmp280`, `bmp380`, `mpu6050`, `mpu9250` and `addr`, which
/// sets each of their `reg`; `i2c-buses.dtsi` — `i2c0`, `i2c_csi_dsi`, `i2c3` … `i2c6` move it off `i2c_arm`, which
/// is `/dev/i2c-1`; the same names as the firmware's `boot/overlays/README`, "Name: i2c-sensor"). Only chips that
/// overlay supports and Lodestone drives have a line; the others (LIS3MDL, LSM6DS*, LSM9DS1, LPS22HB, LPS25H, MS5611,
/// HMC5883L, QMC5883L, ICM-20948, ADXL345, …) get none: no overlay there binds them.
public enum RaspberryPiOverlay {
    /// Lodestone chip name → the `i2c-sensor` parameter that selects the same part.
    public static let i2cSensorParameters: [String: String] = [
        "bme280": "bme280",
        "bmp280": "bmp280",
        // the overlay's bmp380 node ("bosch,bmp380") is the bmp280 driver's BMP38x entry: the BMP388 (chip id 0x50)
        "bmp388": "bmp380",
        "mpu6050": "mpu6050",
        "mpu9250": "mpu9250"
    ]

    /// The `i2c-sensor` bus parameter for an I2C device path; `""` for `i2c_arm` (`/dev/i2c-1`, the default);
    /// `nil` for a bus the overlay cannot select.
    public static func busParameter(i2cPath: String) -> String? {
        switch i2cPath {
        case "/dev/i2c-1": ""
        case "/dev/i2c-0": ",i2c0"
        case "/dev/i2c-3", "/dev/i2c-4", "/dev/i2c-5", "/dev/i2c-6": ",i2c" + String(i2cPath.dropFirst("/dev/i2c-".count))
        default: nil
        }
    }

    /// The `config.txt` line for `chip` at `address` on `i2cPath`, e.g. `dtoverlay=i2c-sensor,bmp280,addr=0x76`, or
    /// `nil` when no overlay binds the chip or the bus cannot be selected.
    public static func line(chip: String, address: UInt8, i2cPath: String) -> String? {
        guard let parameter = i2cSensorParameters[chip], let bus = busParameter(i2cPath: i2cPath) else { return nil }
        // lower-case, as the overlay README writes addresses (dtoverlay reads either)
        let digits = String(address, radix: 16)
        return "dtoverlay=i2c-sensor,\(parameter),addr=0x\(digits.count < 2 ? "0" + digits : digits)\(bus)"
    }

    /// The line for one scan finding (an I2C chip that is not read through another chip), else `nil`.
    public static func line(for finding: ScanJob.Finding) -> String? {
        guard !finding.isInsideHost, let chip = finding.chip, let address = finding.address,
            case .i2c(let path) = finding.bus
        else { return nil }
        return line(chip: chip, address: address, i2cPath: path)
    }

    /// What `lodestone scan` prints after its findings: for each chip with a line, the line and what follows it.
    public static func report(_ findings: [ScanJob.Finding]) -> [String] {
        var lines: [String] = []
        for f in findings {
            guard let overlay = line(for: f), let chip = f.chip, let address = f.address else { continue }
            var note = "\(chip) at \(hex(address)): \(overlay)"
            if chip == "mpu6050" || chip == "mpu9250" { note += "  (its INT pin on GPIO 4, or add int_pin=N)" }
            lines.append(note)
        }
        guard !lines.isEmpty else { return [] }
        return [
            "Raspberry Pi: to have the kernel's IIO drivers read these chips, add to /boot/firmware/config.txt and reboot "
                + "(then use \"chip\": \"iio\" in the board file, or keep reading them here over I2C without the line):"
        ] + lines.map { "  " + $0 }
    }
}
