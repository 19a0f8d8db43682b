import CLodestoneLinux
import LodestoneCore
#if canImport(Glibc)
    import Glibc
#endif

/// The SPI settings of a chip select: clock mode, clock rate and word size.
public struct SPISettings: Sendable, Hashable {
    /// `SPI_MODE_0` … `SPI_MODE_3` (CPOL, CPHA). Default 3: every chip Lodestone drives on SPI accepts mode 3
    /// (InvenSense: 0 or 3; ST: 0 or 3, "CPOL = CPHA = 1" in their timing diagrams; ADXL345: 3; BMP280: 0 or 3).
    public var mode: UInt8
    /// Clock, Hz. Default 1 MHz: the MPU-9250's limit for register writes (PS-MPU-9250A-01 §7.5), within every
    /// other chip's (ADXL345 5 MHz, ST 10 MHz, ICM-20948 7 MHz, BMP280 10 MHz).
    public var speedHz: UInt32
    /// Bits per word, 8.
    public var bitsPerWord: UInt8

    public init(mode: UInt8 = 3, speedHz: UInt32 = 1_000_000, bitsPerWord: UInt8 = 8) {
        self.mode = mode; self.speedHz = speedHz; self.bitsPerWord = bitsPerWord
    }
}

/// A `RegisterBus` on one SPI chip select through the kernel's spidev (`/dev/spidevB.C`), with the register framing
/// of the chip there (`SPIRegisterFraming`: read flag and increment flag by chip family).
///
/// A read is one `SPI_IOC_MESSAGE(2)`: the command byte out, then `n` bytes in, chip select held throughout. A write
/// is one `SPI_IOC_MESSAGE(1)`: the command byte and the data. Drivers pass registers as on I2C, so they do not know
/// which bus they are on (`transport` says `.spi` for the few that must, such as the MPU-9250's magnetometer access).
/// spidev moves at most `maximumTransferBytes` (its `bufsiz` parameter, 4096 by default) per message, so a read is at
/// most `maximumReadBytes` (one byte less, for the command); longer reads are split, and FIFO drains
/// (`RegisterBus.readFIFO(address:register:frameBytes:into:)`) restart each piece at the FIFO register.
///
/// SPI has no acknowledge: a chip that is absent or gone reads as 0x00 or 0xFF and shows up as a wrong identity at
/// `probe()`, never as a NACK. Errors carry the device path, the register and the errno. The sample path makes no
/// heap allocation. Not thread-safe: one bus object belongs to one task (see `RegisterBus`).
public final class SPIDevBus: RegisterBus {
    /// The device path, e.g. `/dev/spidev0.1`.
    public let name: String
    /// How the chip here frames its register accesses.
    public let framing: SPIRegisterFraming
    /// The settings in effect, as read back from the driver after they were set.
    public let settings: SPISettings
    /// The longest message spidev accepts, bytes (`/sys/module/spidev/parameters/bufsiz`, else 4096).
    public let maximumTransferBytes: Int
    private let fd: Int32

    /// Opens `path`, sets `settings` and reads them back.
    /// - Throws: `BusError` `.noSuchBus` (ENOENT), `.permissionDenied` (EACCES), or the errno's kind when the mode,
    ///   word size or speed cannot be set (ENOTTY: not a spidev node; EINVAL: a mode the controller cannot do).
    public init(path: String, framing: SPIRegisterFraming, settings: SPISettings = SPISettings()) throws(BusError) {
        self.name = path
        self.framing = framing
        let opened: Int32
        switch Syscalls.open(path, O_RDWR | O_CLOEXEC) {
        case .success(let d): opened = d
        case .failure(let e):
            throw BusError(kind: BusError.kind(forErrno: e.rawValue), bus: path, errno: e.rawValue, operation: "open: \(e)")
        }
        func fail(_ e: Errno, _ what: String) -> BusError {
            _ = Syscalls.close(opened)
            let hint = e.rawValue == ENOTTY ? ": not a spidev device" : ""
            return BusError(
                kind: BusError.kind(forErrno: e.rawValue), bus: path, errno: e.rawValue, operation: "ioctl \(what): \(e)\(hint)")
        }
        if case .failure(let e) = Syscalls.spiSetMode(opened, settings.mode) { throw fail(e, "SPI_IOC_WR_MODE \(settings.mode)") }
        if case .failure(let e) = Syscalls.spiSetBitsPerWord(opened, settings.bitsPerWord) {
            throw fail(e, "SPI_IOC_WR_BITS_PER_WORD")
        }
        if case .failure(let e) = Syscalls.spiSetMaxSpeed(opened, settings.speedHz) {
            throw fail(e, "SPI_IOC_WR_MAX_SPEED_HZ \(settings.speedHz)")
        }
        let mode: UInt8, speed: UInt32
        switch Syscalls.spiMode(opened) {
        case .success(let m): mode = m
        case .failure(let e): throw fail(e, "SPI_IOC_RD_MODE")
        }
        switch Syscalls.spiMaxSpeed(opened) {
        case .success(let s): speed = s
        case .failure(let e): throw fail(e, "SPI_IOC_RD_MAX_SPEED_HZ")
        }
        self.fd = opened
        self.settings = SPISettings(mode: mode, speedHz: speed, bitsPerWord: settings.bitsPerWord)
        let bufsiz =
            (try? Syscalls.readSmallFile("/sys/module/spidev/parameters/bufsiz").get())
            .flatMap { Int($0.trimmingSpaces) } ?? 4096
        self.maximumTransferBytes = max(bufsiz, 2)
    }

    deinit { _ = Syscalls.close(fd) }

    /// The `/dev/spidev*` nodes in `directory`, sorted (`spidev0.0`, `spidev0.1`, `spidev1.0`, …).
    public static func availableBuses(in directory: String = "/dev") -> [String] {
        guard case .success(let names) = Syscalls.listDirectory(directory) else { return [] }
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        // spidevB.C, sorted by bus then chip select as numbers (spidev0.2 before spidev0.10).
        let numbered: [((Int, Int), String)] = names.compactMap { name in
            guard name.hasPrefix("spidev") else { return nil }
            let parts = name.dropFirst(6).split(separator: ".")
            guard parts.count == 2, let b = Int(parts[0]), let c = Int(parts[1]) else { return nil }
            return ((b, c), name)
        }
        return numbered.sorted { $0.0 < $1.0 }.map { prefix + $0.1 }
    }

    // MARK: RegisterBus

    /// SPI.
    public var transport: BusTransport { .spi }

    /// Always true: SPI cannot tell whether a chip is there (see the type).
    public func isPresent(address: UInt8) -> Bool { true }

    /// Reads `buffer.count` bytes from `register` on (see the type): one message, or pieces of `maximumReadBytes` at
    /// `register`, `register + n`, … (the chip's address auto-increment assumed, as on I2C).
    public func read(address: UInt8, register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(BusError) {
        let limit = maximumReadBytes
        var offset = 0
        while offset < buffer.count {
            let n = min(limit, buffer.count - offset)
            try readOnce(
                register: register &+ UInt8(truncatingIfNeeded: offset),
                into: UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<offset + n]))
            offset += n
        }
    }

    /// The longest read made as one message: spidev's buffer less the command byte.
    public var maximumReadBytes: Int { maximumTransferBytes - 1 }

    /// Writes `bytes` to `register` on in one message (command byte and data).
    public func write(address: UInt8, register: UInt8, bytes: UnsafeRawBufferPointer) throws(BusError) {
        guard bytes.count > 0 else { return }
        guard bytes.count < maximumTransferBytes else {
            throw BusError(
                kind: .unsupported, bus: name, register: register, errno: EMSGSIZE,
                operation: "write \(bytes.count) bytes: longer than spidev's \(maximumTransferBytes)-byte buffer")
        }
        let command = framing.commandByte(register: register, byteCount: bytes.count, isRead: false)
        let fd = self.fd, speedHz = settings.speedHz
        try withTemporaryBytes(byteCount: bytes.count + 1, alignment: 1) { (message) throws(BusError) in
            message[0] = command
            UnsafeMutableRawBufferPointer(rebasing: message[1...]).copyMemory(from: bytes)
            try withTemporaryBuffer(of: spi_ioc_transfer.self, capacity: 1) { (transfers) throws(BusError) in
                Self.fillWrite(transfers, message: UnsafeRawBufferPointer(message), speedHz: speedHz)
                try check(
                    Syscalls.spiMessage(fd, transfers.baseAddress!, count: 1), register: register,
                    operation: "SPI_IOC_MESSAGE(1) write \(bytes.count) byte\(bytes.count == 1 ? "" : "s")")
            }
        }
    }

    // MARK: Transfer encoding (internal for tests)

    /// The two transfers of a read: `command` out (1 byte), then `buffer.count` bytes in, at `speedHz`, 8-bit words,
    /// chip select held between them (`cs_change` 0).
    static func fillRead(
        _ transfers: UnsafeMutableBufferPointer<spi_ioc_transfer>, command: UnsafePointer<UInt8>,
        buffer: UnsafeMutableRawBufferPointer, speedHz: UInt32
    ) {
        transfers[0] = spi_ioc_transfer()
        transfers[0].tx_buf = UInt64(UInt(bitPattern: command))
        transfers[0].len = 1
        transfers[0].speed_hz = speedHz
        transfers[0].bits_per_word = 8
        transfers[1] = spi_ioc_transfer()
        transfers[1].rx_buf = UInt64(UInt(bitPattern: buffer.baseAddress))
        transfers[1].len = UInt32(buffer.count)
        transfers[1].speed_hz = speedHz
        transfers[1].bits_per_word = 8
    }

    /// The one transfer of a write: `message` (command byte and data) out.
    static func fillWrite(
        _ transfers: UnsafeMutableBufferPointer<spi_ioc_transfer>, message: UnsafeRawBufferPointer, speedHz: UInt32
    ) {
        transfers[0] = spi_ioc_transfer()
        transfers[0].tx_buf = UInt64(UInt(bitPattern: message.baseAddress))
        transfers[0].len = UInt32(message.count)
        transfers[0].speed_hz = speedHz
        transfers[0].bits_per_word = 8
    }

    // MARK: - private

    private func readOnce(register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(BusError) {
        var command = framing.commandByte(register: register, byteCount: buffer.count, isRead: true)
        let fd = self.fd, speedHz = settings.speedHz
        try withTemporaryBuffer(of: spi_ioc_transfer.self, capacity: 2) { (transfers) throws(BusError) in
            try withUnsafePointer(to: &command) { (commandPointer) throws(BusError) in
                Self.fillRead(transfers, command: commandPointer, buffer: buffer, speedHz: speedHz)
                try check(
                    Syscalls.spiMessage(fd, transfers.baseAddress!, count: 2), register: register,
                    operation: "SPI_IOC_MESSAGE(2) read \(buffer.count) byte\(buffer.count == 1 ? "" : "s")")
            }
        }
    }

    /// Turns a failed message into a `BusError` (the operation text is built only then).
    @inline(__always)
    private func check(_ result: Result<Int, Errno>, register: UInt8, operation: @autoclosure () -> String) throws(BusError) {
        if case .failure(let e) = result {
            throw BusError(
                kind: BusError.kind(forErrno: e.rawValue), bus: name, register: register, errno: e.rawValue,
                operation: operation())
        }
    }
}

private extension String {
    var trimmingSpaces: Substring {
        let s = self.drop { $0 == " " || $0 == "\n" }
        return s.dropLast(s.reversed().prefix { $0 == " " || $0 == "\n" }.count)
    }
}
