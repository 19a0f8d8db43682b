import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import LodestoneCLI
import LodestoneEngine
import LodestoneMonitoring
import LodestoneLinux

struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the engine over a recorded trace as fast as it can.",
        discussion:
            "TRACE is a CSV (or .csv.gz) in the trace format (docs/trace-format.md); the datasets' files are traces as they are.")

    @Option(help: "The trace to replay.") var input: String
    @Option(help: "Write the output CSV here instead of standard output.") var output: String?
    @OptionGroup var calibration: ReplayCalibrationOptions
    @OptionGroup(title: "Orientation") var orientation: OrientationOptions
    @OptionGroup var export: ExportOptions
    @OptionGroup(title: "Altitude, activity and pedometer") var motion: MotionOptions
    @Option(help: "Monitor these regions over the fused locations: a CSV of id,lat_deg,lon_deg,radius_m (header optional).")
    var regions: String?
    @Option(name: .customLong("events-out"), help: "Write the region events here, one JSON object a line (with --regions).")
    var eventsOut: String?

    func validate() throws {
        if (regions == nil) != (eventsOut == nil) {
            throw ValidationError("--regions and --events-out go together: give both or neither")
        }
    }

    func run() throws {
        var monitored: [CircularRegion] = []
        var eventSink: FileOutput?
        if let regions, let eventsOut {
            let text: String
            do { text = try String(contentsOfFile: regions, encoding: .utf8) } catch { fail("\(regions): cannot read: \(error)") }
            do { monitored = try RegionsCSV.parse(text) } catch { fail("\(regions): \(error.description)") }
            do { eventSink = try FileOutput(path: eventsOut) } catch { fail(error.description) }
        }
        let out: LineOutput
        var fileSink: FileOutput?
        if let output {
            do { let f = try FileOutput(path: output); fileSink = f; out = f } catch {
                eventSink?.abandon()
                fail(error.description)
            }
        } else {
            out = StandardOutput()
        }
        // A file not closed (committed) by the end, because an error left `run` early, leaves no temporary file.
        defer {
            fileSink?.abandon()
            eventSink?.abandon()
        }
        do {
            var configuration = calibration.fusionConfiguration()
            orientation.apply(to: &configuration)
            motion.apply(to: &configuration)
            var eventCount = 0
            var onMonitorEvent: ((MonitorEvent) -> Void)?
            if let eventSink {
                onMonitorEvent = { event in
                    eventSink.write(event.jsonLine)
                    eventCount += 1
                }
            }
            let n = try ReplayJob(
                inputPath: input, configuration: configuration, export: export.paths, regions: monitored,
                onMonitorEvent: onMonitorEvent
            ).run(output: out)
            out.flush()
            try fileSink?.close()
            if let eventSink, let eventsOut {
                try eventSink.close()
                StandardStream.error.print("wrote \(eventCount) region events to \(eventsOut)\n")
            }
            if output != nil { StandardStream.error.print("replayed \(n) rows from \(input)\n") }
        } catch let e as TraceError {
            out.flush()
            try? fileSink?.close()
            try? eventSink?.close()
            fail(e.description)
        }
    }
}

/// A line output into a file, written as it goes and replaced atomically: the lines stream into a temporary file
/// beside `path` (`AtomicFileWriter`, a 64 KiB buffer, so memory does not grow with the output), renamed over `path` on
/// `close()`. The first write error (a full disk) is kept, later lines are dropped, and `close()` throws it with the
/// target untouched.
final class FileOutput: LineOutput {
    private let writer: AtomicFileWriter
    private var error: FileError?
    let path: String
    init(path: String) throws(FileError) {
        self.path = path
        writer = try AtomicFileWriter(path: path)
    }
    var isBroken: Bool { error != nil }
    func write(_ line: String) {
        var line = line + "\n"
        line.withUTF8 { send(UnsafeRawBufferPointer($0)) }
    }
    func write(lineBytes: UnsafeRawBufferPointer) {
        send(lineBytes)
        withUnsafeBytes(of: UInt8(ascii: "\n")) { send($0) }
    }
    func writeRaw(_ t: String) {
        var t = t
        t.withUTF8 { send(UnsafeRawBufferPointer($0)) }
    }
    func flush() {}
    /// Removes the temporary file, leaving `path` as it was; nothing after `close()`.
    func abandon() { writer.abandon() }
    func close() throws {
        if let error { throw error }
        do { try writer.commit() } catch { self.error = error; throw error }
    }
    private func send(_ bytes: UnsafeRawBufferPointer) {
        guard error == nil else { return }
        do throws(FileError) { try writer.write(bytes) } catch { self.error = error }
    }
}
