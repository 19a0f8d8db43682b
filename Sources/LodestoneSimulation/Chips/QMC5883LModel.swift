import LodestoneCore
import LodestoneDrivers

/// A simulated QST QMC5883L built from `QMC5883LDatasheet`: chip ID 0xFF, soft reset, standby / continuous modes,
/// outputs quantised with the configured range and saturated at ±32767 with `OVL`, `DRDY` set by a measurement and
/// cleared by reading a data register, `DOR` when a measurement was never read, the relative temperature output
/// (100 LSB/°C), and `ROL_PNT` (the pointer rolls over 0x00…0x06 when a read starts there).
///
/// Set `magneticFieldMicroTesla` (chip axes) and `temperatureC`: a continuous-mode chip measures once per change.
public final class QMC5883LModel: SimulatedChip {
    public typealias Register = QMC5883LDatasheet.Register
    private typealias F = QMC5883LDatasheet.Field

    /// The register file (for tests to inspect).
    public private(set) var registers = RegisterFile(autoIncrement: .always)
    /// The chip ID value.
    public let chipID: UInt8
    /// Magnetic flux density in the chip's axes, µT.
    public var magneticFieldMicroTesla = Vector3.zero { didSet { measureIfRunning() } }
    /// Die temperature, °C.
    public var temperatureC = 25.0 { didSet { measureIfRunning() } }
    /// Number of soft resets seen.
    public private(set) var softResetCount = 0

    /// A QMC5883L in its power-on state (standby).
    public init(chipID: UInt8 = QMC5883LDatasheet.chipIDValue) {
        self.chipID = chipID
        powerOnReset()
    }

    /// The current range.
    public var range: QMC5883LDatasheet.Range {
        QMC5883LDatasheet.Range(rawValue: F.rng.extract(from: registers[Register.control1.rawValue])) ?? .gauss8
    }

    public func registerAddress(start: UInt8, offset: Int) -> UInt8 {
        let rolls = F.rolPnt.extract(from: registers[Register.control2.rawValue]) == 1 && start <= Register.status.rawValue
        return rolls ? UInt8((Int(start) + offset) % 7) : UInt8(truncatingIfNeeded: Int(start) + offset)
    }

    public func read(register: UInt8, into buffer: UnsafeMutableRawBufferPointer) {
        for i in 0..<buffer.count {
            let r = registerAddress(start: register, offset: i)
            buffer[i] = registers[r]
            if r <= 0x05 { // reading any data register clears DRDY and DOR
                registers[Register.status.rawValue] &= ~(F.drdy.mask | F.dor.mask)
            }
        }
    }

    public func write(register: UInt8, bytes: UnsafeRawBufferPointer) {
        for (i, value) in bytes.enumerated() {
            let r = registerAddress(start: register, offset: i)
            switch Register(rawValue: r) {
            case .control1:
                registers[r] = value
                measureIfRunning()
            case .control2:
                if F.softRst.extract(from: value) == 1 {
                    softResetCount += 1
                    powerOnReset()
                    return
                }
                registers[r] = value
            case .setResetPeriod:
                registers[r] = value
            default:
                break // read-only or reserved
            }
        }
    }

    private func measureIfRunning() {
        if F.mode.extract(from: registers[Register.control1.rawValue]) == QMC5883LDatasheet.Mode.continuous.rawValue { measure() }
    }

    private func measure() {
        let lsbPerMicroTesla = range.lsbPerGauss / PhysicalConstants.microTeslaPerGauss
        var overflow = false
        func raw(_ v: Double) -> Int16 {
            let r = v * lsbPerMicroTesla
            if !(r > -32768.5 && r < 32767.5) { overflow = true }
            return saturatedRaw(r)
        }
        let m = magneticFieldMicroTesla
        registers.storeLE16(raw(m.x), at: 0x00)
        registers.storeLE16(raw(m.y), at: 0x02)
        registers.storeLE16(raw(m.z), at: 0x04)
        registers.storeLE16(saturatedRaw(temperatureC * 100), at: Register.tout.rawValue)
        var status = registers[Register.status.rawValue]
        if F.drdy.extract(from: status) == 1 { status |= F.dor.mask }
        status = F.ovl.inserting(overflow ? 1 : 0, into: status) | F.drdy.mask
        registers[Register.status.rawValue] = status
    }

    private func powerOnReset() {
        registers = RegisterFile(autoIncrement: .always)
        registers[Register.chipID.rawValue] = chipID
        registers[0x0C] = 0x01 // reserved
    }
}
