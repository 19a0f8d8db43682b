// lodestone-fuzz: Lodestone's libFuzzer targets in one executable (issue 18).
//
//   lodestone-fuzz TARGET [libFuzzer options] [corpus folders or inputs]
//   lodestone-fuzz --list
//
// libFuzzer's own main runs the program (-sanitize=fuzzer links it); it calls `LLVMFuzzerInitialize` first, which
// takes TARGET off the command line (libFuzzer then reads the rest: `-max_total_time=N`, `-dict=FILE`,
// `-artifact_prefix=DIR/`, corpus folders, or a crash file to replay it), and `LLVMFuzzerTestOneInput` for every
// input. The target is passed on in LODESTONE_FUZZ_TARGET, which is also where it is read from, so that the child
// processes libFuzzer starts with argv[0] and the options alone (-fork, -jobs, -merge) run the same target.
import Foundation

/// The environment variable naming the target.
let targetVariable = "LODESTONE_FUZZ_TARGET"

/// The chosen target's index in `FuzzTargets.all` (read once, after `LLVMFuzzerInitialize` has set the variable).
let chosenTarget: Int? = ProcessInfo.processInfo.environment[targetVariable].flatMap { name in
    FuzzTargets.all.firstIndex { $0.name == name }
}

@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> Int32 {
    let arguments = CommandLine.arguments
    if arguments.count > 1, arguments[1] == "--list" {
        for target in FuzzTargets.all { print(target.name.padding(toLength: 14, withPad: " ", startingAt: 0), target.summary) }
        exit(0)
    }
    if arguments.count > 1, FuzzTargets.all.contains(where: { $0.name == arguments[1] }), let v = argv.pointee {
        setenv(targetVariable, arguments[1], 1)
        // Drop argv[1]: libFuzzer reads argv after this returns.
        for i in 1..<Int(argc.pointee) { v[i] = v[i + 1] }
        argc.pointee -= 1
    }
    guard chosenTarget != nil else {
        let names = FuzzTargets.all.map(\.name).joined(separator: ", ")
        FileHandle.standardError.write(Data("usage: lodestone-fuzz TARGET [libFuzzer options]; TARGET is one of \(names)\n".utf8))
        exit(2)
    }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { UnsafeRawBufferPointer(start: $0, count: size) } ?? UnsafeRawBufferPointer(start: nil, count: 0)
    FuzzTargets.run(chosenTarget ?? 0, bytes)
    return 0
}
