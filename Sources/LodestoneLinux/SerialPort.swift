import CLodestoneLinux
#if canImport(Glibc)
    import Glibc
#endif

/// A serial port (a UART, a USB-serial adapter, a pseudo-terminal) in raw mode through termios(3), read without
/// blocking: the way a GNSS receiver is reached on a Linux board (`/dev/ttyS0`, `/dev/ttyAMA0`, `/dev/ttyUSB0`,
/// `/dev/ttyACM0`).
///
/// The line is set to raw 8N1 (`cfmakeraw`), no modem control (`CLOCAL`), receiver on (`CREAD`), no flow
/// control, at the requested baud rate for both directions. Reads never block (`O_NONBLOCK`, `VMIN = 0`,
/// `VTIME = 0`): `read` returns what has arrived, possibly nothing, possibly half a sentence.
///
/// A port that disappears (a USB adapter unplugged: `EIO`, `ENXIO`, `ENODEV`, or a hang-up) is reported as
/// `SerialPortError.Kind.gone`; the owner closes it and opens the path again later.
public final class SerialPort {
    /// The device path.
    public let path: String
    /// The line speed, bit/s.
    public let baudRate: Int
    private var fd: Int32

    /// The baud rates termios can set (`<termios.h>` `B50` … `B4000000`), bit/s.
    public static let supportedBaudRates = [
        50, 75, 110, 134, 150, 200, 300, 600, 1200, 1800, 2400, 4800, 9600, 19200,
        38400, 57600, 115200, 230400, 460800, 500000, 576000, 921600, 1000000,
        1152000, 1500000, 2000000, 2500000, 3000000, 3500000, 4000000
    ]

    /// The termios speed constant for `baudRate`, or nil when termios has none.
    static func speed(_ baudRate: Int) -> speed_t? {
        switch baudRate {
        case 50: speed_t(B50)
        case 75: speed_t(B75)
        case 110: speed_t(B110)
        case 134: speed_t(B134)
        case 150: speed_t(B150)
        case 200: speed_t(B200)
        case 300: speed_t(B300)
        case 600: speed_t(B600)
        case 1200: speed_t(B1200)
        case 1800: speed_t(B1800)
        case 2400: speed_t(B2400)
        case 4800: speed_t(B4800)
        case 9600: speed_t(B9600)
        case 19200: speed_t(B19200)
        case 38400: speed_t(B38400)
        case 57600: speed_t(B57600)
        case 115200: speed_t(B115200)
        case 230400: speed_t(B230400)
        case 460800: speed_t(B460800)
        case 500000: speed_t(B500000)
        case 576000: speed_t(B576000)
        case 921600: speed_t(B921600)
        case 1000000: speed_t(B1000000)
        case 1152000: speed_t(B1152000)
        case 1500000: speed_t(B1500000)
        case 2000000: speed_t(B2000000)
        case 2500000: speed_t(B2500000)
        case 3000000: speed_t(B3000000)
        case 3500000: speed_t(B3500000)
        case 4000000: speed_t(B4000000)
        default: nil
        }
    }

    /// Opens `path` and configures it: raw 8N1 at `baudRate`, non-blocking. Input already buffered is discarded.
    /// - Throws: `SerialPortError` naming the path, the step and the errno.
    public init(path: String, baudRate: Int) throws(SerialPortError) {
        self.path = path
        self.baudRate = baudRate
        guard let speed = Self.speed(baudRate) else {
            throw SerialPortError(kind: .unsupportedBaudRate, path: path, operation: "set \(baudRate) bit/s", errno: EINVAL)
        }
        switch Syscalls.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC) {
        case .success(let d): fd = d
        case .failure(let e):
            var error = SerialPortError(e, path: path, operation: "open")
            // EBUSY: a program opened it with TIOCEXCL (ModemManager, gpsd): name it and say what to do.
            if error.kind == .busy { error.holders = DeviceHolders.look(for: path) }
            throw error
        }
        var t = termios()
        if case .failure(let e) = Syscalls.call(.minusOneSetsErrno, { tcgetattr(fd, &t) }) {
            _ = Syscalls.close(fd)
            throw SerialPortError(
                kind: e.rawValue == ENOTTY ? .notATerminal : SerialPortError.kind(e), path: path,
                operation: "tcgetattr", errno: e.rawValue)
        }
        cfmakeraw(&t)
        t.c_cflag |= tcflag_t(CLOCAL | CREAD)
        t.c_cflag &= ~(tcflag_t(CRTSCTS) | tcflag_t(CSTOPB))
        t.c_iflag &= ~tcflag_t(IXON | IXOFF | IXANY)
        withUnsafeMutableBytes(of: &t.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        _ = cfsetispeed(&t, speed)
        _ = cfsetospeed(&t, speed)
        if case .failure(let e) = Syscalls.call(.minusOneSetsErrno, { tcsetattr(fd, TCSANOW, &t) }) {
            _ = Syscalls.close(fd)
            throw SerialPortError(e, path: path, operation: "tcsetattr \(baudRate) bit/s 8N1 raw")
        }
        _ = Syscalls.call { tcflush(fd, TCIFLUSH) }
    }

    deinit { close() }

    /// True until `close()`.
    public var isOpen: Bool { fd >= 0 }

    /// The output speed the line is set to, read back with `tcgetattr`/`cfgetospeed`, bit/s.
    public func currentBaudRate() throws(SerialPortError) -> Int {
        var t = termios()
        if case .failure(let e) = Syscalls.call(.minusOneSetsErrno, { tcgetattr(fd, &t) }) {
            throw SerialPortError(e, path: path, operation: "tcgetattr")
        }
        let s = cfgetospeed(&t)
        return Self.supportedBaudRates.first { Self.speed($0) == s } ?? 0
    }

    /// Reads what has arrived into `buffer`, without waiting. Returns the byte count, 0 when nothing is there.
    /// - Throws: `.gone` when the device went away (unplugged, hung up), other kinds for other errors.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SerialPortError) -> Int {
        guard fd >= 0 else { throw SerialPortError(kind: .gone, path: path, operation: "read (port closed)", errno: EBADF) }
        switch Syscalls.read(fd, into: buffer) {
        case .success(let n) where n > 0:
            return n
        case .success, .failure(Errno(EAGAIN)):
            // Nothing to read; a tty also reads 0 bytes once hung up, which only poll(2) tells apart.
            if Syscalls.hungUp(fd) { throw SerialPortError(kind: .gone, path: path, operation: "read (hang-up)", errno: EIO) }
            return 0
        case .failure(let e):
            throw SerialPortError(e, path: path, operation: "read")
        }
    }

    /// Writes all of `bytes` (commands to the receiver).
    public func write(_ bytes: [UInt8]) throws(SerialPortError) {
        let r = bytes.withUnsafeBytes { Syscalls.writeAll(fd, $0) }
        if case .failure(let e) = r { throw SerialPortError(e, path: path, operation: "write \(bytes.count) bytes") }
    }

    /// Closes the port (idempotent).
    public func close() {
        if fd >= 0 { _ = Syscalls.close(fd); fd = -1 }
    }
}

/// A serial-port operation that failed: one line with the path, the step, what to do and the errno.
public struct SerialPortError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The device is not there (`ENOENT`) or went away (`EIO`, `ENXIO`, `ENODEV`): unplugged.
        case gone
        /// `EACCES`/`EPERM`.
        case permissionDenied
        /// `EBUSY`: another process holds it.
        case busy
        /// The path is not a terminal (`ENOTTY`).
        case notATerminal
        /// termios has no constant for the requested rate.
        case unsupportedBaudRate
        case other
    }
    public var kind: Kind
    public var path: String
    public var operation: String
    public var errno: Int32
    /// For `.busy`: who holds the port (`DeviceHolders`), when it was looked for.
    public var holders: DeviceHolders.Look?

    public init(kind: Kind, path: String, operation: String, errno: Int32) {
        self.kind = kind; self.path = path; self.operation = operation; self.errno = errno
    }

    init(_ e: Errno, path: String, operation: String) {
        self.init(kind: Self.kind(e), path: path, operation: operation, errno: e.rawValue)
    }

    static func kind(_ e: Errno) -> Kind {
        switch e.rawValue {
        case ENOENT, EIO, ENXIO, ENODEV: .gone
        case EACCES, EPERM: .permissionDenied
        case EBUSY: .busy
        case ENOTTY: .notATerminal
        default: .other
        }
    }

    public var description: String {
        let what: String =
            switch kind {
            case .gone: "no such device (unplugged?); check the cable and the path"
            case .permissionDenied:
                "permission denied: add the user to the dialout group (sudo usermod -aG dialout $USER) or run as root"
            case .busy:
                holders.map { DeviceHolders.serialBusyAdvice($0, path: path) }
                    ?? "busy: another program (gpsd, ModemManager) holds the port"
            case .notATerminal: "not a serial port (tcgetattr fails): give a tty device"
            case .unsupportedBaudRate:
                "unsupported baud rate; allowed: " + SerialPort.supportedBaudRates.map(String.init).joined(separator: ", ")
            case .other: "failed"
            }
        var s = "\(path): \(what) (\(operation))"
        if errno != 0 { s += ": \(Errno(errno).description) [errno \(errno)]" }
        return s
    }
}

/// A pseudo-terminal pair (`/dev/ptmx`, pty(7)): the master end behaves as a device writing into a serial
/// line, the slave (`/dev/pts/N`) as the serial port. Tests and the simulated receiver use it to drive
/// `SerialPort` and real daemons (gpsd) through the kernel's tty layer.
public final class PseudoTerminal {
    /// The master's descriptor.
    public let master: Int32
    /// The slave's path, to open as a serial port.
    public let slavePath: String

    /// Opens a new pair.
    public init() throws(SerialPortError) {
        let fd: Int32
        switch Syscalls.open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC) {
        case .success(let d): fd = d
        case .failure(let e): throw SerialPortError(e, path: "/dev/ptmx", operation: "open")
        }
        var number: UInt32 = 0
        if case .failure(let e) = Syscalls.call(.minusOneSetsErrno, { lodestone_pty_unlock(fd) }) {
            _ = Syscalls.close(fd)
            throw SerialPortError(e, path: "/dev/ptmx", operation: "ioctl TIOCSPTLCK")
        }
        if case .failure(let e) = Syscalls.call(.minusOneSetsErrno, { lodestone_pty_number(fd, &number) }) {
            _ = Syscalls.close(fd)
            throw SerialPortError(e, path: "/dev/ptmx", operation: "ioctl TIOCGPTN")
        }
        master = fd
        slavePath = "/dev/pts/\(number)"
    }

    /// Writes `bytes` into the line (they arrive at the slave).
    public func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Syscalls.writeAll(master, $0) }
    }

    /// Closes the master: the slave sees a hang-up, as when a USB adapter is unplugged.
    public func close() { _ = Syscalls.close(master) }
}
