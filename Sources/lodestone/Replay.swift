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
            do { eventSink = try FileOutput(path: eventsOut) } catch { fail("\(eventsOut): cannot write: \(error)") }
        }
        let out: LineOutput
        var fileSink: FileOutput?
        if let output {
            do { let f = try FileOutput(path: output); fileSink = f; out = f } catch { fail("\(output): cannot write: \(error)") }
        } else {
            out = StandardOutput()
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

/// A line output into a file (atomic: written to a temporary name and renamed on close).
final class FileOutput: LineOutput {
    private var bytes: [UInt8] = []
    let path: String
    init(path: String) throws {
        self.path = path
        guard FileManager.default.isWritableFile(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) else {
            throw CocoaError(.fileWriteNoPermission)
        }
    }
    func write(_ line: String) { bytes += line.utf8; bytes.append(UInt8(ascii: "\n")) }
    func write(lineBytes: UnsafeRawBufferPointer) { bytes += lineBytes; bytes.append(UInt8(ascii: "\n")) }
    func writeRaw(_ t: String) { bytes += t.utf8 }
    func flush() {}
    func close() throws { try OutputFiles.writeAtomically(bytes, to: path) }
}
