import Glibc
import LodestoneCore
import Testing
@testable import LodestoneLinux

@Suite struct I2CDevBusErrors {
    @Test func missingBusIsNoSuchBusWithPathAndErrno() {
        #expect {
            _ = try I2CDevBus(path: "/dev/i2c-lodestone-missing-99")
        } throws: { error in
            guard let e = error as? BusError else { return false }
            return e.kind == .noSuchBus && e.bus == "/dev/i2c-lodestone-missing-99" && e.errno == ENOENT
                && e.description.contains("i2c-dev loaded")
        }
    }

    @Test func aNodeThatIsNotAnI2CAdapterFailsTheFunctionalityQuery() {
        // /dev/null opens fine, but I2C_FUNCS gives ENOTTY.
        #expect {
            _ = try I2CDevBus(path: "/dev/null")
        } throws: { error in
            guard let e = error as? BusError else { return false }
            return e.errno == ENOTTY && e.operation.contains("I2C_FUNCS") && e.operation.contains("not an i2c-dev device")
        }
    }

    @Test func permissionDeniedDescriptionGivesTheGroupHint() {
        let e = BusError(kind: BusError.kind(forErrno: EACCES), bus: "/dev/i2c-1", errno: EACCES, operation: "open")
        #expect(e.kind == .permissionDenied)
        #expect(e.description.contains("'i2c' group"))
    }

    @Test func availableBusesAreSortedByNumberAndOnlyI2CDevNodes() throws {
        let dir = try TestFS.makeTemporaryDirectory()
        defer { TestFS.removeTree(dir) }
        for name in ["i2c-10", "i2c-2", "i2c-0", "i2c-x", "i2c-", "spidev0.0", "i2c-1a"] {
            try TestFS.write(dir + "/" + name, "")
        }
        #expect(I2CDevBus.availableBuses(in: dir) == [dir + "/i2c-0", dir + "/i2c-2", dir + "/i2c-10"])
        #expect(I2CDevBus.availableBuses(in: dir + "/missing").isEmpty)
    }
}

@Suite struct ErrorClassification {
    @Test(
        "file errnos",
        arguments: [
            (ENOENT, FileError.Kind.notFound), (EACCES, .permissionDenied), (EPERM, .permissionDenied),
            (EROFS, .readOnlyFileSystem), (ENOSPC, .noSpace), (EDQUOT, .noSpace), (EFBIG, .noSpace), (EISDIR, .isDirectory),
            (ENOTDIR, .notDirectory), (EIO, .io), (EBADF, .other)
        ])
    func fileKinds(_ pair: (Int32, FileError.Kind)) {
        #expect(FileError.kind(forErrno: pair.0) == pair.1)
    }

    @Test func fileErrorDescriptionSaysWhatWhereAndErrno() {
        let e = FileError(Errno(EACCES), path: "/etc/lodestone/board.json", operation: "create temporary file in /etc/lodestone")
        #expect(e.kind == .permissionDenied)
        #expect(e.description.hasPrefix("/etc/lodestone/board.json: permission denied"))
        #expect(e.description.contains("Permission denied"))
        #expect(e.description.hasSuffix("[errno 13]"))
    }

    @Test func errnoTextComesFromTheCLibrary() {
        #expect(Errno(ENOENT).description == "No such file or directory")
        #expect(Errno(0).description.contains("not set"))
    }

    @Test func syscallShimTurnsConventionsIntoResults() {
        #expect(Syscalls.call { Int32(-1) }.isFailure)
        #expect(Syscalls.call(.returnsNegatedErrno) { Int32(-EIO) } == .failure(Errno(EIO)))
        #expect(Syscalls.call(.returnsNegatedErrno) { Int32(7) } == .success(7))
        #expect(Syscalls.call(.returnsErrno) { Int32(EBUSY) } == .failure(Errno(EBUSY)))
        // EINTR is retried: the body fails twice with EINTR, then succeeds.
        var calls = 0
        let r = Syscalls.call(.returnsNegatedErrno) { () -> Int32 in
            calls += 1; return calls < 3 ? -EINTR : 42
        }
        #expect(r == .success(42) && calls == 3)
    }

    @Test func iioErrorIsOneLineWithEveryPlace() {
        let e = IIOError(
            kind: .readFailed, uri: "local:", device: "iio:device0 (bmp280)", channel: "pressure",
            attribute: "input", errno: EIO, detail: "read failed")
        #expect(
            e.description
                == "IIO local:, device iio:device0 (bmp280), channel pressure, attribute input: read failed: Input/output error [errno 5]"
        )
        #expect(!e.description.contains("\n"))
    }

    @Test func anUnusableURIIsContextUnavailableNamingTheURI() {
        #expect {
            _ = try IIOContext(uri: "xml:/nonexistent/lodestone-context.xml")
        } throws: { error in
            guard let e = error as? IIOError else { return false }
            return e.kind == .contextUnavailable && e.uri == "xml:/nonexistent/lodestone-context.xml"
                && e.description.contains("xml:/nonexistent/lodestone-context.xml")
        }
    }
}

extension Result {
    var isFailure: Bool { if case .failure = self { true } else { false } }
}
