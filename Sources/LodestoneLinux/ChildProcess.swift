#if canImport(Glibc)
    import Glibc
#endif

/// A short-lived program run without blocking (`posix_spawnp`, its standard output and error through one pipe):
/// started, then polled until it has exited. Used to ask `mmcli` for ModemManager's location once a second without
/// holding up the engine.
public final class ChildProcess {
    /// The program and its arguments, for messages.
    public let commandLine: String
    private let pid: pid_t
    private var fd: Int32
    private var output: [UInt8] = []
    /// The exit status once it has exited (the code, or 128 + the signal).
    public private(set) var exitStatus: Int32?

    /// Starts `arguments[0]` (looked up in `PATH`) with `arguments`, standard input from `/dev/null`.
    /// - Throws: `Errno` when the pipe cannot be made or the program cannot be started (ENOENT: not installed).
    public init(_ arguments: [String]) throws(Errno) {
        precondition(!arguments.isEmpty, "a command needs a program")
        commandLine = arguments.joined(separator: " ")
        var pipeFDs: [Int32] = [-1, -1]
        if case .failure(let e) = Syscalls.call(.minusOneSetsErrno, { pipe(&pipeFDs) }) { throw e }
        // close-on-exec (pipe2 is not in Glibc's Swift module): the child gets only its dup2'ed copies
        for fd in pipeFDs { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
        posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 2)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var child: pid_t = 0
        let rc = posix_spawnp(&child, arguments[0], &actions, nil, &argv, environ)
        _ = Syscalls.close(pipeFDs[1])
        guard rc == 0 else {
            _ = Syscalls.close(pipeFDs[0])
            throw Errno(rc)
        }
        pid = child
        fd = pipeFDs[0]
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
        }
        if fd >= 0 { _ = Syscalls.close(fd) }
    }

    /// Collects what the program wrote so far; once it has exited and its output is drained, returns the output
    /// (standard output and error as written), else `nil`.
    public func poll() -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while fd >= 0 {
            let r = chunk.withUnsafeMutableBytes { Syscalls.read(fd, into: $0) }
            switch r {
            case .success(0): _ = Syscalls.close(fd); fd = -1
            case .success(let n): output += chunk[..<n]
            case .failure: break
            }
            if case .success(let n) = r, n > 0 { continue }
            break
        }
        if exitStatus == nil {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                let signal = status & 0x7F
                exitStatus = signal == 0 ? (status >> 8) & 0xFF : 128 + signal
            }
        }
        guard exitStatus != nil, fd < 0 else { return nil }
        return output
    }

    /// Polls every 10 ms until the program has exited or `timeoutS` passed (then it is killed and `nil` returned).
    public func wait(timeoutS: Double) -> [UInt8]? {
        var waitedS = 0.0
        while waitedS < timeoutS {
            if let out = poll() { return out }
            var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
            _ = nanosleep(&pause, nil)
            waitedS += 0.01
        }
        return nil
    }
}
