// Test-only OS helpers. The production rule "only LodestoneLinux touches Glibc" is about targets that ship;
// these tests exercise that target against the real kernel (mount namespaces, tmpfs, FIFOs), so they call
// Glibc directly for set-up that the product must never do (unshare, mount, mkfifo).
import Glibc
import Testing
@testable import LodestoneLinux

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

enum TestFS {
    /// `mkdtemp` under /tmp.
    static func makeTemporaryDirectory(_ prefix: String = "lodestone-test") throws -> String {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { p in p.baseAddress.flatMap { mkdtemp($0) } }
        guard made != nil else { throw TestFailure("mkdtemp failed, errno \(errno)") }
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `mkdir -p`.
    static func makeDirectories(_ path: String) throws {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o755) != 0 && errno != EEXIST {
                throw TestFailure("mkdir \(current) failed, errno \(errno)")
            }
        }
    }

    /// Writes `text` (not atomically: this is the fixture writer, independent of AtomicFile).
    static func write(_ path: String, _ text: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw TestFailure("open \(path) failed, errno \(errno)") }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard n == bytes.count else { throw TestFailure("write \(path) failed, errno \(errno)") }
    }

    static func writeBytes(_ path: String, _ bytes: [UInt8]) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw TestFailure("open \(path) failed, errno \(errno)") }
        defer { close(fd) }
        let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard n == bytes.count else { throw TestFailure("write \(path) failed, errno \(errno)") }
    }

    static func read(_ path: String) -> [UInt8]? {
        guard case .success(let bytes) = Syscalls.readFile(path, maxBytes: 1 << 22) else { return nil }
        return bytes
    }

    static func readText(_ path: String) -> String? {
        guard case .success(let s) = Syscalls.readSmallFile(path, maxBytes: 1 << 22) else { return nil }
        return s
    }

    static func list(_ path: String) -> [String] {
        guard case .success(let names) = Syscalls.listDirectory(path) else { return [] }
        return names.sorted()
    }

    /// `rm -rf`.
    static func removeTree(_ path: String) {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            for name in list(path) { removeTree(path + "/" + name) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }

    static func mode(_ path: String) -> UInt32? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return UInt32(st.st_mode & 0o7777)
    }
}

/// Runs code in a private mount namespace on a thread of its own.
///
/// Mount namespaces belong to a thread once it has unshared `CLONE_FS` (which `unshare(CLONE_NEWNS)` implies),
/// so the thread can mount a tmpfs over `/sys` or `/dev` without any other thread of the test process, or the
/// host, seeing it. Mounts are made private first (`MS_REC | MS_PRIVATE` on `/`) so nothing propagates back.
/// When the thread exits, the namespace and all its mounts disappear; `body` should still unmount what it
/// mounted. `body` must not call `#expect`: Swift Testing attributes issues through task-locals, which a raw
/// pthread lacks, so it returns observations that the test checks after the join.
enum MountNamespace {
    /// True when this process may create mount namespaces and mount tmpfs (root with CAP_SYS_ADMIN, not
    /// refused by a seccomp or container policy). Probed once by doing it.
    static let isAvailable: Bool = {
        guard geteuid() == 0 else { return false }
        let probe = Result { () throws -> Bool in
            try run {
                let dir = try TestFS.makeTemporaryDirectory("lodestone-nsprobe")
                defer { rmdir(dir) }
                guard mount("lodestone-probe", dir, "tmpfs", 0, "size=16k") == 0 else { return false }
                umount2(dir, 0)
                return true
            }
        }
        return (try? probe.get()) ?? false
    }()

    static let unavailableReason: Comment =
        "needs root and permission to unshare(CLONE_NEWNS) and mount tmpfs (a private mount namespace per test thread)"

    /// `unshare(2)`. Swift's Glibc module hides it (it is a `_GNU_SOURCE` declaration), so the test looks the
    /// libc symbol up; `CLONE_NEWNS` is 0x00020000 in the stable Linux ABI (`linux/sched.h`).
    static func unshareMountNamespace() -> Int32 {
        typealias Unshare = @convention(c) (Int32) -> Int32
        guard let symbol = dlsym(nil, "unshare") else { // nil is RTLD_DEFAULT
            return -1
        }
        let cloneNewNS: Int32 = 0x0002_0000
        return unsafeBitCast(symbol, to: Unshare.self)(cloneNewNS)
    }

    private final class Job {
        let body: () throws -> Void
        var failure: (any Error)?
        init(_ body: @escaping () throws -> Void) { self.body = body }
    }

    /// Runs `body` in a private mount namespace with a 64 KiB tmpfs mounted on `directory` (a full disk to meet
    /// ENOSPC on), unmounted after it.
    static func runOnSmallTmpfs<T>(at directory: String, _ body: @escaping () throws -> T) throws -> T {
        try run {
            guard mount("lodestone-small", directory, "tmpfs", 0, "size=64k") == 0 else {
                throw TestFailure("mount tmpfs: errno \(errno)")
            }
            defer { umount2(directory, Int32(MNT_DETACH)) }
            return try body()
        }
    }

    /// Runs `body` on a new pthread inside a fresh private mount namespace and returns its result.
    static func run<T>(_ body: @escaping () throws -> T) throws -> T {
        var result: T?
        let job = Job {
            guard unshareMountNamespace() == 0 else { throw TestFailure("unshare(CLONE_NEWNS) failed, errno \(errno)") }
            guard mount(nil, "/", nil, UInt(MS_REC | MS_PRIVATE), nil) == 0 else {
                throw TestFailure("mount(MS_REC|MS_PRIVATE) on / failed, errno \(errno)")
            }
            result = try body()
        }
        let box = Unmanaged.passRetained(job)
        var thread = pthread_t()
        let created = pthread_create(
            &thread, nil,
            { raw in
                guard let raw else { return nil }
                let job = Unmanaged<Job>.fromOpaque(raw).takeRetainedValue()
                do { try job.body() } catch { job.failure = error }
                return nil
            }, box.toOpaque())
        guard created == 0 else {
            box.release()
            throw TestFailure("pthread_create failed: \(created)")
        }
        pthread_join(thread, nil)
        if let failure = job.failure { throw failure }
        guard let result else { throw TestFailure("namespace job produced no result") }
        return result
    }
}
