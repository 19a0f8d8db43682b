import CLodestoneLinux
import LodestoneCore
#if canImport(Glibc)
    import Glibc
#endif

/// What an I2C adapter can do: the `I2C_FUNC_*` bits from `ioctl(fd, I2C_FUNCS)` (`linux/i2c.h`).
public struct I2CFunctionality: OptionSet, Sendable, Hashable {
    /// The `I2C_FUNC_*` mask.
    public let rawValue: UInt
    /// A set from an `I2C_FUNC_*` mask.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// `I2C_FUNC_I2C`: plain I2C messages, so combined `I2C_RDWR` transfers of any length (≤ 8192 bytes).
    public static let i2c = I2CFunctionality(rawValue: UInt(I2C_FUNC_I2C))
    /// `I2C_FUNC_SMBUS_QUICK`: SMBus quick command (address only, no data).
    public static let smbusQuick = I2CFunctionality(rawValue: UInt(I2C_FUNC_SMBUS_QUICK))
    /// `I2C_FUNC_SMBUS_READ_BYTE`: SMBus receive byte.
    public static let smbusReadByte = I2CFunctionality(rawValue: UInt(I2C_FUNC_SMBUS_READ_BYTE))
    /// `I2C_FUNC_SMBUS_READ_BYTE_DATA`: SMBus read byte data (one register).
    public static let smbusReadByteData = I2CFunctionality(rawValue: UInt(I2C_FUNC_SMBUS_READ_BYTE_DATA))
    /// `I2C_FUNC_SMBUS_WRITE_BYTE`: SMBus send byte (a command byte, no data).
    public static let smbusWriteByte = I2CFunctionality(rawValue: UInt(I2C_FUNC_SMBUS_WRITE_BYTE))
    /// `I2C_FUNC_SMBUS_WRITE_BYTE_DATA`: SMBus write byte data (one register).
    public static let smbusWriteByteData = I2CFunctionality(rawValue: UInt(I2C_FUNC_SMBUS_WRITE_BYTE_DATA))
    /// `I2C_FUNC_SMBUS_READ_I2C_BLOCK`: I2C block read, 1–32 bytes after a register pointer write.
    public static let smbusReadI2CBlock = I2CFunctionality(rawValue: UInt(I2C_FUNC_SMBUS_READ_I2C_BLOCK))
    /// `I2C_FUNC_SMBUS_WRITE_I2C_BLOCK`: I2C block write, 1–32 bytes after the register.
    public static let smbusWriteI2CBlock = I2CFunctionality(rawValue: UInt(I2C_FUNC_SMBUS_WRITE_I2C_BLOCK))
}

/// A `RegisterBus` on a Linux `/dev/i2c-N` character device (the `i2c-dev` module), through libi2c.
///
/// Transfers, by length (register auto-increment is assumed wherever a transfer is split, see `read`):
///
/// | bytes | read | write |
/// |---|---|---|
/// | 0 | – | `i2c_smbus_write_byte` (the register byte alone: a command) |
/// | 1 | `i2c_smbus_read_byte_data` | `i2c_smbus_write_byte_data` |
/// | 2–32 | `i2c_smbus_read_i2c_block_data` (count checked) | `i2c_smbus_write_i2c_block_data` |
/// | > 32 | one `I2C_RDWR` combined transfer if the adapter has `I2C_FUNC_I2C`, else successive ≤ 32-byte I2C block reads | one `I2C_RDWR` message, else successive ≤ 32-byte block writes |
///
/// When the adapter lacks the SMBus call for a length but has `I2C_FUNC_I2C`, `I2C_RDWR` is used instead.
/// Transient errors (`BusError.isTransient`: NACK, EIO, timeout) are retried `retries` times, immediately;
/// every error carries the bus path, address, register, errno and the transfer attempted.
///
/// The sample path (`read`/`write` of a selected address) makes no heap allocation. Not thread-safe: one bus
/// object belongs to one task (see `RegisterBus`).
public final class I2CDevBus: RegisterBus {
    /// `I2C_SMBUS_BLOCK_MAX`: the longest SMBus I2C block transfer, 32 bytes.
    public static let smbusBlockMaximumBytes = 32
    /// The longest single `I2C_RDWR` message i2c-dev accepts, 8192 bytes (`drivers/i2c/i2c-dev.c`).
    public static let rdwrMessageMaximumBytes = 8192

    /// The device path, e.g. `/dev/i2c-1`; used as the bus name in errors.
    public let name: String
    /// The adapter's functionality, queried once with `I2C_FUNCS` when the bus was opened.
    public let functionality: I2CFunctionality
    /// Extra attempts after a transient error (0 = no retry).
    public let retries: Int
    /// True when every address is selected with `I2C_SLAVE_FORCE`.
    public let forcesAddresses: Bool
    /// Addresses claimed by a kernel driver (`I2C_SLAVE` gave `EBUSY`) that this bus then selected with
    /// `I2C_SLAVE_FORCE`. Reading such a chip races with its driver; see `notes`.
    public private(set) var forcedAddresses: Set<UInt8> = []

    private let fd: Int32
    /// The address the descriptor currently targets (`I2C_SLAVE` is per open file), so that a driver reading
    /// one chip in a loop makes one ioctl per transfer, not two.
    private var selectedAddress: UInt8?

    /// Opens `path` (`O_RDWR | O_CLOEXEC`) and queries the adapter's functionality (`I2C_FUNCS`).
    ///
    /// - Parameters:
    ///   - path: the i2c-dev node, e.g. `/dev/i2c-1`.
    ///   - force: select every address with `I2C_SLAVE_FORCE` (needed when a kernel driver owns the chip).
    ///     Without it, an address that gives `EBUSY` is forced anyway and reported in `forcedAddresses`.
    ///   - retries: extra attempts after a transient error, default 2; negative values count as 0.
    /// - Throws: `BusError` with kind `.noSuchBus` (ENOENT/ENODEV), `.permissionDenied` (EACCES/EPERM, whose
    ///   description gives the `i2c` group hint), or the errno's kind when `I2C_FUNCS` fails (ENOTTY: not an
    ///   i2c-dev node).
    public init(path: String, force: Bool = false, retries: Int = 2) throws(BusError) {
        self.name = path
        self.forcesAddresses = force
        self.retries = max(0, retries)
        let opened: Int32
        switch Syscalls.open(path, O_RDWR | O_CLOEXEC) {
        case .success(let d): opened = d
        case .failure(let e):
            throw BusError(
                kind: BusError.kind(forErrno: e.rawValue), bus: path, errno: e.rawValue,
                operation: "open: \(e)")
        }
        switch Syscalls.i2cFunctionality(opened) {
        case .success(let mask):
            self.fd = opened
            self.functionality = I2CFunctionality(rawValue: mask)
        case .failure(let e):
            _ = Syscalls.close(opened)
            let hint = e.rawValue == ENOTTY ? ": not an i2c-dev device" : ""
            throw BusError(
                kind: BusError.kind(forErrno: e.rawValue), bus: path, errno: e.rawValue,
                operation: "ioctl I2C_FUNCS: \(e)\(hint)")
        }
    }

    deinit { _ = Syscalls.close(fd) }

    /// One line per forced address, for diagnostics: what was forced and why it matters.
    public var notes: [String] {
        forcedAddresses.sorted().map {
            "\(name) address \(hex($0)) is claimed by a kernel driver (I2C_SLAVE gave EBUSY); using I2C_SLAVE_FORCE, "
                + "so transfers race with that driver: unbind it or read the chip through IIO instead"
        }
    }

    /// The `/dev/i2c-N` nodes in `directory`, sorted by bus number (`i2c-2` before `i2c-10`).
    /// An unreadable or missing directory gives an empty list.
    public static func availableBuses(in directory: String = "/dev") -> [String] {
        guard case .success(let names) = Syscalls.listDirectory(directory) else { return [] }
        let numbered: [(Int, String)] = names.compactMap { name in
            guard name.hasPrefix("i2c-") else { return nil }
            let digits = name.dropFirst(4)
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(digits) else { return nil }
            return (n, name)
        }
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        return numbered.sorted { $0.0 < $1.0 }.map { prefix + $0.1 }
    }

    // MARK: RegisterBus

    /// Reads `buffer.count` bytes starting at `register` (see the type's table for the transfer used).
    ///
    /// Reads longer than 32 bytes on an adapter without `I2C_FUNC_I2C` are split into 32-byte I2C block reads
    /// at `register`, `register + 32`, …: this assumes the chip auto-increments its register pointer (true for
    /// the register files of the supported chips; ST parts need bit 7 of the register set, which their drivers
    /// do). A FIFO read-out register cannot be read that way: drivers drain FIFOs with `readFIFO(address:register:
    /// frameBytes:into:)`, which keeps every piece within `maximumReadBytes` and restarts it at the FIFO register. A
    /// split read that would pass register 0xFF throws `.unsupported`. A count mismatch from the adapter throws `.io`
    /// (EIO).
    public func read(address: UInt8, register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(BusError) {
        let count = buffer.count
        guard count > 0 else { return }
        let fd = self.fd
        switch readStrategy(count: count) {
        case .byteData:
            try transfer(address: address, register: register, .readByteData) {
                Syscalls.smbusReadByteData(fd, register).map { buffer[0] = $0 }
            }
        case .i2cBlock:
            try readBlock(address: address, register: register, into: buffer)
        case .combined:
            try transfer(address: address, register: register, .readCombined(count)) {
                Syscalls.i2cWriteRead(fd, address, register, buffer)
            }
        case .chunkedI2CBlock:
            guard Int(register) + count - 1 <= 0xFF else {
                throw unsupported(address, register, "read \(count) bytes: split I2C block reads would pass register 0xFF")
            }
            var offset = 0
            while offset < count {
                let n = min(Self.smbusBlockMaximumBytes, count - offset)
                let chunk = UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<offset + n])
                try readBlock(address: address, register: register &+ UInt8(truncatingIfNeeded: offset), into: chunk)
                offset += n
            }
        case .none:
            throw unsupported(
                address, register,
                "read \(count) bytes: adapter has neither the SMBus transfer nor I2C_FUNC_I2C"
                    + (count > Self.rdwrMessageMaximumBytes ? " (or the read exceeds 8192 bytes)" : ""))
        }
    }

    /// Writes `bytes` starting at `register` (see the type's table). Zero bytes send `register` alone as a
    /// command (`i2c_smbus_write_byte`, or a one-byte `I2C_RDWR` message without `I2C_FUNC_SMBUS_WRITE_BYTE`).
    /// Writes longer than 32 bytes without `I2C_FUNC_I2C` are split like reads (auto-increment assumed).
    public func write(address: UInt8, register: UInt8, bytes: UnsafeRawBufferPointer) throws(BusError) {
        let count = bytes.count
        let fd = self.fd
        if count == 0 {
            try sendCommand(address: address, register)
        } else if count == 1 && functionality.contains(.smbusWriteByteData) {
            let value = bytes[0]
            try transfer(address: address, register: register, .writeByteData) {
                Syscalls.smbusWriteByteData(fd, register, value)
            }
        } else if count <= Self.smbusBlockMaximumBytes && functionality.contains(.smbusWriteI2CBlock) {
            try transfer(address: address, register: register, .writeI2CBlock(count)) {
                Syscalls.smbusWriteI2CBlock(fd, register, bytes)
            }
        } else if functionality.contains(.i2c) && count < Self.rdwrMessageMaximumBytes {
            // One message: register pointer, then the data. Stack storage for the common short case.
            try withTemporaryBytes(byteCount: count + 1, alignment: 1) { (message) throws(BusError) in
                message[0] = register
                UnsafeMutableRawBufferPointer(rebasing: message[1...]).copyMemory(from: bytes)
                try transfer(address: address, register: register, .writeMessage(count)) {
                    Syscalls.i2cWriteMessage(fd, address, message)
                }
            }
        } else if functionality.contains(.smbusWriteI2CBlock) {
            guard Int(register) + count - 1 <= 0xFF else {
                throw unsupported(address, register, "write \(count) bytes: split I2C block writes would pass register 0xFF")
            }
            var offset = 0
            while offset < count {
                let n = min(Self.smbusBlockMaximumBytes, count - offset)
                let chunk = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + n])
                let chunkRegister = register &+ UInt8(truncatingIfNeeded: offset)
                try transfer(address: address, register: chunkRegister, .writeI2CBlock(n)) {
                    Syscalls.smbusWriteI2CBlock(fd, chunkRegister, chunk)
                }
                offset += n
            }
        } else {
            throw unsupported(address, register, "write \(count) bytes: adapter has neither the SMBus transfer nor I2C_FUNC_I2C")
        }
    }

    /// Sends `command` alone: SMBus send byte when the adapter has it, else a one-byte `I2C_RDWR` message.
    private func sendCommand(address: UInt8, _ command: UInt8) throws(BusError) {
        let fd = self.fd
        if functionality.contains(.smbusWriteByte) {
            try transfer(address: address, register: command, .sendByte) { Syscalls.smbusWriteByte(fd, command) }
        } else if functionality.contains(.i2c) {
            try withTemporaryBytes(byteCount: 1, alignment: 1) { (message) throws(BusError) in
                message[0] = command
                try transfer(address: address, register: command, .sendByteMessage) {
                    Syscalls.i2cWriteMessage(fd, address, message)
                }
            }
        } else {
            throw unsupported(address, command, "send command byte: adapter has neither SMBus send byte nor I2C_FUNC_I2C")
        }
    }

    /// The longest read made as one transaction: 8192 bytes with `I2C_FUNC_I2C` (one `I2C_RDWR`), else 32 (one
    /// SMBus I2C block read), else 1.
    public var maximumReadBytes: Int {
        if functionality.contains(.i2c) { return Self.rdwrMessageMaximumBytes }
        return functionality.contains(.smbusReadI2CBlock) ? Self.smbusBlockMaximumBytes : 1
    }

    /// True if a chip answers at `address`, probed as `i2cdetect` does by default: SMBus receive byte for
    /// 0x30–0x37 and 0x50–0x5F (EEPROMs and some chips can be corrupted by a quick write there), SMBus quick
    /// write elsewhere. No register is written. An address claimed by a kernel driver (`EBUSY`, i2cdetect's
    /// "UU") counts as present. Addresses outside 0x03–0x77 are reserved and give `false`.
    public func isPresent(address: UInt8) -> Bool {
        guard (0x03...0x77).contains(address) else { return false }
        let force = forcesAddresses
        switch Syscalls.i2cSetAddress(fd, address, force: force) {
        case .success: selectedAddress = address
        case .failure(let e):
            selectedAddress = nil
            return e.rawValue == EBUSY
        }
        let readRange = (0x30...0x37).contains(address) || (0x50...0x5F).contains(address)
        let useReceiveByte =
            functionality.contains(.smbusReadByte)
            && (readRange || !functionality.contains(.smbusQuick))
        if useReceiveByte {
            if case .success = Syscalls.smbusReceiveByte(fd) { return true }
            return false
        }
        guard functionality.contains(.smbusQuick) else { return false }
        if case .success = Syscalls.smbusQuickWrite(fd) { return true }
        return false
    }

    // MARK: internals

    /// What a transfer was, for the `operation` of an error (formatted only when an error is thrown).
    enum Transfer {
        case selectAddress(force: Bool)
        case readByteData
        case readI2CBlock(Int)
        case shortRead(got: Int, wanted: Int)
        case readCombined(Int)
        case writeByteData
        case writeI2CBlock(Int)
        case writeMessage(Int)
        case sendByte
        case sendByteMessage

        var description: String {
            switch self {
            case .selectAddress(let force): force ? "ioctl I2C_SLAVE_FORCE" : "ioctl I2C_SLAVE"
            case .readByteData: "read 1 byte (i2c_smbus_read_byte_data)"
            case .readI2CBlock(let n): "read \(n) bytes (i2c_smbus_read_i2c_block_data)"
            case let .shortRead(got, wanted):
                "read \(wanted) bytes (i2c_smbus_read_i2c_block_data): adapter returned \(got) bytes"
            case .readCombined(let n): "read \(n) bytes (ioctl I2C_RDWR)"
            case .writeByteData: "write 1 byte (i2c_smbus_write_byte_data)"
            case .writeI2CBlock(let n): "write \(n) bytes (i2c_smbus_write_i2c_block_data)"
            case .writeMessage(let n): "write \(n) bytes (ioctl I2C_RDWR)"
            case .sendByte: "send command byte (i2c_smbus_write_byte)"
            case .sendByteMessage: "send command byte (ioctl I2C_RDWR)"
            }
        }
    }

    enum ReadStrategy { case byteData, i2cBlock, combined, chunkedI2CBlock }

    /// The transfer for a read of `count` bytes on this adapter; `nil` when it has none.
    @inline(__always)
    func readStrategy(count: Int) -> ReadStrategy? {
        let hasI2C = functionality.contains(.i2c) && count <= Self.rdwrMessageMaximumBytes
        if count == 1 && functionality.contains(.smbusReadByteData) { return .byteData }
        if count <= Self.smbusBlockMaximumBytes {
            if functionality.contains(.smbusReadI2CBlock) { return .i2cBlock }
            return hasI2C ? .combined : nil
        }
        if hasI2C { return .combined }
        return functionality.contains(.smbusReadI2CBlock) ? .chunkedI2CBlock : nil
    }

    /// One I2C block read of ≤ 32 bytes whose count is checked.
    @inline(__always)
    private func readBlock(address: UInt8, register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(BusError) {
        let fd = self.fd
        let wanted = buffer.count
        try transfer(address: address, register: register, .readI2CBlock(wanted)) { () -> Result<Void, TransferFailure> in
            switch Syscalls.smbusReadI2CBlock(fd, register, buffer) {
            case .success(let got):
                return got == wanted ? .success(()) : .failure(TransferFailure(.io, .shortRead(got: got, wanted: wanted)))
            case .failure(let e): return .failure(TransferFailure(e, .readI2CBlock(wanted)))
            }
        }
    }

    struct TransferFailure: Error {
        var errno: Errno
        var transfer: Transfer
        init(_ errno: Errno, _ transfer: Transfer) { self.errno = errno; self.transfer = transfer }
    }

    /// Selects `address`, runs `body`, and retries transient failures up to `retries` times.
    @inline(__always)
    private func transfer(
        address: UInt8, register: UInt8, _ kind: Transfer,
        _ body: () -> Result<Void, Errno>
    ) throws(BusError) {
        try transfer(address: address, register: register, kind) { () -> Result<Void, TransferFailure> in
            body().mapError { TransferFailure($0, kind) }
        }
    }

    @inline(__always)
    private func transfer(
        address: UInt8, register: UInt8, _ kind: Transfer,
        _ body: () -> Result<Void, TransferFailure>
    ) throws(BusError) {
        var attemptsLeft = retries
        while true {
            try select(address, register: register)
            switch body() {
            case .success: return
            case .failure(let failure):
                let error = BusError(
                    kind: BusError.kind(forErrno: failure.errno.rawValue), bus: name, address: address,
                    register: register, errno: failure.errno.rawValue,
                    operation: failure.transfer.description)
                guard error.isTransient, attemptsLeft > 0 else { throw error }
                attemptsLeft -= 1
            }
        }
    }

    /// Points the descriptor at `address` unless it already is; falls back to `I2C_SLAVE_FORCE` on `EBUSY`.
    @inline(__always)
    private func select(_ address: UInt8, register: UInt8) throws(BusError) {
        if selectedAddress == address { return }
        guard address <= 0x7F else {
            throw BusError(
                kind: .other, bus: name, address: address, register: register, errno: EINVAL,
                operation: "select address: not a 7-bit I2C address")
        }
        let force = forcesAddresses || forcedAddresses.contains(address)
        var result = Syscalls.i2cSetAddress(fd, address, force: force)
        if !force, case .failure(let e) = result, e == .busy {
            result = Syscalls.i2cSetAddress(fd, address, force: true)
            if case .success = result { forcedAddresses.insert(address) }
        }
        switch result {
        case .success: selectedAddress = address
        case .failure(let e):
            selectedAddress = nil
            throw BusError(
                kind: BusError.kind(forErrno: e.rawValue), bus: name, address: address, register: register,
                errno: e.rawValue, operation: Transfer.selectAddress(force: force).description)
        }
    }

    private func unsupported(_ address: UInt8, _ register: UInt8, _ what: String) -> BusError {
        BusError(kind: .unsupported, bus: name, address: address, register: register, errno: EOPNOTSUPP, operation: what)
    }
}
