import LodestoneCore
import LodestoneDrivers

/// A simulated Honeywell HMC5883L built from `HMC5883LDatasheet`: the "H43" identification, continuous / single /
/// idle modes (single measures once and returns to idle), outputs quantised with the configured gain, −4096 for an
/// axis beyond the ADC's −2048…2047, `STATUS.RDY` set by a measurement (reads do not clear it) and `LOCK` while some
/// but not all six data registers have been read, reads of invalid addresses returning 0, and the address pointer
/// wrapping from 12 to 0.
///
/// Set `magneticFieldMicroTesla` (chip axes): a continuous-mode chip measures once per change.
public final class HMC5883LModel: SimulatedChip {
    public typealias Register = HMC5883LDatasheet.Register
    private typealias F = HMC5883LDatasheet.Field

    /// The register file (for tests to inspect).
    public private(set) var registers = RegisterFile(autoIncrement: .always)
    /// The identification bytes (default "H43").
    public let identification: [UInt8]
    /// Magnetic flux density in the chip's axes, µT.
    public var magneticFieldMicroTesla = Vector3.zero { didSet { measureIfRunning() } }
    /// Die temperature, °C: no effect, the HMC5883L has no temperature sensor.
    public var temperatureC = 25.0
    /// Bit k set: data register 0x03 + k has been read since the last complete read.
    private var dataRegistersRead: UInt8 = 0

    /// An HMC5883L in its power-on state (single-measurement mode, ±1.3 gauss, 15 Hz).
    public init(identification: [UInt8] = HMC5883LDatasheet.identification) {
        self.identification = identification
        registers[Register.configA.rawValue] = 0x10
        registers[Register.configB.rawValue] = 0x20
        registers[Register.mode.rawValue] = HMC5883LDatasheet.Mode.single.rawValue
        for (i, b) in identification.prefix(3).enumerated() { registers[Register.identificationA.rawValue + UInt8(i)] = b }
    }

    /// The current gain.
    public var gain: HMC5883LDatasheet.Gain {
        HMC5883LDatasheet.Gain(rawValue: F.gn.extract(from: registers[Register.configB.rawValue])) ?? .gauss1_3
    }

    /// The current mode (0b11 reads as idle).
    public var mode: HMC5883LDatasheet.Mode {
        HMC5883LDatasheet.Mode(rawValue: F.md.extract(from: registers[Register.mode.rawValue])) ?? .idle
    }

    /// The pointer runs 0…12 and wraps; beyond 12 nothing is stored.
    public func registerAddress(start: UInt8, offset: Int) -> UInt8 {
        start > Register.identificationC.rawValue ? start : UInt8((Int(start) + offset) % 13)
    }

    public func read(register: UInt8, into buffer: UnsafeMutableRawBufferPointer) {
        for i in 0..<buffer.count {
            let r = registerAddress(start: register, offset: i)
            buffer[i] = r <= Register.identificationC.rawValue ? registers[r] : 0
            if (Register.dataOutXMSB.rawValue...0x08).contains(r) {
                dataRegistersRead |= 1 << (r - Register.dataOutXMSB.rawValue)
                let all = dataRegistersRead == 0b11_1111
                if all { dataRegistersRead = 0 }
                registers[Register.status.rawValue] = F.lock.inserting(all ? 0 : 1, into: registers[Register.status.rawValue])
            }
        }
    }

    public func write(register: UInt8, bytes: UnsafeRawBufferPointer) {
        for (i, value) in bytes.enumerated() {
            let r = registerAddress(start: register, offset: i)
            switch Register(rawValue: r) {
            case .configA, .configB:
                registers[r] = value
                unlock()
            case .mode:
                registers[r] = value & 0b1000_0011
                unlock()
                if mode == .single {
                    measure()
                    registers[r] = F.md.inserting(HMC5883LDatasheet.Mode.idle.rawValue, into: registers[r])
                } else {
                    measureIfRunning()
                }
            default:
                break // read-only, or an invalid address (ignored)
            }
        }
    }

    private func unlock() {
        dataRegistersRead = 0
        registers[Register.status.rawValue] = F.lock.inserting(0, into: registers[Register.status.rawValue])
    }

    private func measureIfRunning() {
        if mode == .continuous { measure() }
    }

    /// One measurement into X, Z, Y (unless `LOCK` holds the outputs), and `RDY`.
    private func measure() {
        guard F.lock.extract(from: registers[Register.status.rawValue]) == 0 else { return }
        let lsbPerMicroTesla = gain.lsbPerGauss / PhysicalConstants.microTeslaPerGauss
        func raw(_ v: Double) -> Int16 {
            let r = (v * lsbPerMicroTesla).rounded()
            guard r >= -2048, r <= 2047 else { return HMC5883LDatasheet.overflowValue } // NaN too
            return Int16(r)
        }
        let m = magneticFieldMicroTesla
        registers.storeBE16(raw(m.x), at: Register.dataOutXMSB.rawValue)
        registers.storeBE16(raw(m.z), at: 0x05)
        registers.storeBE16(raw(m.y), at: 0x07)
        registers[Register.status.rawValue] = F.rdy.inserting(1, into: registers[Register.status.rawValue])
    }
}
