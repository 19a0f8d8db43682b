import LodestoneCore
import LodestoneDrivers

/// A simulated Analog Devices ADXL345 built from `ADXL345Datasheet`: `DEVID`; standby and measurement
/// (`POWER_CTL.Measure`); outputs at full resolution (256 LSB/g, saturating at the range's 10 to 13 bits) or in
/// 10-bit mode (256 / 2^Range LSB/g); `INT_SOURCE.DATA_READY` while unread data waits; ac-coupled activity detection
/// against `THRESH_ACT` × 62.5 mg on the enabled axes, the reference taken when detection starts and after each
/// event, latched in `INT_SOURCE.Activity` until `INT_SOURCE` is read; and the 32-entry FIFO in stream mode (FIFO and
/// trigger modes are modelled as stream), whose oldest entry the data registers show and a read of them pops.
///
/// Set `accelerationMps2` (chip axes); a measuring chip samples it at once and after every write.
public final class ADXL345Model: InertialChipModel {
    public typealias Register = ADXL345Datasheet.Register
    private typealias D = ADXL345Datasheet
    private typealias F = ADXL345Datasheet.Field

    /// The register file (for tests to inspect).
    public private(set) var registers = RegisterFile(autoIncrement: .always)
    /// The value of `DEVID`.
    public var devid: UInt8 = D.devidValue { didSet { registers[Register.devid.rawValue] = devid } }
    /// Specific force in the chip's axes, m/s² (default: lying flat at rest).
    public var accelerationMps2 = Vector3(0, 0, PhysicalConstants.standardGravityMps2) { didSet { measureIfUntimed() } }
    /// Simulated time, s (`InertialChipModel.sampleTimeS`): set, the chip samples at `outputDataRateHz` (its FIFO fills
    /// and its activity detection compares at that rate).
    public var sampleTimeS: Double? { didSet { sampleIfDue() } }
    private var clock = SampleClock()
    /// Ignored: the ADXL345 has no gyroscope.
    public var angularVelocityRadS = Vector3.zero
    /// Ignored: the ADXL345 has no temperature output.
    public var temperatureC = 25.0
    private var fifo = ByteFIFO(capacity: D.fifoEntries * 6, emptyValue: 0)
    private var activityReferenceG: Vector3?

    /// An ADXL345 in its power-on state (standby, 100 Hz).
    public init() { powerOnReset() }

    /// Whether `POWER_CTL.Measure` is set.
    public var isMeasuring: Bool { F.measure.extract(from: registers[Register.powerCtl.rawValue]) == 1 }
    /// Entries in the FIFO.
    public var fifoEntryCount: Int { fifo.count / 6 }
    private var fifoMode: D.FIFOMode {
        D.FIFOMode(rawValue: F.fifoMode.extract(from: registers[Register.fifoCtl.rawValue])) ?? .bypass
    }

    public func read(register: UInt8, into buffer: UnsafeMutableRawBufferPointer) {
        var touchedData = false
        for i in 0..<buffer.count {
            let r = UInt8(truncatingIfNeeded: Int(register) + i)
            if r == Register.fifoStatus.rawValue {
                registers[r] = F.entries.inserting(UInt8(min(fifoEntryCount, 63)), into: 0)
            }
            buffer[i] = registers[r]
            if (0x32...0x37).contains(r) { touchedData = true }
            if r == Register.intSource.rawValue { registers[r] = F.activity.inserting(0, into: registers[r]) }
        }
        if touchedData {
            if fifoMode == .bypass {
                registers[Register.intSource.rawValue] = F.dataReady.inserting(0, into: registers[Register.intSource.rawValue])
            } else {
                for _ in 0..<6 { _ = fifo.pop() }
                showOldestEntry()
            }
        }
    }

    public func write(register: UInt8, bytes: UnsafeRawBufferPointer) {
        for (i, value) in bytes.enumerated() {
            let r = UInt8(truncatingIfNeeded: Int(register) + i)
            switch Register(rawValue: r) {
            case .devid, .intSource, .fifoStatus: break
            case .fifoCtl:
                registers[r] = value
                if fifoMode == .bypass { fifo.removeAll() }
            case .actInactCtl:
                registers[r] = value
                activityReferenceG = nil
            default:
                if (0x32...0x37).contains(r) { break }
                registers[r] = value
            }
        }
        measureIfRunning()
        clock.restart()
    }

    private func measureIfRunning() {
        if isMeasuring { measure() }
    }

    private func measureIfUntimed() {
        if sampleTimeS == nil { measureIfRunning() }
    }

    /// The output data rate, Hz: 3200 Hz / 2^(15 − `BW_RATE.Rate`) (data sheet table 7); `nil` in standby.
    public var outputDataRateHz: Double? {
        guard isMeasuring else { return nil }
        return ADXL345Datasheet.rateHz(code: F.rate.extract(from: registers[Register.bwRate.rawValue]))
    }

    private func sampleIfDue() {
        guard let t = sampleTimeS, let rateHz = outputDataRateHz else { return }
        for _ in 0..<clock.samplesDue(atTimeS: t, rateHz: rateHz) { measure() }
    }

    private func measure() {
        let format = registers[Register.dataFormat.rawValue]
        let range = Int(F.range.extract(from: format))
        let fullResolution = F.fullRes.extract(from: format) == 1
        let lsbPerG = fullResolution ? D.lsbPerG : D.lsbPerG / Double(1 << range)
        // A two's-complement output of 10 bits (…13 at ±16 g in full resolution): −2^(n−1) … 2^(n−1) − 1.
        let half = Double(fullResolution ? 512 << range : 512)
        let accelG = accelerationMps2 / PhysicalConstants.standardGravityMps2
        func clamp(_ v: Double) -> Int16 { v.isNaN ? 0 : Int16(min(max(v.rounded(), -half), half - 1)) }
        let sample = (clamp(accelG.x * lsbPerG), clamp(accelG.y * lsbPerG), clamp(accelG.z * lsbPerG))
        if fifoMode == .bypass {
            registers.storeLE16(sample.0, at: 0x32); registers.storeLE16(sample.1, at: 0x34);
            registers.storeLE16(sample.2, at: 0x36)
        } else {
            pushLE16(sample.0); pushLE16(sample.1); pushLE16(sample.2)
            showOldestEntry()
        }
        var source = F.dataReady.inserting(1, into: registers[Register.intSource.rawValue])
        let control = registers[Register.actInactCtl.rawValue]
        let threshold = Double(registers[Register.threshAct.rawValue]) * D.activityStepG
        if F.actXYZ.extract(from: control) != 0, threshold > 0 {
            if let reference = activityReferenceG {
                let change = accelG - reference
                let axes = F.actXYZ.extract(from: control)
                for axis in 0..<3 where axes & (0b100 >> axis) != 0 && abs(change[axis]) > threshold {
                    source = F.activity.inserting(1, into: source)
                }
                if F.activity.extract(from: source) == 1 { activityReferenceG = accelG }
            } else {
                activityReferenceG = accelG
            }
        }
        registers[Register.intSource.rawValue] = source
    }

    private func pushLE16(_ value: Int16) {
        let bits = UInt16(bitPattern: value)
        fifo.push(UInt8(truncatingIfNeeded: bits))
        fifo.push(UInt8(truncatingIfNeeded: bits >> 8))
    }

    /// The data registers show the oldest FIFO entry (or 0 when the FIFO is empty).
    private func showOldestEntry() {
        var copy = fifo
        for r in UInt8(0x32)...0x37 { registers[r] = copy.pop() }
        if fifo.count == 0 {
            registers[Register.intSource.rawValue] = F.dataReady.inserting(0, into: registers[Register.intSource.rawValue])
        }
    }

    /// Reset values (table 19): `DEVID`, `BW_RATE` 0x0A, everything else 0; FIFO empty.
    private func powerOnReset() {
        registers = RegisterFile(autoIncrement: .always)
        registers[Register.devid.rawValue] = devid
        registers[Register.bwRate.rawValue] = 0x0A
        fifo.removeAll()
        activityReferenceG = nil
    }
}
