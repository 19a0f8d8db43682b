// lodestone-fuzz: Lodestone's libFuzzer targets in one executable (issue 18).
//
//   lodestone-fuzz TARGET [libFuzzer options] [corpus folders or inputs]
//   lodestone-fuzz --list
//
// TARGET picks the parser (`FuzzTargets.all`); the rest is libFuzzer's own command line (`-max_total_time=N`,
// `-dict=FILE`, `-artifact_prefix=DIR/`, a corpus folder, or a crash file to replay it). The target is also taken
// from LODESTONE_FUZZ_TARGET, which this program sets, so that libFuzzer's child processes (-fork, -jobs, -merge)
// that it starts with argv[0] and the options alone run the same target.
//
// libFuzzer's main is not used: `FuzzMain.main` is the program's and calls LLVMFuzzerRunDriver with the chosen
// target's function (a C function pointer, so one per target, without a global to dispatch on).
import CFuzzerDriver
import Foundation

typealias Callback = @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32

/// The input as a raw buffer (libFuzzer passes a null pointer for the empty input).
@inline(__always)
func input(_ data: UnsafePointer<UInt8>?, _ size: Int) -> UnsafeRawBufferPointer {
    guard let data, size > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
    return UnsafeRawBufferPointer(start: data, count: size)
}

/// The target called `name`'s function.
func callback(_ name: String) -> Callback? {
    switch name {
    case "framer":
        return { d, n in
            FuzzTargets.framer(input(d, n)); return 0
        }
    case "nmea":
        return { d, n in
            FuzzTargets.nmea(input(d, n)); return 0
        }
    case "ubx":
        return { d, n in
            FuzzTargets.ubx(input(d, n)); return 0
        }
    case "gnss-stream":
        return { d, n in
            FuzzTargets.gnssStream(input(d, n)); return 0
        }
    case "gpx":
        return { d, n in
            FuzzTargets.gpx(input(d, n)); return 0
        }
    case "board":
        return { d, n in
            FuzzTargets.board(input(d, n)); return 0
        }
    case "calibration":
        return { d, n in
            FuzzTargets.calibration(input(d, n)); return 0
        }
    case "demands":
        return { d, n in
            FuzzTargets.demands(input(d, n)); return 0
        }
    case "trace-csv":
        return { d, n in
            FuzzTargets.traceCSV(input(d, n)); return 0
        }
    case "trace-gzip":
        return { d, n in
            FuzzTargets.traceGzip(input(d, n)); return 0
        }
    case "gpsd-client":
        return { d, n in
            FuzzTargets.gpsdClient(input(d, n)); return 0
        }
    case "wire":
        return { d, n in
            FuzzTargets.wire(input(d, n)); return 0
        }
    case "native":
        return { d, n in
            FuzzTargets.native(input(d, n)); return 0
        }
    case "gpsd-command":
        return { d, n in
            FuzzTargets.gpsdCommand(input(d, n)); return 0
        }
    default: return nil
    }
}

@main
enum FuzzMain {
    static func main() {
        let environmentKey = "LODESTONE_FUZZ_TARGET"
        var arguments = CommandLine.arguments
        if arguments.count > 1, arguments[1] == "--list" {
            for target in FuzzTargets.all {
                print(target.name.padding(toLength: 14, withPad: " ", startingAt: 0), target.summary)
            }
            exit(0)
        }
        var name = ProcessInfo.processInfo.environment[environmentKey]
        if arguments.count > 1, !arguments[1].hasPrefix("-"), callback(arguments[1]) != nil {
            name = arguments.remove(at: 1)
        }
        guard let name, let chosen = callback(name) else {
            let names = FuzzTargets.all.map(\.name).joined(separator: ", ")
            FileHandle.standardError.write(
                Data("usage: lodestone-fuzz TARGET [libFuzzer options]; TARGET is one of \(names)\n".utf8))
            exit(2)
        }
        setenv(environmentKey, name, 1)

        // libFuzzer's argc/argv: the program's arguments without the target's name, as C strings it may keep.
        var argc = Int32(arguments.count)
        let argv = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: arguments.count + 1)
        for (i, a) in arguments.enumerated() { argv[i] = strdup(a) }
        argv[arguments.count] = nil
        var argvPointer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
        exit(LLVMFuzzerRunDriver(&argc, &argvPointer, chosen))
    }
}
