import LodestoneCore
import LodestoneDrivers

/// A simulated MEMSIC MMC5983MA built from `MMC5983MADatasheet`: product ID, software reset with
/// `OTP_Read_Done`, write-only internal control registers, one-shot (`TM_M`, `TM_T`) and continuous measurements,
/// `Meas_M_Done` cleared by reading the outputs, and the sensor physics behind SET/RESET: the bridge reads
/// `polarity · H + offset`, polarity +1 after a SET (and after the automatic SET of continuous mode with
/// `Auto_SR_en`), −1 after a RESET; 18-bit offset-binary outputs at 16384 counts/gauss, saturating at 0 and 262143.
///
/// Set `magneticFieldMicroTesla` (chip axes), `bridgeOffsetMicroTesla` and `temperatureC`: a continuous-mode chip
/// measures once per change.
public final class MMC5983MAModel: SimulatedChip {
    public typealias Register = MMC5983MADatasheet.Register
    private typealias F = MMC5983MADatasheet.Field

    /// The readable registers (for tests to inspect); the internal control registers are kept apart.
    public private(set) var registers = RegisterFile(autoIncrement: .always)
    /// The write-only internal control registers 0…3 as last written (self-clearing bits already cleared).
    public private(set) var internalControl: [UInt8] = [0, 0, 0, 0]
    /// The product ID value.
    public let productID: UInt8
    /// Magnetic flux density in the chip's axes, µT.
    public var magneticFieldMicroTesla = Vector3.zero { didSet { measureIfRunning() } }
    /// The bridge's own offset, µT (what SET/RESET cancels).
    public var bridgeOffsetMicroTesla = Vector3.zero { didSet { measureIfRunning() } }
    /// Die temperature, °C.
    public var temperatureC = 25.0
    /// +1 after a SET, −1 after a RESET.
    public private(set) var polarity = 1.0
    /// Number of SET and RESET pulses, and of software resets.
    public private(set) var setCount = 0
    public private(set) var resetCount = 0
    public private(set) var softResetCount = 0

    /// An MMC5983MA after power-on (OTP read, no continuous measurement, magnetized by a SET).
    public init(productID: UInt8 = MMC5983MADatasheet.productIDValue) {
        self.productID = productID
        powerOnReset()
    }

    /// Whether continuous measurement runs (`Cmm_en` with a `CM_Freq`).
    public var isContinuous: Bool {
        F.cmmEn.extract(from: internalControl[2]) == 1 && F.cmFreq.extract(from: internalControl[2]) != 0
    }

    public func read(register: UInt8, into buffer: UnsafeMutableRawBufferPointer) {
        for i in 0..<buffer.count {
            let r = UInt8(truncatingIfNeeded: Int(register) + i)
            buffer[i] = registers[r] // internal control registers read 0: they live in `internalControl`
            if r <= Register.xyzout2.rawValue {
                registers[Register.status.rawValue] &= ~F.measMDone.mask
            }
        }
    }

    public func write(register: UInt8, bytes: UnsafeRawBufferPointer) {
        for (i, value) in bytes.enumerated() {
            let r = UInt8(truncatingIfNeeded: Int(register) + i)
            switch Register(rawValue: r) {
            case .internalControl0:
                if F.set.extract(from: value) == 1 { polarity = 1; setCount += 1 }
                if F.reset.extract(from: value) == 1 { polarity = -1; resetCount += 1 }
                if F.tmM.extract(from: value) == 1 { measure() }
                if F.tmT.extract(from: value) == 1 {
                    registers[Register.tout.rawValue] = UInt8(clamping: Int(((temperatureC + 75) / 0.8).rounded()))
                    registers[Register.status.rawValue] |= F.measTDone.mask
                }
                // TM_M, TM_T, Set, Reset and OTP_Read clear themselves
                internalControl[0] = value & (F.autoSREn.mask | 0b0000_0100)
            case .internalControl1:
                if F.swRst.extract(from: value) == 1 {
                    softResetCount += 1
                    powerOnReset()
                    return
                }
                internalControl[1] = value
            case .internalControl2:
                internalControl[2] = value
                measureIfRunning()
            case .internalControl3:
                internalControl[3] = value
            default:
                break // read-only
            }
        }
    }

    private func measureIfRunning() {
        guard isContinuous else { return }
        // Continuous mode with automatic SET/RESET keeps the sensor in its SET state.
        if F.autoSREn.extract(from: internalControl[0]) == 1 { polarity = 1 }
        measure()
    }

    /// One measurement into the 18-bit outputs, and `Meas_M_Done`.
    private func measure() {
        let countsPerMicroTesla = MMC5983MADatasheet.countsPerGauss / PhysicalConstants.microTeslaPerGauss
        func code(_ h: Double, _ offset: Double) -> UInt32 {
            let c = (Double(MMC5983MADatasheet.nullFieldCounts) + (polarity * h + offset) * countsPerMicroTesla).rounded()
            guard c > 0 else { return 0 } // NaN too
            return c >= Double(MMC5983MADatasheet.maximumCounts) ? MMC5983MADatasheet.maximumCounts : UInt32(c)
        }
        let h = magneticFieldMicroTesla, o = bridgeOffsetMicroTesla
        let (x, y, z) = (code(h.x, o.x), code(h.y, o.y), code(h.z, o.z))
        func store(_ c: UInt32, at register: UInt8) {
            registers[register] = UInt8(truncatingIfNeeded: c >> 10)
            registers[register + 1] = UInt8(truncatingIfNeeded: c >> 2)
        }
        store(x, at: 0x00)
        store(y, at: 0x02)
        store(z, at: 0x04)
        registers[Register.xyzout2.rawValue] = UInt8(truncatingIfNeeded: (x & 0b11) << 6 | (y & 0b11) << 4 | (z & 0b11) << 2)
        registers[Register.status.rawValue] |= F.measMDone.mask
    }

    private func powerOnReset() {
        registers = RegisterFile(autoIncrement: .always)
        registers[Register.productID.rawValue] = productID
        registers[Register.status.rawValue] = F.otpReadDone.mask
        for k in internalControl.indices { internalControl[k] = 0 }
        polarity = 1
    }
}
