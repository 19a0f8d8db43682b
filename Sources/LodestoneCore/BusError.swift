/// What went wrong on a bus transfer, classified from the errno the kernel (or the simulator) gave.
public enum BusErrorKind: Sendable, Hashable {
    /// The chip did not acknowledge its address or a byte (`ENXIO`, `EREMOTEIO`; `ENODEV` from some adapters).
    case nack
    /// A generic I/O error on the bus (`EIO`).
    case io
    /// The transfer timed out, e.g. a chip holding SCL low (`ETIMEDOUT`).
    case timeout
    /// No permission to open the bus device (`EACCES`, `EPERM`).
    case permissionDenied
    /// The bus device does not exist (`ENOENT`).
    case noSuchBus
    /// The adapter cannot do this kind of transfer (`EOPNOTSUPP`, `EINVAL` from the adapter).
    case unsupported
    /// The address is claimed by a kernel driver (`EBUSY`).
    case busy
    /// Anything else; see `errno`.
    case other
}

/// A typed bus error that carries where it happened: bus, address, register and errno.
///
/// Environmental errors (a chip that NACKs, a missing bus) are thrown, never trapped.
public struct BusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The classification.
    public var kind: BusErrorKind
    /// Bus name, e.g. `/dev/i2c-1` or `sim`.
    public var bus: String
    /// 7-bit device address, if the error belongs to one device.
    public var address: UInt8?
    /// First register of the transfer, if any.
    public var register: UInt8?
    /// The errno reported (0 for simulator faults that have no errno).
    public var errno: Int32
    /// What was being done, e.g. "read 6 bytes".
    public var operation: String

    public init(
        kind: BusErrorKind, bus: String, address: UInt8? = nil, register: UInt8? = nil,
        errno: Int32 = 0, operation: String = ""
    ) {
        self.kind = kind; self.bus = bus; self.address = address; self.register = register
        self.errno = errno; self.operation = operation
    }

    /// Linux errno values used for classification (asm-generic/errno-base.h, errno.h). Stable Linux ABI.
    public enum Errno {
        public static let EPERM: Int32 = 1
        public static let ENOENT: Int32 = 2
        public static let EIO: Int32 = 5
        public static let ENXIO: Int32 = 6
        public static let EAGAIN: Int32 = 11
        public static let EACCES: Int32 = 13
        public static let EBUSY: Int32 = 16
        public static let ENODEV: Int32 = 19
        public static let EINVAL: Int32 = 22
        public static let EOPNOTSUPP: Int32 = 95
        public static let ETIMEDOUT: Int32 = 110
        public static let EREMOTEIO: Int32 = 121
    }

    /// Classifies an errno into a `BusErrorKind`.
    public static func kind(forErrno e: Int32) -> BusErrorKind {
        switch e {
        // ENODEV on a transfer: i2c-stub and several adapters report an address with no device this way.
        case Errno.ENXIO, Errno.EREMOTEIO, Errno.ENODEV: .nack
        case Errno.EIO: .io
        case Errno.ETIMEDOUT: .timeout
        case Errno.EACCES, Errno.EPERM: .permissionDenied
        case Errno.ENOENT: .noSuchBus
        case Errno.EOPNOTSUPP: .unsupported
        case Errno.EBUSY: .busy
        default: .other
        }
    }

    /// True for errors worth retrying a bounded number of times (glitches rather than configuration).
    public var isTransient: Bool { kind == .io || kind == .timeout || kind == .nack }

    /// One line: what, where, and what to do.
    public var description: String {
        var s = "\(bus)"
        if let a = address { s += " address " + hex(a) }
        if let r = register { s += " register " + hex(r) }
        if !operation.isEmpty { s += " (\(operation))" }
        let what: String =
            switch kind {
            case .nack: "chip did not acknowledge (NACK): check wiring, power and the address"
            case .io: "I/O error on the bus"
            case .timeout: "bus timed out: a device may be holding the clock low"
            case .permissionDenied where bus.contains("spidev"):
                "permission denied: run as root or add your user to the 'spi' group (sudo usermod -aG spi $USER, then log in again)"
            case .permissionDenied:
                "permission denied: run as root or add your user to the 'i2c' group (sudo usermod -aG i2c $USER, then log in again)"
            case .noSuchBus where bus.contains("spidev"):
                "no such bus: is SPI enabled (e.g. dtparam=spi=on) and the chip select bound to spidev?"
            case .noSuchBus: "no such bus: is the interface enabled (e.g. dtparam=i2c_arm=on) and i2c-dev loaded?"
            case .unsupported: "the bus adapter does not support this transfer"
            case .busy: "address is in use by a kernel driver"
            case .other: "bus error"
            }
        return s + ": " + what + (errno != 0 ? " [errno \(errno)]" : "")
    }
}

/// `0x` and two upper-case hex digits.
@inlinable public func hex(_ v: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return "0x" + String(digits[Int(v >> 4)]) + String(digits[Int(v & 0xF)])
}
