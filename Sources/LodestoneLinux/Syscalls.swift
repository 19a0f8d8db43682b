import CLodestoneLinux
#if canImport(Glibc)
    import Glibc
#endif

/// A Linux `errno` value, with the C library's text for it.
///
/// Values are the kernel's (`asm-generic/errno-base.h`, `asm-generic/errno.h`), e.g. 13 is `EACCES`.
public struct Errno: Error, Sendable, Hashable, CustomStringConvertible {
    /// The raw errno value; 0 means "the call failed without setting errno".
    public let rawValue: Int32

    /// Wraps a raw errno value.
    public init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// `strerror(3)` text, e.g. "Permission denied". glibc's strerror is thread-safe since 2.32 (Debian 12
    /// and Raspberry Pi OS bookworm ship 2.36): known errors are static strings, unknown ones a per-thread buffer.
    public var description: String {
        if rawValue == 0 { return "unknown error (errno not set)" }
        guard let text = strerror(rawValue) else { return "errno \(rawValue)" }
        return String(cString: text)
    }

    /// `EINTR`: interrupted by a signal before anything happened.
    public static let interrupted = Errno(EINTR)
    /// `ENOENT`: no such file or directory.
    public static let noSuchFile = Errno(ENOENT)
    /// `EACCES`: permission denied.
    public static let permissionDenied = Errno(EACCES)
    /// `EBUSY`: device or resource busy.
    public static let busy = Errno(EBUSY)
    /// `EIO`: input/output error.
    public static let io = Errno(EIO)
    /// `EINVAL`: invalid argument.
    public static let invalidArgument = Errno(EINVAL)
}

/// Every system call and C-library call with an errno convention goes through here: this file holds the only
/// `errno` read (`lodestone_errno()`) and the only EINTR retry loop (`Syscalls.call`), after swift-system's
/// `Internals/Syscalls.swift`. Wrappers are thin, typed and named after the C function or ioctl they wrap.
enum Syscalls {
    /// How a C function reports failure.
    enum FailureConvention {
        /// POSIX: returns -1 and sets `errno` (open, read, ioctl, …).
        case minusOneSetsErrno
        /// Returns `-errno` (libi2c's `i2c_smbus_*`, libiio's `iio_*`).
        case returnsNegatedErrno
        /// Returns 0 or the error number itself (`clock_nanosleep`, pthread-style).
        case returnsErrno
    }

    /// Runs `body` until it does not fail with `EINTR`, and turns the failure convention into a `Result`.
    /// The one EINTR loop of the package: a signal that arrives mid-call never surfaces as an error.
    @inline(__always)
    static func call<T: FixedWidthInteger>(
        _ convention: FailureConvention = .minusOneSetsErrno,
        retryOnInterrupt: Bool = true, _ body: () -> T
    ) -> Result<T, Errno> {
        while true {
            let result = body()
            let code: Int32
            switch convention {
            case .minusOneSetsErrno:
                guard result == -1 else { return .success(result) }
                code = lodestone_errno()
            case .returnsNegatedErrno:
                guard result < 0 else { return .success(result) }
                code = Int32(truncatingIfNeeded: 0 &- result)
            case .returnsErrno:
                guard result != 0 else { return .success(result) }
                code = Int32(truncatingIfNeeded: result)
            }
            if code == EINTR && retryOnInterrupt { continue }
            return .failure(Errno(code))
        }
    }

    /// For C functions that return NULL and set `errno` (`gzopen`, `iio_create_*_context`, `opendir`).
    /// Clears errno first so that a NULL without errno is reported as errno 0, not a stale value.
    @inline(__always)
    static func pointer<T>(_ body: () -> T?) -> Result<T, Errno> {
        lodestone_set_errno(0)
        if let value = body() { return .success(value) }
        return .failure(Errno(lodestone_errno()))
    }

    /// The current `errno`, for C libraries that report "see errno" through their own channel (zlib's
    /// `Z_ERRNO`). Read immediately after the failing call.
    @inline(__always)
    static func currentErrno() -> Errno { Errno(lodestone_errno()) }

    // MARK: files

    /// `open(2)`.
    static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Result<Int32, Errno> {
        path.withCString { p in call { Glibc.open(p, flags, mode) } }
    }

    /// `close(2)`. Never retried: on Linux the descriptor is released even when close reports EINTR, and a
    /// retry could close a descriptor another thread has just been given.
    static func close(_ fd: Int32) -> Result<Void, Errno> {
        call(retryOnInterrupt: false) { Glibc.close(fd) }.map { _ in () }
    }

    /// `read(2)` into `buffer`; returns the byte count (0 at end of file).
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        call { Glibc.read(fd, buffer.baseAddress, buffer.count) }
    }

    /// `write(2)` from `buffer`; returns the byte count written (may be short).
    static func write(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Result<Int, Errno> {
        call { Glibc.write(fd, buffer.baseAddress, buffer.count) }
    }

    /// `write(2)` until all of `buffer` is written (short writes continue where they stopped).
    static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Result<Void, Errno> {
        var offset = 0
        while offset < buffer.count {
            switch write(fd, UnsafeRawBufferPointer(rebasing: buffer[offset...])) {
            case .success(let n):
                // write(2) returns 0 only for a zero-length request; treat it as EIO rather than spin.
                if n <= 0 { return .failure(.io) }
                offset += n
            case .failure(let e): return .failure(e)
            }
        }
        return .success(())
    }

    /// `pwrite(2)` until all of `buffer` is written at `offset` (short writes continue where they stopped).
    static func pwriteAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, at offset: Int) -> Result<Void, Errno> {
        var done = 0
        while done < buffer.count {
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[done...])
            let position = off_t(offset + done)
            let written = call { Glibc.pwrite(fd, chunk.baseAddress, chunk.count, position) }
            switch written {
            case .success(let n):
                if n <= 0 { return .failure(.io) }
                done += n
            case .failure(let e): return .failure(e)
            }
        }
        return .success(())
    }

    /// `ftruncate(2)`.
    static func ftruncate(_ fd: Int32, _ length: Int) -> Result<Void, Errno> {
        call { Glibc.ftruncate(fd, off_t(length)) }.map { _ in () }
    }

    /// `fsync(2)`.
    static func fsync(_ fd: Int32) -> Result<Void, Errno> { call { Glibc.fsync(fd) }.map { _ in () } }

    /// `fchmod(2)`.
    static func fchmod(_ fd: Int32, _ mode: mode_t) -> Result<Void, Errno> {
        call { Glibc.fchmod(fd, mode) }.map { _ in () }
    }

    /// `rename(2)`: atomic replacement of `to` within one file system.
    static func rename(_ from: String, _ to: String) -> Result<Void, Errno> {
        from.withCString { f in to.withCString { t in call { Glibc.rename(f, t) } } }.map { _ in () }
    }

    /// `unlink(2)`.
    static func unlink(_ path: String) -> Result<Void, Errno> {
        path.withCString { p in call { Glibc.unlink(p) } }.map { _ in () }
    }

    /// The text of a small file such as a sysfs attribute (`open`, `read` until EOF or `maxBytes`, `close`).
    static func readSmallFile(_ path: String, maxBytes: Int = 4096) -> Result<String, Errno> {
        readFile(path, maxBytes: maxBytes).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The bytes of a file, at most `maxBytes` of them.
    static func readFile(_ path: String, maxBytes: Int) -> Result<[UInt8], Errno> {
        let fd: Int32
        switch open(path, O_RDONLY | O_CLOEXEC) {
        case .success(let d): fd = d
        case .failure(let e): return .failure(e)
        }
        defer { _ = close(fd) }
        var bytes: [UInt8] = []
        var failure: Errno?
        withUnsafeTemporaryAllocation(byteCount: maxBytes, alignment: 1) { buffer in
            var total = 0
            while total < maxBytes {
                switch read(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[total...])) {
                case .success(0): bytes = Array(buffer[..<total]); return
                case .success(let n): total += n
                case .failure(let e): failure = e; return
                }
            }
            bytes = Array(buffer[..<total])
        }
        if let failure { return .failure(failure) }
        return .success(bytes)
    }

    /// `readlink(2)`: where the symbolic link `path` points (e.g. `/proc/PID/fd/N` → `/dev/ttyUSB1`).
    static func readLink(_ path: String) -> Result<String, Errno> {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 4096) { buffer in
            guard let base = buffer.baseAddress else { return .failure(.invalidArgument) }
            let n = path.withCString { p in Glibc.readlink(p, base, 4096) }
            guard n >= 0 else { return .failure(currentErrno()) }
            return .success(
                String(decoding: UnsafeRawBufferPointer(start: base, count: n).bindMemory(to: UInt8.self), as: UTF8.self))
        }
    }

    /// `opendir(3)`/`readdir(3)`/`closedir(3)`: the names in `path`, without `.` and `..`.
    static func listDirectory(_ path: String) -> Result<[String], Errno> {
        let opened = path.withCString { p in pointer { opendir(p) } }
        guard case .success(let dir) = opened else {
            if case .failure(let e) = opened { return .failure(e) }
            return .failure(.io)
        }
        defer { closedir(dir) }
        var names: [String] = []
        while true {
            // readdir returns NULL both at the end and on error; only errno tells them apart.
            lodestone_set_errno(0)
            guard let entry = readdir(dir) else {
                let e = lodestone_errno()
                return e == 0 ? .success(names) : .failure(Errno(e))
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }

    // MARK: time

    /// `clock_gettime(CLOCK_MONOTONIC)`, which cannot fail for a valid clock and pointer.
    static func monotonicNow() -> timespec {
        var ts = timespec()
        _ = clock_gettime(CLOCK_MONOTONIC, &ts)
        return ts
    }

    /// `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, deadline)`. With an absolute deadline, retrying the very
    /// same call after EINTR sleeps exactly the remainder, so the one EINTR loop serves here too.
    static func sleep(until deadline: timespec) -> Result<Void, Errno> {
        var d = deadline
        return call(.returnsErrno) { clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &d, nil) }.map { _ in () }
    }

    // MARK: terminals

    /// `poll(2)` with no wait: true when `fd` reports a hang-up or an error (a serial device gone).
    static func hungUp(_ fd: Int32) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard case .success(let n) = call(.minusOneSetsErrno, { poll(&p, 1, 0) }), n > 0 else { return false }
        return p.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
    }

    /// `isatty(3)`.
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// `ioctl(fd, TIOCGWINSZ)`: the terminal width in columns.
    static func terminalColumns(_ fd: Int32) -> Result<Int, Errno> {
        var columns: UInt16 = 0
        return call { lodestone_terminal_columns(fd, &columns) }.map { _ in Int(columns) }
    }

    /// `ioctl(fd, TIOCGWINSZ)`: the terminal's rows and columns.
    static func terminalSize(_ fd: Int32) -> Result<(rows: Int, columns: Int), Errno> {
        var rows: UInt16 = 0
        var columns: UInt16 = 0
        return call { lodestone_terminal_size(fd, &rows, &columns) }.map { _ in (Int(rows), Int(columns)) }
    }

    // MARK: I2C (i2c-dev ioctls and libi2c)

    /// `ioctl(fd, I2C_SLAVE)` or `ioctl(fd, I2C_SLAVE_FORCE)`.
    @inline(__always)
    static func i2cSetAddress(_ fd: Int32, _ address: UInt8, force: Bool) -> Result<Void, Errno> {
        call { lodestone_i2c_set_address(fd, UInt32(address), force ? 1 : 0) }.map { _ in () }
    }

    /// `ioctl(fd, I2C_FUNCS)`: the adapter's `I2C_FUNC_*` mask.
    static func i2cFunctionality(_ fd: Int32) -> Result<UInt, Errno> {
        var mask: UInt = 0
        return call { lodestone_i2c_funcs(fd, &mask) }.map { _ in mask }
    }

    /// `ioctl(fd, I2C_RDWR)` with a register-pointer write and a read of `buffer.count` (≤ 8192) bytes.
    @inline(__always)
    static func i2cWriteRead(
        _ fd: Int32, _ address: UInt8, _ register: UInt8,
        _ buffer: UnsafeMutableRawBufferPointer
    ) -> Result<Void, Errno> {
        guard let base = buffer.baseAddress else { return .success(()) }
        return call {
            lodestone_i2c_write_read(
                fd, UInt16(address), register, base.assumingMemoryBound(to: UInt8.self),
                UInt16(truncatingIfNeeded: buffer.count))
        }.map { _ in () }
    }

    /// `ioctl(fd, I2C_RDWR)` with one write message of `buffer.count` (≤ 8192) bytes.
    static func i2cWriteMessage(_ fd: Int32, _ address: UInt8, _ buffer: UnsafeMutableRawBufferPointer) -> Result<Void, Errno> {
        guard let base = buffer.baseAddress else { return .success(()) }
        return call {
            lodestone_i2c_write_message(
                fd, UInt16(address), base.assumingMemoryBound(to: UInt8.self),
                UInt16(truncatingIfNeeded: buffer.count))
        }.map { _ in () }
    }

    /// `i2c_smbus_read_byte_data` (SMBus "read byte data": register pointer write, repeated start, 1 byte).
    @inline(__always)
    static func smbusReadByteData(_ fd: Int32, _ register: UInt8) -> Result<UInt8, Errno> {
        call(.returnsNegatedErrno) { i2c_smbus_read_byte_data(fd, register) }.map { UInt8(truncatingIfNeeded: $0) }
    }

    /// `i2c_smbus_read_i2c_block_data` (`I2C_SMBUS_I2C_BLOCK_DATA`, ≤ 32 bytes); returns the count the
    /// adapter delivered.
    @inline(__always)
    static func smbusReadI2CBlock(_ fd: Int32, _ register: UInt8, _ buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        guard let base = buffer.baseAddress else { return .success(0) }
        return call(.returnsNegatedErrno) {
            i2c_smbus_read_i2c_block_data(
                fd, register, UInt8(truncatingIfNeeded: buffer.count),
                base.assumingMemoryBound(to: UInt8.self))
        }.map { Int($0) }
    }

    /// `i2c_smbus_write_byte_data`.
    @inline(__always)
    static func smbusWriteByteData(_ fd: Int32, _ register: UInt8, _ value: UInt8) -> Result<Void, Errno> {
        call(.returnsNegatedErrno) { i2c_smbus_write_byte_data(fd, register, value) }.map { _ in () }
    }

    /// `i2c_smbus_write_i2c_block_data` (≤ 32 bytes after the register).
    @inline(__always)
    static func smbusWriteI2CBlock(_ fd: Int32, _ register: UInt8, _ bytes: UnsafeRawBufferPointer) -> Result<Void, Errno> {
        guard let base = bytes.baseAddress else { return .success(()) }
        return call(.returnsNegatedErrno) {
            i2c_smbus_write_i2c_block_data(
                fd, register, UInt8(truncatingIfNeeded: bytes.count),
                base.assumingMemoryBound(to: UInt8.self))
        }.map { _ in () }
    }

    /// `i2c_smbus_write_byte`: sets the chip's register pointer without writing a register.
    static func smbusWriteByte(_ fd: Int32, _ value: UInt8) -> Result<Void, Errno> {
        call(.returnsNegatedErrno) { i2c_smbus_write_byte(fd, value) }.map { _ in () }
    }

    /// `i2c_smbus_write_quick(fd, I2C_SMBUS_WRITE)`: address + write bit, no data (i2cdetect's default probe).
    static func smbusQuickWrite(_ fd: Int32) -> Result<Void, Errno> {
        call(.returnsNegatedErrno) { i2c_smbus_write_quick(fd, UInt8(I2C_SMBUS_WRITE)) }.map { _ in () }
    }

    // MARK: SPI (spidev ioctls)

    /// `ioctl(fd, SPI_IOC_MESSAGE(count))` with `count` (1 or 2) transfers; returns the bytes transferred.
    @inline(__always)
    static func spiMessage(_ fd: Int32, _ transfers: UnsafeMutablePointer<spi_ioc_transfer>, count: Int) -> Result<Int, Errno> {
        call { lodestone_spi_message(fd, transfers, UInt32(count)) }.map { Int($0) }
    }

    /// `ioctl(fd, SPI_IOC_WR_MODE)`.
    static func spiSetMode(_ fd: Int32, _ mode: UInt8) -> Result<Void, Errno> {
        call { lodestone_spi_set_mode(fd, mode) }.map { _ in () }
    }

    /// `ioctl(fd, SPI_IOC_RD_MODE)`.
    static func spiMode(_ fd: Int32) -> Result<UInt8, Errno> {
        var mode: UInt8 = 0
        return call { lodestone_spi_get_mode(fd, &mode) }.map { _ in mode }
    }

    /// `ioctl(fd, SPI_IOC_WR_BITS_PER_WORD)`.
    static func spiSetBitsPerWord(_ fd: Int32, _ bits: UInt8) -> Result<Void, Errno> {
        call { lodestone_spi_set_bits_per_word(fd, bits) }.map { _ in () }
    }

    /// `ioctl(fd, SPI_IOC_WR_MAX_SPEED_HZ)`.
    static func spiSetMaxSpeed(_ fd: Int32, _ hz: UInt32) -> Result<Void, Errno> {
        call { lodestone_spi_set_max_speed(fd, hz) }.map { _ in () }
    }

    /// `ioctl(fd, SPI_IOC_RD_MAX_SPEED_HZ)`.
    static func spiMaxSpeed(_ fd: Int32) -> Result<UInt32, Errno> {
        var hz: UInt32 = 0
        return call { lodestone_spi_get_max_speed(fd, &hz) }.map { _ in hz }
    }

    /// `i2c_smbus_read_byte` (SMBus "receive byte": no register pointer write).
    static func smbusReceiveByte(_ fd: Int32) -> Result<UInt8, Errno> {
        call(.returnsNegatedErrno) { i2c_smbus_read_byte(fd) }.map { UInt8(truncatingIfNeeded: $0) }
    }
}
