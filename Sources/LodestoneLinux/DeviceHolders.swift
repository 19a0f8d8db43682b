#if canImport(Glibc)
    import Glibc
#endif

/// A process that holds a device file open.
public struct DeviceHolder: Sendable, Hashable {
    /// Its process id.
    public var pid: Int32
    /// Its name: `/proc/PID/comm` (which the kernel cuts to 15 bytes: `iio-sensor-prox`), completed from the
    /// command line when an argument's file name starts with it (`iio-sensor-proxy`, `ModemManager`).
    public var name: String

    /// A holder with that pid and name.
    public init(pid: Int32, name: String) { self.pid = pid; self.name = name }
}

/// Who holds a device open, found as `fuser` and `lsof` find it: every `/proc/PID/fd/N` that links to the device.
/// Used to say in one line which program keeps Lodestone from a device (iio-sensor-proxy holding an IIO device's
/// buffer, ModemManager or gpsd holding a GNSS receiver's serial port) and what to do.
public enum DeviceHolders {
    /// The result of a look: the holders found, and whether some processes' descriptors could not be read (another
    /// user's, without root), so that "nobody" is not claimed when nobody could be seen.
    public struct Look: Sendable, Hashable {
        /// The holders, by pid.
        public var holders: [DeviceHolder]
        /// Processes whose `fd` directory could not be listed (EACCES: another user's, and this one is not root).
        public var unreadableProcessCount: Int
    }

    /// The processes other than `excludingPID` with a descriptor open on `devicePath`.
    /// - Parameters:
    ///   - devicePath: the device file, e.g. `/dev/iio:device2`, `/dev/ttyUSB1`.
    ///   - procRoot: the proc file system (a directory tree of the same shape in tests).
    ///   - excludingPID: a process not to list (default: this one); `nil` lists all.
    public static func look(for devicePath: String, procRoot: String = "/proc", excludingPID: Int32? = getpid()) -> Look {
        var look = Look(holders: [], unreadableProcessCount: 0)
        guard case .success(let entries) = Syscalls.listDirectory(procRoot) else { return look }
        for entry in entries {
            guard let pid = Int32(entry), pid != excludingPID else { continue }
            let fdDirectory = "\(procRoot)/\(entry)/fd"
            switch Syscalls.listDirectory(fdDirectory) {
            case .failure(let e):
                if e.rawValue == EACCES || e.rawValue == EPERM { look.unreadableProcessCount += 1 }
            case .success(let fds):
                let holds = fds.contains { fd in
                    if case .success(let target) = Syscalls.readLink("\(fdDirectory)/\(fd)") { return target == devicePath }
                    return false
                }
                if holds { look.holders.append(DeviceHolder(pid: pid, name: name(of: entry, procRoot: procRoot))) }
            }
        }
        look.holders.sort { $0.pid < $1.pid }
        return look
    }

    /// The process's name: its `comm`, completed from the command line when the kernel cut it to 15 bytes.
    static func name(of pid: String, procRoot: String) -> String {
        let comm: String =
            if case .success(let text) = Syscalls.readSmallFile("\(procRoot)/\(pid)/comm") {
                String(Substring(text).trimmingWhitespace)
            } else { "" }
        guard comm.utf8.count >= 15, case .success(let bytes) = Syscalls.readFile("\(procRoot)/\(pid)/cmdline", maxBytes: 4096)
        else { return comm.isEmpty ? "pid \(pid)" : comm }
        for argument in bytes.split(separator: 0).prefix(3) {
            let file = String(decoding: argument, as: UTF8.self).split(separator: "/").last.map(String.init) ?? ""
            if file.hasPrefix(comm) { return file }
        }
        return comm
    }

    /// Whether `name` is iio-sensor-proxy (whose `comm` is cut to `iio-sensor-prox`).
    static func isIIOSensorProxy(_ name: String) -> Bool { name.hasPrefix("iio-sensor-prox") }
    /// Whether `name` is ModemManager.
    static func isModemManager(_ name: String) -> Bool { name == "ModemManager" }

    /// `NAME (pid N)`, `NAME (pid N) and NAME (pid M)`, …
    static func list(_ holders: [DeviceHolder]) -> String {
        let each = holders.map { "\($0.name) (pid \($0.pid))" }
        return each.count <= 1 ? each.joined() : each.dropLast().joined(separator: ", ") + " and " + (each.last ?? "")
    }

    /// One sentence for an IIO device that answered EBUSY: who holds it and what to do. For example:
    /// `iio-sensor-proxy (pid 812) holds its buffer: stop it with 'sudo systemctl stop iio-sensor-proxy' (…)`.
    /// - Parameters:
    ///   - look: who holds `/dev/iio:deviceN`.
    ///   - bufferEnabled: whether the device's `buffer/enable` reads 1 (`nil`: unknown).
    public static func iioBusyAdvice(_ look: Look, bufferEnabled: Bool?) -> String {
        let what = bufferEnabled == true ? "its buffer is enabled (a capture is running)" : "the device is in use"
        guard !look.holders.isEmpty else {
            let unseen =
                look.unreadableProcessCount > 0
                ? "by a process this user cannot see (run as root to name it)" : "by no process that has it open now"
            return "\(what), held \(unseen); on phones and laptops that is usually iio-sensor-proxy: "
                + "'sudo systemctl stop iio-sensor-proxy' frees it"
        }
        let who = list(look.holders)
        if look.holders.contains(where: { isIIOSensorProxy($0.name) }) {
            return "\(who) holds its buffer (for screen rotation or a client of net.hadess.SensorProxy): "
                + "stop it with 'sudo systemctl stop iio-sensor-proxy' ('sudo systemctl mask iio-sensor-proxy' keeps it "
                + "off), or give Lodestone another device"
        }
        return "\(who) holds it\(bufferEnabled == true ? " with its buffer enabled" : ""): stop "
            + "\(look.holders.count == 1 ? "that program" : "those programs") and try again"
    }

    /// One sentence for a serial port that is busy (EBUSY: a program opened it with TIOCEXCL) or shared: who holds it
    /// and what to do.
    public static func serialBusyAdvice(_ look: Look, path: String) -> String {
        guard !look.holders.isEmpty else {
            let unseen =
                look.unreadableProcessCount > 0
                ? "a process this user cannot see (run as root to name it)" : "another program (gpsd, ModemManager)"
            return "busy: held by \(unseen)"
        }
        let who = list(look.holders)
        if look.holders.contains(where: { isModemManager($0.name) }) {
            return "busy: held by \(who): have ModemManager leave it (a udev rule setting ENV{ID_MM_DEVICE_IGNORE}=\"1\" "
                + "for the port, as the package's rules do for known USB receivers; then replug or 'sudo udevadm trigger'), or "
                + "take GNSS from ModemManager instead (board file chip \"modemmanager\")"
        }
        if look.holders.contains(where: { $0.name == "gpsd" }) {
            return "busy: held by \(who): read it through gpsd instead (chip \"gpsd\", bus {\"gpsd\": \"127.0.0.1:2947\"}) "
                + "or stop gpsd ('sudo systemctl stop gpsd.socket gpsd')"
        }
        return "busy: held by \(who): stop \(look.holders.count == 1 ? "that program" : "those programs") and try again"
    }
}
