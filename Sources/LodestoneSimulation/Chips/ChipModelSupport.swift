import LodestoneCore
import LodestoneDrivers

// Shared helpers for the chip models: how an ADC reports a physical value.

/// When a chip model that keeps its own output data rate samples: on a grid of its sample period, started at the first
/// time it is given after a reset or a configuration write. `samplesDue` says how many sample instants a new time has
/// passed (more than one when the board stepped further than one period, as a chip samples on while nobody reads it).
struct SampleClock {
    private var nextS: Double?
    /// The most samples one call takes (a chip far faster than the board's steps would otherwise loop long).
    static let maximumSamplesPerAdvance = 1024

    /// Starts a new grid at the next time given (after a reset or a change of rate).
    mutating func restart() { nextS = nil }

    /// How many samples are due by `t` at `rateHz` (the first call after `restart` takes one), advancing the grid.
    mutating func samplesDue(atTimeS t: Double, rateHz: Double) -> Int {
        let periodS = 1 / rateHz
        guard let next = nextS else {
            nextS = ((t / periodS + 1e-6).rounded(.down) + 1) * periodS
            return 1
        }
        guard t >= next - 1e-9 else { return 0 }
        let n = Int(((t - next) / periodS + 1e-6).rounded(.down)) + 1
        nextS = next + Double(n) * periodS
        return min(n, Self.maximumSamplesPerAdvance)
    }
}

/// `round(value)` limited to `-limit…limit` (and `Int16.min` when `limit` is `Int16.max`, as a two's-complement
/// ADC saturates), as a 16-bit output register reports an out-of-range input. NaN gives 0.
func saturatedRaw(_ value: Double, limit: Int16 = .max) -> Int16 {
    guard !value.isNaN else { return 0 }
    let low = limit == .max ? Double(Int16.min) : -Double(limit)
    let r = min(max(value.rounded(), low), Double(limit))
    return Int16(r)
}

extension RegisterFile {
    /// Stores `value` little-endian at `register`, `register + 1`.
    mutating func storeLE16(_ value: Int16, at register: UInt8) {
        let bits = UInt16(bitPattern: value)
        self[register] = UInt8(truncatingIfNeeded: bits)
        self[register &+ 1] = UInt8(truncatingIfNeeded: bits >> 8)
    }

    /// Stores `value` big-endian at `register`, `register + 1`.
    mutating func storeBE16(_ value: Int16, at register: UInt8) {
        let bits = UInt16(bitPattern: value)
        self[register] = UInt8(truncatingIfNeeded: bits >> 8)
        self[register &+ 1] = UInt8(truncatingIfNeeded: bits)
    }
}

/// The code in `range` whose `value` is nearest `target`, by bisection; `value` must be monotonic over `range`
/// (rising when `increasing`). Used by the barometer models to invert their chip's compensation formulas.
func nearestCode(in range: ClosedRange<Int64>, increasing: Bool, target: Double, value: (Int64) -> Double) -> Int64 {
    var low = range.lowerBound, high = range.upperBound
    // smallest code whose value is at or past the target
    while low < high {
        let mid = low + (high - low) / 2
        let v = value(mid)
        if increasing ? v >= target : v <= target { high = mid } else { low = mid + 1 }
    }
    if low > range.lowerBound, abs(value(low - 1) - target) < abs(value(low) - target) { return low - 1 }
    return low
}

/// What the ST barometer models (LPS22HB, LPS25H) share: the pressure output code and how one conversion lands in the
/// output registers and `STATUS` (DocID027083 and DocID023722: 4096 LSB/hPa in 24 bits; a data-ready bit still set when
/// the next conversion lands raises that output's overrun bit).
enum STPressureModel {
    /// The 24-bit two's-complement pressure code of `pressurePa`, saturated (the LPS25H's sensitivity is the LPS22HB's).
    static func pressureCode(_ pressurePa: Double) -> Int32 {
        Int32(min(max((pressurePa / 100 * LPS22HBDatasheet.pressureLSBPerHPa).rounded(), -8_388_608), 8_388_607))
    }

    /// Stores one conversion: the pressure code little-endian at `pressure`…+2, the temperature at `temperature`, +1,
    /// and the data-ready and overrun bits (`pDA`, `pOR`, `tDA`, `tOR`) in `status`.
    static func store(
        pressureCode: Int32, temperatureCode: Int16, in registers: inout RegisterFile, pressure: UInt8,
        temperature: UInt8, status: UInt8, pDA: BitField, pOR: BitField, tDA: BitField, tOR: BitField
    ) {
        for k in 0..<3 { registers[pressure + UInt8(k)] = UInt8(truncatingIfNeeded: pressureCode >> (8 * k)) }
        registers.storeLE16(temperatureCode, at: temperature)
        var bits = registers[status]
        if pDA.extract(from: bits) == 1 { bits |= pOR.mask }
        if tDA.extract(from: bits) == 1 { bits |= tOR.mask }
        registers[status] = bits | pDA.mask | tDA.mask
    }
}
