import LodestoneCore
import LodestoneLinux
import LodestoneLocation
import LodestoneSources

/// GNSS from ModemManager's NMEA location source, for a receiver inside a modem that ModemManager owns (the
/// PinePhone's Quectel EG25-G): `start()` runs `mmcli -m MODEM --location-enable-gps-nmea`, then every
/// `pollIntervalS` `mmcli -m MODEM --output-keyvalue --location-get` is started without blocking and, once it has
/// exited, the NMEA traces it printed are decoded by the same decoder as a serial receiver's; a new epoch is delivered
/// as a fix.
///
/// ModemManager keeps the latest sentence of each type, so each poll gives at most one new epoch. The modem's receiver
/// cannot be commanded from here (`UncommandedReceiver`): its power is modelled as always tracking.
public struct GNSSModemManagerSource: UncommandedReceiver {
    public let id: String
    public let label: String
    /// Poll rate of the engine, Hz (how often it looks for a finished `mmcli`).
    public let rateHz: Double
    /// The modem, as `mmcli -m` takes it: `any`, an index, or a D-Bus path.
    public let modem: String
    /// The `mmcli` program (looked up in `PATH` when it has no `/`).
    public let mmcli: String
    /// The receiver's energy model (board file `"model"`; default `generic`).
    public let receiverModel: String
    /// Time between two location requests, s. Default 1.
    public var pollIntervalS = 1.0
    /// Longest wait for `--location-enable-gps-nmea`, s.
    public var enableTimeoutS = 10.0
    /// The mode last planned (recorded, not applied).
    public var mode: GNSSReceiverMode = .continuous(rateHz: 1)
    private var request: ChildProcess?
    private var requestStartS = -Double.infinity
    private var lastTime: UTCTime?

    /// Runs nothing yet; `start()` enables the NMEA source.
    public init(id: String, modem: String = "any", mmcli: String = "mmcli", rateHz: Double = 20, receiverModel: String? = nil) {
        self.id = id; self.modem = modem; self.mmcli = mmcli; self.rateHz = rateHz
        self.receiverModel = receiverModel ?? "generic"
        label = "GNSS from ModemManager (modem \(modem))"
    }

    /// Enables ModemManager's NMEA location source on the modem.
    /// - Throws: `SourceError` with mmcli's own message when it is not installed, the modem is not found, or the
    ///   request is refused (polkit: run as root or as a user allowed `org.freedesktop.ModemManager1.Location`).
    public mutating func start() throws(SourceError) {
        request = nil
        let arguments = [mmcli, "-m", modem, "--location-enable-gps-nmea"]
        let process: ChildProcess
        do { process = try ChildProcess(arguments) } catch {
            throw SourceError(
                sensor: id,
                message: "cannot run \(mmcli): \(error) (install ModemManager's command line: apt install modemmanager)",
                deviceGone: true)
        }
        guard let output = process.wait(timeoutS: enableTimeoutS) else {
            throw SourceError(
                sensor: id, message: "\(process.commandLine): no answer within \(enableTimeoutS) s; is ModemManager running?",
                deviceGone: true)
        }
        guard process.exitStatus == 0 else {
            throw SourceError(
                sensor: id,
                message: "\(process.commandLine) failed (exit \(process.exitStatus ?? -1)): "
                    + Self.firstLine(output) + "; check 'mmcli -L' lists the modem and that this user may set up its location",
                deviceGone: true)
        }
    }

    public mutating func read(timeS: Double) throws(SourceError) -> SourceReading {
        if let running = request {
            guard let output = running.poll() else { return .none }
            request = nil
            guard running.exitStatus == 0 else {
                throw SourceError(
                    sensor: id,
                    message: "\(running.commandLine) failed (exit \(running.exitStatus ?? -1)): " + Self.firstLine(output),
                    deviceGone: true)
            }
            guard let report = Self.newestEpoch(Self.nmeaTraces(keyValueOutput: output)), let time = report.time,
                time != lastTime
            else { return .none }
            lastTime = time
            return .fix(report.receiverFix(timeS: timeS))
        }
        if timeS - requestStartS >= pollIntervalS {
            requestStartS = timeS
            do { request = try ChildProcess([mmcli, "-m", modem, "--output-keyvalue", "--location-get"]) } catch {
                throw SourceError(sensor: id, message: "cannot run \(mmcli): \(error)", deviceGone: true)
            }
        }
        return .none
    }

    /// The NMEA traces in `mmcli --output-keyvalue --location-get`'s output: the values of the
    /// `modem.location.gps.nmea.value[N]` keys, in order. The format is mmcli's key-value output
    /// (ModemManager, `cli/mmcli-output.c`, `dump_output_keyvalue`): one `KEY : VALUE` line per field, the key padded
    /// with spaces, an array as `KEY.length : N` then `KEY.value[1]` … `KEY.value[N]` (indices from 1), each value
    /// escaped with `g_strescape` (a backslash before `\`, `"` and control characters), `--` for an empty field.
    public static func nmeaTraces(keyValueOutput bytes: [UInt8]) -> [String] {
        let prefix = "modem.location.gps.nmea.value["
        var traces: [String] = []
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let text = String(decoding: line, as: UTF8.self)
            guard text.hasPrefix(prefix), let separator = text.firstRange(of: " : ") else { continue }
            let value = unescape(String(text[separator.upperBound...]))
            if value.hasPrefix("$") || value.hasPrefix("!") { traces.append(value) }
        }
        return traces
    }

    /// The newest epoch (latest UTC, then the last given) decoded from `traces`, each fed as one sentence.
    public static func newestEpoch(_ traces: [String]) -> GNSSFixReport? {
        var bytes: [UInt8] = []
        for t in traces { bytes += Array(t.utf8) + [0x0D, 0x0A] }
        let epochs = GNSSLogSource.epochs(of: bytes)
        var newest: GNSSFixReport?
        for e in epochs where e.time != nil {
            if let n = newest?.time, let t = e.time, t < n { continue }
            newest = e
        }
        return newest ?? epochs.last
    }

    /// `g_strescape` undone for the escapes an NMEA trace can carry (`\\`, `\"`, `\r`, `\n`, `\t`: the control
    /// characters are dropped, a sentence is one line).
    static func unescape(_ s: String) -> String {
        guard s.contains("\\") else { return s.trimmingTrailingSpaces }
        var out = ""
        var escaping = false
        for c in s {
            if escaping {
                if c == "\\" || c == "\"" { out.append(c) }
                escaping = false
            } else if c == "\\" {
                escaping = true
            } else {
                out.append(c)
            }
        }
        return out.trimmingTrailingSpaces
    }

    static func firstLine(_ bytes: [UInt8]) -> String {
        let line = bytes.split(separator: UInt8(ascii: "\n")).first.map { String(decoding: $0, as: UTF8.self) } ?? ""
        return line.isEmpty ? "(no output)" : line
    }
}

extension String {
    fileprivate var trimmingTrailingSpaces: String {
        var s = Substring(self)
        while let last = s.last, last == " " || last == "\r" { s = s.dropLast() }
        return String(s)
    }
}
