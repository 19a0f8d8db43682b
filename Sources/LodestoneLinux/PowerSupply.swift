#if canImport(Glibc)
    import Glibc
#endif

/// The kernel's power-supply class (`/sys/class/power_supply/<name>/uevent`): batteries, mains adapters and USB
/// ports as their drivers report them (Documentation/ABI/testing/sysfs-class-power in the kernel).
///
/// This only reads the files; `BatteryState(uevents:)` in LodestoneScheduler interprets them (a pure function, so
/// that it is tested on fixture text without a sysfs tree).
public enum PowerSupply {
    /// The default root of the class directory.
    public static let defaultRoot = "/sys/class/power_supply"

    /// The `uevent` text of every supply under `root`, keyed by supply name (`BAT0`, `AC`, `axp20x-battery`, …).
    ///
    /// A supply whose `uevent` cannot be read (a driver that vanished between listing and reading, a file without
    /// permission) is left out, so one broken supply does not hide the others; when *every* supply fails, the first
    /// failure is thrown. A board without any supply (no such directory, or an empty one) gives an empty
    /// dictionary: it runs from an external supply the kernel does not see, which `BatteryState(uevents:)` reads as
    /// external power.
    ///
    /// - Parameter root: the class directory (default `/sys/class/power_supply`); tests pass a fake tree.
    /// - Throws: `FileError` naming the directory (not a directory, permission denied) or the first unreadable
    ///   `uevent` when none could be read.
    public static func readUevents(root: String = defaultRoot) throws(FileError) -> [String: String] {
        let names: [String]
        switch Syscalls.listDirectory(root) {
        case .success(let n): names = n
        case .failure(let e):
            if e.rawValue == ENOENT { return [:] }
            throw FileError(e, path: root, operation: "list the power supplies")
        }
        var texts: [String: String] = [:]
        var firstFailure: FileError?
        for name in names.sorted() {
            let path = root + "/" + name + "/uevent"
            switch Syscalls.readSmallFile(path, maxBytes: 16_384) {
            case .success(let text): texts[name] = text
            case .failure(let e):
                if firstFailure == nil { firstFailure = FileError(e, path: path, operation: "read the power supply's uevent") }
            }
        }
        if texts.isEmpty, let firstFailure { throw firstFailure }
        return texts
    }
}
