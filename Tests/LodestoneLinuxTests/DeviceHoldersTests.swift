import Foundation
@testable import LodestoneLinux
import Testing

/// Who holds a device (`/proc/*/fd`), and the one line that says so with what to do: iio-sensor-proxy holding an IIO
/// device's buffer, ModemManager or gpsd holding a GNSS port.
@Suite struct DeviceHoldersTests {
    /// A proc tree of the real shape: `PID/comm`, `PID/cmdline` (NUL-separated) and `PID/fd/N` symbolic links.
    static func fakeProc(_ processes: [(pid: Int, comm: String, cmdline: [String], fds: [String])]) throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lodestone-proc-\(getpid())-\(UUID().uuidString)")
        for p in processes {
            let dir = root.appendingPathComponent("\(p.pid)")
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("fd"), withIntermediateDirectories: true)
            try (p.comm + "\n").write(to: dir.appendingPathComponent("comm"), atomically: true, encoding: .utf8)
            try Data(p.cmdline.map { Array($0.utf8) + [0] }.joined()).write(to: dir.appendingPathComponent("cmdline"))
            for (n, target) in p.fds.enumerated() {
                try FileManager.default.createSymbolicLink(
                    atPath: dir.appendingPathComponent("fd/\(n)").path, withDestinationPath: target)
            }
        }
        // entries that are not processes are skipped
        try "x".write(to: root.appendingPathComponent("uptime"), atomically: true, encoding: .utf8)
        return root.path
    }

    @Test func iioSensorProxyIsNamedInFullAndTheLineSaysWhatToDo() throws {
        let proc = try Self.fakeProc([
            (1, "systemd", ["/sbin/init"], ["/dev/null"]),
            (
                812, "iio-sensor-prox", ["/usr/libexec/iio-sensor-proxy"],
                ["/dev/null", "/dev/iio:device2", "anon_inode:iio:buffer"]
            ),
            (900, "phosh", ["/usr/libexec/phosh"], ["/dev/iio:device3"])
        ])
        let look = DeviceHolders.look(for: "/dev/iio:device2", procRoot: proc, excludingPID: nil)
        #expect(look.holders == [DeviceHolder(pid: 812, name: "iio-sensor-proxy")])
        let line = DeviceHolders.iioBusyAdvice(look, bufferEnabled: true)
        #expect(line.hasPrefix("iio-sensor-proxy (pid 812) holds its buffer"))
        #expect(line.contains("sudo systemctl stop iio-sensor-proxy"))
        #expect(!line.contains("\n"))
        // another holder is named as it is, with no iio-sensor-proxy advice
        let other = DeviceHolders.iioBusyAdvice(
            DeviceHolders.look(for: "/dev/iio:device3", procRoot: proc, excludingPID: nil), bufferEnabled: true)
        #expect(other == "phosh (pid 900) holds it with its buffer enabled: stop that program and try again")
    }

    @Test func nobodyVisibleStillSaysWhatToDo() throws {
        let proc = try Self.fakeProc([(1, "systemd", ["/sbin/init"], ["/dev/null"])])
        let look = DeviceHolders.look(for: "/dev/iio:device0", procRoot: proc, excludingPID: nil)
        #expect(look.holders.isEmpty)
        #expect(
            DeviceHolders.iioBusyAdvice(look, bufferEnabled: true).contains("'sudo systemctl stop iio-sensor-proxy' frees it"))
        let unseen = DeviceHolders.Look(holders: [], unreadableProcessCount: 3)
        #expect(DeviceHolders.iioBusyAdvice(unseen, bufferEnabled: nil).contains("run as root to name it"))
    }

    @Test func modemManagerOnTheGNSSPortGetsTheUdevRuleOrTheModemManagerSource() throws {
        let proc = try Self.fakeProc([
            (640, "ModemManager", ["/usr/sbin/ModemManager"], ["/dev/ttyUSB2", "/dev/ttyUSB1"]),
            (700, "gpsd", ["/usr/sbin/gpsd", "-N", "/dev/ttyAMA0"], ["/dev/ttyAMA0"])
        ])
        let mm = DeviceHolders.serialBusyAdvice(
            DeviceHolders.look(for: "/dev/ttyUSB1", procRoot: proc, excludingPID: nil), path: "/dev/ttyUSB1")
        #expect(mm.hasPrefix("busy: held by ModemManager (pid 640): "))
        #expect(mm.contains("ENV{ID_MM_DEVICE_IGNORE}=\"1\""))
        #expect(mm.contains("chip \"modemmanager\""))
        let gpsd = DeviceHolders.serialBusyAdvice(
            DeviceHolders.look(for: "/dev/ttyAMA0", procRoot: proc, excludingPID: nil), path: "/dev/ttyAMA0")
        #expect(gpsd.hasPrefix("busy: held by gpsd (pid 700): read it through gpsd instead"))
        // the error's line carries it
        var error = SerialPortError(kind: .busy, path: "/dev/ttyUSB1", operation: "open", errno: 16)
        error.holders = DeviceHolders.look(for: "/dev/ttyUSB1", procRoot: proc, excludingPID: nil)
        #expect(error.description.hasPrefix("/dev/ttyUSB1: busy: held by ModemManager (pid 640)"))
    }

    /// The real /proc: this process, holding a file open, is found by its pid and its own name; and left out by default.
    @Test func theRealProcFindsThisProcess() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lodestone-held-\(getpid())").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8)))
        let handle = try #require(FileHandle(forReadingAtPath: path))
        defer { try? handle.close(); try? FileManager.default.removeItem(atPath: path) }
        let look = DeviceHolders.look(for: path, excludingPID: nil)
        #expect(look.holders.map(\.pid) == [getpid()])
        let comm = try String(contentsOfFile: "/proc/self/comm", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(look.holders.first.map { $0.name.hasPrefix(comm) } == true)
        #expect(DeviceHolders.look(for: path).holders.isEmpty)
    }
}
