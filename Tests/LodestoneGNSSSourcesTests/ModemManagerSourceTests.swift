import Foundation
import LodestoneCore
@testable import LodestoneGNSSSources
import LodestoneLinux
import LodestoneLocation
import LodestoneSources
import Testing

/// GNSS from ModemManager's NMEA location source, against a fake `mmcli` that answers as mmcli does: the enable
/// command's success line, and for each `--location-get` the next recorded key-value output.
@Suite(.serialized) struct ModemManagerSourceTests {
    /// mmcli's key-value output of `--location-get` with these NMEA traces, as `dump_output_keyvalue` in ModemManager's
    /// `cli/mmcli-output.c` prints it: every field in field order, `KEY : VALUE` with the keys padded to the longest,
    /// an array as `.length` then `.value[1]` …, `--` for an empty field.
    static func keyValueOutput(_ traces: [String]) -> String {
        var rows: [(String, String)] = [
            ("modem.location.3gpp.mcc", "--"), ("modem.location.3gpp.mnc", "--"), ("modem.location.3gpp.lac", "--"),
            ("modem.location.3gpp.tac", "--"), ("modem.location.3gpp.cid", "--")
        ]
        if traces.isEmpty {
            rows.append(("modem.location.gps.nmea", "--"))
        } else {
            rows.append(("modem.location.gps.nmea.length", "\(traces.count)"))
            for (i, t) in traces.enumerated() { rows.append(("modem.location.gps.nmea.value[\(i + 1)]", t)) }
        }
        rows += [
            ("modem.location.gps.utc", "--"), ("modem.location.gps.longitude", "--"), ("modem.location.gps.latitude", "--"),
            ("modem.location.gps.altitude", "--"), ("modem.location.cdma-bs.longitude", "--"),
            ("modem.location.cdma-bs.latitude", "--")
        ]
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + " : " + $0.1 }.joined(separator: "\n")
            + "\n"
    }

    /// The epochs of the PinePhone's EG25-G log (gpsd's test log `quectel-eg25-g-2`): for each, the latest sentence of
    /// each type, as ModemManager keeps them (its traces are one per sentence type).
    static func pinePhoneEpochs() throws -> [[String]] {
        let lines = try GNSSTestData.lines("quectel-eg25-g-2.log").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        var epochs: [[String]] = []
        for line in lines {
            if line.hasPrefix("$GPGGA") { epochs.append([]) }
            guard !epochs.isEmpty else { continue }
            let type = String(line.prefix(6))
            epochs[epochs.count - 1].removeAll { $0.hasPrefix(type) }
            epochs[epochs.count - 1].append(line)
        }
        return epochs
    }

    /// A fake `mmcli` in a temporary directory: logs its arguments, answers `--location-enable-gps-nmea` (or fails
    /// with `enableError`), and prints `get-1.txt`, `get-2.txt`, … at successive `--location-get`s.
    static func fakeMMCLI(outputs: [String], enableError: String? = nil) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lodestone-mmcli-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for (i, o) in outputs.enumerated() {
            try o.write(to: dir.appendingPathComponent("get-\(i + 1).txt"), atomically: true, encoding: .utf8)
        }
        let enable =
            enableError.map { "echo \"error: \($0)\" >&2; exit 1" } ?? "echo 'successfully setup location gathering'; exit 0"
        let script = """
            #!/bin/sh
            D=$(dirname "$0")
            echo "$*" >> "$D/calls"
            case "$*" in
              *--location-enable-gps-nmea*) \(enable) ;;
              *--location-get*)
                n=$(( $(cat "$D/count" 2>/dev/null || echo 0) + 1 )); echo $n > "$D/count"
                [ -f "$D/get-$n.txt" ] || { echo "error: no more recorded output" >&2; exit 1; }
                cat "$D/get-$n.txt" ;;
              *) echo "error: unexpected arguments" >&2; exit 2 ;;
            esac
            """
        let path = dir.appendingPathComponent("mmcli")
        try script.write(to: path, atomically: true, encoding: .utf8)
        chmod(path.path, 0o755)
        return path
    }

    /// Polls at 50 Hz of fake time (the source asks mmcli once a second) until `count` fixes or `timeoutS` of wall time.
    static func collect(_ source: inout GNSSModemManagerSource, count: Int, timeoutS: Double) throws -> [ReceiverFix] {
        try GNSSTestData.collect(&source, count: count, timeoutS: timeoutS)
    }

    @Test func theTracesAreReadFromMMCLIsKeyValueOutput() throws {
        let epoch = try Self.pinePhoneEpochs()[0]
        let traces = GNSSModemManagerSource.nmeaTraces(keyValueOutput: Array(Self.keyValueOutput(epoch).utf8))
        #expect(traces == epoch)
        #expect(GNSSModemManagerSource.nmeaTraces(keyValueOutput: Array(Self.keyValueOutput([]).utf8)).isEmpty)
        // g_strescape'd values come back as sent
        #expect(GNSSModemManagerSource.unescape(#"$GPTXT,01,01,02,a\\b \"q\"*00\r"#) == #"$GPTXT,01,01,02,a\b "q"*00"#)
    }

    /// Three recorded epochs of the PinePhone's modem, the second repeated (ModemManager had nothing new): three fixes,
    /// at the log's times and position, each once; mmcli was asked with the documented options.
    @Test func aPinePhoneModemsEpochsBecomeFixesOnce() throws {
        let epochs = try Self.pinePhoneEpochs()
        #expect(epochs.count >= 3)
        let outputs = [epochs[0], epochs[1], epochs[1], epochs[2]].map(Self.keyValueOutput)
        let mmcli = try Self.fakeMMCLI(outputs: outputs)
        var source = GNSSModemManagerSource(id: "gnss", mmcli: mmcli.path)
        source.pollIntervalS = 0.1
        try source.start()
        let fixes = try Self.collect(&source, count: 3, timeoutS: 20)
        #expect(fixes.count == 3)
        // 2022-09-20T05:13:47Z, 48, 49 (the log's GGA/RMC times)
        #expect(fixes.compactMap(\.utcS) == [1_663_650_827, 1_663_650_828, 1_663_650_829])
        #expect(abs((fixes.first?.latitudeDeg ?? 0) - 60.022279983) < 1e-8)
        #expect(abs((fixes.first?.longitudeDeg ?? 0) - 30.236150133) < 1e-8)
        let calls = try String(contentsOf: mmcli.deletingLastPathComponent().appendingPathComponent("calls"), encoding: .utf8)
            .split(separator: "\n")
        #expect(calls.first == "-m any --location-enable-gps-nmea")
        #expect(calls.dropFirst().allSatisfy { $0 == "-m any --output-keyvalue --location-get" })
        #expect(calls.count == 5)
    }

    @Test func aRefusedEnableIsOneLineWithMMCLIsOwnWords() throws {
        let mmcli = try Self.fakeMMCLI(outputs: [], enableError: "couldn't find modem")
        var source = GNSSModemManagerSource(id: "gnss", modem: "0", mmcli: mmcli.path)
        #expect {
            try source.start()
        } throws: { e in
            let message = (e as? SourceError)?.message ?? ""
            return message.contains("-m 0 --location-enable-gps-nmea failed (exit 1): error: couldn't find modem")
                && !message.contains("\n")
        }
        var missing = GNSSModemManagerSource(id: "gnss", mmcli: "/nonexistent/mmcli")
        #expect {
            try missing.start()
        } throws: { e in ((e as? SourceError)?.message ?? "").contains("apt install modemmanager") }
    }
}
