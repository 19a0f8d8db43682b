/// A bus of register-addressed chips: I2C through `/dev/i2c-N`, SPI through `/dev/spidevB.C`, or the
/// register-file simulator. Drivers are generic over it (specialised on the sample path).
///
/// A `read` of `n` bytes starting at `register` is one combined transaction (write register pointer,
/// repeated start, read `n` bytes). Whether the chip auto-increments its register pointer is the chip's
/// business: ST parts need bit 7 of the register set on I2C, which their drivers do.
///
/// Implementations are reference types because a bus is one shared resource (a file descriptor, a
/// simulated wire) used by several drivers; they are not `Sendable` and belong to one task.
public protocol RegisterBus: AnyObject {
    /// Human-readable bus name used in errors, e.g. `/dev/i2c-1`.
    var name: String { get }
    /// Reads `buffer.count` bytes starting at `register` from the device at 7-bit `address`.
    func read(address: UInt8, register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(BusError)
    /// Writes `bytes` starting at `register` to the device at 7-bit `address`. An empty `bytes` sends
    /// `register` alone (SMBus "send byte"): the command of a command-driven chip such as the MS5611.
    func write(address: UInt8, register: UInt8, bytes: UnsafeRawBufferPointer) throws(BusError)
    /// True if a device answers at `address` (a quick probe that changes no register).
    func isPresent(address: UInt8) -> Bool
    /// The wire under the bus. Default `.i2c`. On `.spi` the bus reaches one chip (its chip select), `address`
    /// only names it in errors, and a chip's auxiliary I2C bus cannot be bridged onto the host bus (an MPU-9250
    /// then reaches its AK8963 through its I2C master instead of its bypass).
    var transport: BusTransport { get }
    /// The longest `read` this bus makes as one transaction, bytes (at least 1). A longer `read` is split into reads
    /// at `register`, `register + n`, …, as an auto-incrementing register file wants; a FIFO read-out register does
    /// not, which is why FIFO drains go through `readFIFO(address:register:frameBytes:into:)`, built on this limit.
    /// Default: no limit.
    var maximumReadBytes: Int { get }
}

extension RegisterBus {
    /// No limit: every read is one transaction.
    public var maximumReadBytes: Int { Int.max }
}

/// The kind of wire a `RegisterBus` drives.
public enum BusTransport: String, Sendable, Hashable, Codable {
    /// I2C (`/dev/i2c-N`, the simulator): one bus, many 7-bit addresses.
    case i2c
    /// SPI (`/dev/spidevB.C`): one chip per chip select; register framing per chip family (`SPIRegisterFraming`).
    case spi
}

extension RegisterBus {
    /// I2C unless the bus says otherwise.
    public var transport: BusTransport { .i2c }

    /// Reads `buffer.count` bytes from a chip's FIFO read-out register in as few transactions as the bus allows: each
    /// transaction starts at `register` again and carries whole frames of `frameBytes`, at most `maximumReadBytes`
    /// rounded down to whole frames. One mechanism for both kinds of FIFO port:
    ///
    /// - a register that does not advance, every byte read from it popping the next FIFO byte (the ICM-20948's
    ///   `FIFO_R_W`, the BMP388's `FIFO_DATA`): `frameBytes` 1, any split is right as long as it restarts at the port
    ///   (a plain split `read` would go on at `register + n`, another register);
    /// - a window of registers that the chip's address pointer wraps back over, popping one FIFO slot per pass (the
    ///   LPS22HB's `PRESS_OUT_XL`…`TEMP_OUT_H` with its FIFO on, the LSM6DSOX's 7-byte tagged word at
    ///   `FIFO_DATA_OUT_TAG`): `frameBytes` is the window, because a piece that ended inside it would leave the slot
    ///   half read, and the next piece, restarting at the window's first register, would read that slot again.
    ///
    /// On I2C the limit is the adapter's (32 bytes on SMBus-only adapters such as i2c-stub, one `I2C_RDWR` message
    /// otherwise), on SPI spidev's buffer, on the simulator whatever a test sets. Allocates nothing.
    /// - Throws: the bus's errors; `.unsupported` when one frame is longer than `maximumReadBytes` (the bus cannot
    ///   read this FIFO without splitting a frame).
    public func readFIFO(
        address: UInt8, register: UInt8, frameBytes: Int,
        into buffer: UnsafeMutableRawBufferPointer
    ) throws(BusError) {
        let frame = max(frameBytes, 1)
        let limit = maximumReadBytes
        guard frame <= limit else {
            throw BusError(
                kind: .unsupported, bus: name, address: address, register: register,
                errno: BusError.Errno.EOPNOTSUPP,
                operation: "read FIFO frames of \(frame) bytes: the bus reads at most \(limit) at a time")
        }
        let piece = buffer.count <= limit ? buffer.count : limit - limit % frame
        var offset = 0
        while offset < buffer.count {
            let n = min(piece, buffer.count - offset)
            try read(
                address: address, register: register, into: UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<offset + n]))
            offset += n
        }
    }

    /// Reads one register.
    @inlinable public func readByte(address: UInt8, register: UInt8) throws(BusError) -> UInt8 {
        var value: UInt8 = 0
        try withUnsafeMutableBytes(of: &value) { (p) throws(BusError) in
            try read(address: address, register: register, into: p)
        }
        return value
    }

    /// Writes one register.
    @inlinable public func writeByte(address: UInt8, register: UInt8, value: UInt8) throws(BusError) {
        try withUnsafeBytes(of: value) { (p) throws(BusError) in
            try write(address: address, register: register, bytes: p)
        }
    }

    /// Read-modify-write of the bits selected by `field`.
    @inlinable public func update(address: UInt8, register: UInt8, field: BitField, to value: UInt8) throws(BusError) {
        let old = try readByte(address: address, register: register)
        try writeByte(address: address, register: register, value: field.inserting(value, into: old))
    }
}

/// A register bit field: the one mask helper. `BitField(mask: 0b0001_1100)` is bits 4..2.
public struct BitField: Sendable, Hashable {
    /// The mask of the field inside its register.
    public let mask: UInt8
    /// Position of the lowest set bit of `mask`.
    public let shift: UInt8

    @inlinable public init(mask: UInt8) {
        precondition(mask != 0, "a bit field needs a non-zero mask") // programmer error, constant tables only
        self.mask = mask
        self.shift = UInt8(mask.trailingZeroBitCount)
    }

    /// The field's value inside `register`.
    @inlinable public func extract(from register: UInt8) -> UInt8 { (register & mask) >> shift }
    /// `register` with the field replaced by `value` (bits outside the field are kept).
    @inlinable public func inserting(_ value: UInt8, into register: UInt8) -> UInt8 {
        (register & ~mask) | ((value << shift) & mask)
    }
}
