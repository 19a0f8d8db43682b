import LodestoneCore

/// A chip model behind the simulator bus: a register file with the chip's side effects.
///
/// `read` is called once per transaction with the start register and the number of bytes; the model
/// decides how its register pointer advances (auto-increment, wrap, ST's bit-7 rule) and applies read side
/// effects (clearing status bits, latching data). Models are classes because the bus and the scenario
/// driving them share one instance.
public protocol SimulatedChip: AnyObject {
    /// Bytes for a read of `count` bytes starting at `register`, with side effects applied.
    func read(register: UInt8, into buffer: UnsafeMutableRawBufferPointer)
    /// A write of `bytes` starting at `register`, with side effects (reset, mode changes) applied.
    func write(register: UInt8, bytes: UnsafeRawBufferPointer)
    /// Whether the chip answers its address right now. A chip that is attached but not responding NACKs every
    /// transfer, e.g. an AK8963 behind an MPU-9250 whose I2C bypass is disabled. Defaults to `true`.
    var isResponding: Bool { get }
    /// The register that byte `offset` of a read starting at sub-address `start` (as sent on the wire) comes from.
    /// Used to apply `SimulatedFault.stuck`. Defaults to `start + offset` (Bosch, InvenSense); models with another
    /// pointer rule (ST's bit 7, AKM's wrap) say so.
    func registerAddress(start: UInt8, offset: Int) -> UInt8
}

extension SimulatedChip {
    /// Attached chips answer unless the model says otherwise.
    public var isResponding: Bool { true }
    /// Plain auto-increment, wrapping at 0xFF.
    public func registerAddress(start: UInt8, offset: Int) -> UInt8 { UInt8(truncatingIfNeeded: Int(start) + offset) }
}

/// One logged bus transaction.
public struct BusTransaction: Sendable, Hashable, CustomStringConvertible {
    public enum Direction: String, Sendable, Hashable { case read, write }
    /// Read or write.
    public var direction: Direction
    /// 7-bit address.
    public var address: UInt8
    /// Start register as sent on the wire (including any auto-increment bit).
    public var register: UInt8
    /// The bytes transferred (empty for a failed transfer).
    public var bytes: [UInt8]
    /// The fault injected into this transfer, if any.
    public var fault: BusErrorKind?

    public init(direction: Direction, address: UInt8, register: UInt8, bytes: [UInt8], fault: BusErrorKind? = nil) {
        self.direction = direction; self.address = address; self.register = register; self.bytes = bytes; self.fault = fault
    }

    /// `R 0x76 0xD0 [58]`, `W 0x76 0xF4 [27]`, `R 0x76 0xF7 NACK`.
    public var description: String {
        let d = direction == .read ? "R" : "W"
        let body = fault.map { "\($0)".uppercased() } ?? "[" + bytes.map { hex($0).dropFirst(2) }.joined(separator: " ") + "]"
        return "\(d) \(hex(address)) \(hex(register)) \(body)"
    }
}

/// A fault to inject into the simulator bus.
public enum SimulatedFault: Sendable, Hashable {
    /// The `n`-th transfer (counted from 1 over the whole bus, from when the fault was added) to `address` fails
    /// with `kind` (`.nack`, `.io`, `.timeout`).
    case failTransfer(number: Int, address: UInt8, kind: BusErrorKind)
    /// Every transfer to `address` fails with `kind` from transfer `from` (inclusive) to `until` (exclusive),
    /// counted per address; `until == nil` means forever.
    case failRange(address: UInt8, from: Int, until: Int?, kind: BusErrorKind)
    /// Reads of `register` at `address` return `value` whatever the chip holds (a stuck register).
    case stuck(address: UInt8, register: UInt8, value: UInt8)
}

/// What a chip that has lost its wits answers on every read (`SimulatedBus.setGarbage(_:address:)`): a loose wire pulled
/// up (all ones), a shorted or unpowered chip (all zeros), or noise on the lines (random bytes).
public enum GarbagePattern: String, Sendable, Hashable, CaseIterable {
    /// Every byte 0xFF.
    case allOnes
    /// Every byte 0x00.
    case allZeros
    /// Every byte random (from the bus's seeded generator).
    case random
}

/// Faults drawn at random for each transfer (`SimulatedBus.setRandomFaults(_:seed:)`): the soak's flaky wiring.
public struct RandomFaultRates: Sendable, Hashable {
    /// Probability that a transfer NACKs (0…1; e.g. 1e-3).
    public var nackPerTransfer: Double
    /// Probability that a transfer fails with EIO (0…1).
    public var ioErrorPerTransfer: Double
    public init(nackPerTransfer: Double, ioErrorPerTransfer: Double) {
        self.nackPerTransfer = nackPerTransfer; self.ioErrorPerTransfer = ioErrorPerTransfer
    }
}

/// The register-file simulator bus: one `SimulatedChip` per address, every transaction logged, faults
/// injectable. Sits behind the same `RegisterBus` protocol as the real `/dev/i2c-N` bus.
public final class SimulatedBus: RegisterBus {
    public let name: String
    private var chips: [UInt8: any SimulatedChip] = [:]
    private var absent: Set<UInt8> = []
    private var faults: [SimulatedFault] = []
    private var transfersPerAddress: [UInt8: Int] = [:]
    private var garbage: [UInt8: GarbagePattern] = [:]
    private var randomRates: RandomFaultRates?
    private var faultRandom = SeededGenerator(seed: 0x4641_554C)
    /// Transfers failed by `setRandomFaults(_:seed:)` so far: NACKs and EIOs.
    public private(set) var randomNACKCount = 0
    public private(set) var randomIOErrorCount = 0
    /// Every transaction so far, when `isLogging` (on by default; turn off for long runs and benchmarks); with it off,
    /// the latest failed transfers only (`faultLogCapacity`).
    public private(set) var log: [BusTransaction] = []
    /// Whether transactions are appended to `log`.
    public var isLogging: Bool
    /// Total number of transfers attempted.
    public private(set) var transferCount = 0
    /// The longest read the bus makes as one transaction (`RegisterBus.maximumReadBytes`). Set it to 32 to behave
    /// like an SMBus-only adapter (e.g. i2c-stub): a longer read is then split into reads at `register`,
    /// `register + 32`, …, as `I2CDevBus` splits it, and a FIFO drain (`RegisterBus.readFIFO(address:register:
    /// frameBytes:into:)`) comes in pieces of whole frames, each restarting at the FIFO register.
    public var maximumReadBytes = Int.max

    /// The wire the bus stands for (default `.i2c`). With `.spi` drivers act as on a `/dev/spidevB.C` (an MPU-9250
    /// reaches its AK8963 through its I2C master); the models see the same register accesses either way, because the
    /// SPI framing (`SPIRegisterFraming`) is the real SPI bus's business.
    public let transport: BusTransport

    public init(name: String = "sim", isLogging: Bool = true, transport: BusTransport = .i2c) {
        self.name = name
        self.isLogging = isLogging
        self.transport = transport
    }

    /// Attaches `chip` at `address` (replacing whatever was there).
    public func attach(_ chip: any SimulatedChip, at address: UInt8) {
        chips[address] = chip
        transfersPerAddress[address] = 0
    }

    /// The chip at `address`, if attached.
    public func chip(at address: UInt8) -> (any SimulatedChip)? { chips[address] }

    /// Makes the device at `address` vanish (every transfer NACKs) or come back, keeping its registers.
    public func setPresent(_ present: Bool, address: UInt8) {
        if present { absent.remove(address) } else { absent.insert(address) }
    }

    /// Adds a fault.
    public func inject(_ fault: SimulatedFault) {
        if case .failTransfer = fault { transfersPerAddress[faultAddress(fault)] = 0 }
        faults.append(fault)
    }

    /// Removes every fault.
    public func clearFaults() { faults.removeAll() }

    /// Removes every copy of `fault` (a stuck register released, a failure range ended early).
    public func remove(_ fault: SimulatedFault) { faults.removeAll { $0 == fault } }

    /// Makes every read from `address` return `pattern` instead of the chip's registers (`nil`: the chip answers
    /// again). Writes still reach the chip, and reads still apply its side effects.
    public func setGarbage(_ pattern: GarbagePattern?, address: UInt8) { garbage[address] = pattern }

    /// Fails each transfer, to any address, at random with `rates` (`nil`: no random faults), deterministic for `seed`.
    public func setRandomFaults(_ rates: RandomFaultRates?, seed: UInt64 = 1) {
        randomRates = rates
        faultRandom = SeededGenerator(seed: seed ^ 0x4641_554C)
    }

    /// Empties the log.
    public func clearLog() { log.removeAll(keepingCapacity: true) }

    public func isPresent(address: UInt8) -> Bool {
        guard let chip = chips[address] else { return false }
        return !absent.contains(address) && chip.isResponding
    }

    public func read(address: UInt8, register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(BusError) {
        if buffer.count > maximumReadBytes, maximumReadBytes > 0 {
            var offset = 0
            while offset < buffer.count {
                let n = min(maximumReadBytes, buffer.count - offset)
                try readOne(
                    address: address, register: register &+ UInt8(truncatingIfNeeded: offset),
                    into: UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<offset + n]))
                offset += n
            }
        } else {
            try readOne(address: address, register: register, into: buffer)
        }
    }

    private func readOne(address: UInt8, register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(BusError) {
        let chip = try target(.read, address, register, byteCount: buffer.count)
        chip.read(register: register, into: buffer)
        if let g = garbage[address] {
            for i in 0..<buffer.count {
                switch g {
                case .allOnes: buffer[i] = 0xFF
                case .allZeros: buffer[i] = 0
                case .random: buffer[i] = UInt8(truncatingIfNeeded: faultRandom.next())
                }
            }
        }
        for f in faults {
            if case let .stuck(a, r, v) = f, a == address {
                for off in 0..<buffer.count where chip.registerAddress(start: register, offset: off) == r { buffer[off] = v }
            }
        }
        if isLogging { record(.read, address, register, Array(buffer), nil) }
    }

    public func write(address: UInt8, register: UInt8, bytes: UnsafeRawBufferPointer) throws(BusError) {
        let chip = try target(.write, address, register, byteCount: bytes.count)
        chip.write(register: register, bytes: bytes)
        if isLogging { record(.write, address, register, Array(bytes), nil) }
    }

    // MARK: - private

    /// Counts the transfer and returns the chip it reaches, or logs and throws the injected fault, or a NACK
    /// when nothing is attached at `address`.
    private func target(_ d: BusTransaction.Direction, _ address: UInt8, _ register: UInt8, byteCount: Int) throws(BusError)
        -> any SimulatedChip
    {
        let injected = fault(for: address)
        guard injected == nil, let chip = chips[address] else {
            let kind = injected ?? .nack
            record(d, address, register, [], kind)
            throw BusError(
                kind: kind, bus: name, address: address, register: register,
                errno: injected == nil ? BusError.Errno.ENXIO : Self.errno(for: kind),
                operation: Self.operation(d.rawValue, byteCount))
        }
        return chip
    }

    /// Failed transfers kept while `isLogging` is off: the newest `faultLogCapacity` to `2 × faultLogCapacity`, so that
    /// a long run with faults (the soak's day: tens of thousands) keeps its memory flat.
    public static let faultLogCapacity = 1_000

    private func record(_ d: BusTransaction.Direction, _ a: UInt8, _ r: UInt8, _ b: [UInt8], _ f: BusErrorKind?) {
        guard isLogging || f != nil else { return }
        if !isLogging, log.count >= 2 * Self.faultLogCapacity { log.removeFirst(log.count - Self.faultLogCapacity) }
        log.append(BusTransaction(direction: d, address: a, register: r, bytes: b, fault: f))
    }

    private func faultAddress(_ f: SimulatedFault) -> UInt8 {
        switch f {
        case let .failTransfer(_, a, _), let .failRange(a, _, _, _), let .stuck(a, _, _): a
        }
    }

    /// Counts the transfer and returns the fault kind to inject, if any.
    private func fault(for address: UInt8) -> BusErrorKind? {
        transferCount += 1
        let n = (transfersPerAddress[address] ?? 0) + 1
        transfersPerAddress[address] = n
        if absent.contains(address) { return .nack }
        if let chip = chips[address], !chip.isResponding { return .nack }
        if let r = randomRates, chips[address] != nil {
            let u = faultRandom.uniform()
            if u < r.nackPerTransfer {
                randomNACKCount += 1
                return .nack
            }
            if u < r.nackPerTransfer + r.ioErrorPerTransfer {
                randomIOErrorCount += 1
                return .io
            }
        }
        for f in faults {
            switch f {
            case let .failTransfer(number, a, kind) where a == address && number == n: return kind
            case let .failRange(a, from, until, kind) where a == address && n >= from && (until.map { n < $0 } ?? true):
                return kind
            default: continue
            }
        }
        return nil
    }

    /// "read 6 bytes": built only when an error is thrown, so the sample path does not allocate.
    private static func operation(_ verb: String, _ count: Int) -> String {
        "\(verb) \(count) byte\(count == 1 ? "" : "s")"
    }

    private static func errno(for kind: BusErrorKind) -> Int32 {
        switch kind {
        case .nack: BusError.Errno.EREMOTEIO
        case .io: BusError.Errno.EIO
        case .timeout: BusError.Errno.ETIMEDOUT
        case .permissionDenied: BusError.Errno.EACCES
        case .noSuchBus: BusError.Errno.ENOENT
        case .unsupported: BusError.Errno.EOPNOTSUPP
        case .busy: BusError.Errno.EBUSY
        case .other: 0
        }
    }
}

/// A 256-byte register file with the common side-effect rules, for chip models to compose.
public struct RegisterFile: Sendable {
    /// How the register pointer moves during a multi-byte read.
    public enum AutoIncrement: Sendable {
        /// Always increments (Bosch, InvenSense): wraps at 0xFF.
        case always
        /// Increments only if bit 7 of the sub-address is set (ST parts on I2C); bit 7 is not part of the address.
        case whenBit7Set
    }
    /// The register values.
    public var bytes: [UInt8]
    /// Pointer rule.
    public var autoIncrement: AutoIncrement

    public init(autoIncrement: AutoIncrement = .always) {
        bytes = [UInt8](repeating: 0, count: 256)
        self.autoIncrement = autoIncrement
    }

    /// The registers a transfer starting at `register` of `count` bytes touches, in order.
    public func addresses(start register: UInt8, count: Int) -> [UInt8] {
        switch autoIncrement {
        case .always:
            return (0..<count).map { UInt8(truncatingIfNeeded: Int(register) + $0) }
        case .whenBit7Set:
            let base = register & 0x7F
            if register & 0x80 == 0 { return [UInt8](repeating: base, count: count) }
            return (0..<count).map { UInt8(truncatingIfNeeded: (Int(base) + $0) & 0x7F) }
        }
    }

    public subscript(_ r: UInt8) -> UInt8 {
        get { bytes[Int(r)] }
        set { bytes[Int(r)] = newValue }
    }
}
