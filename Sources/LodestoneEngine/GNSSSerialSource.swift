import LodestoneCore
import LodestoneLinux
import LodestoneLocation

/// Turns the decoder's reports into one fix per epoch: delivered when the receiver's cycle end is seen (the
/// epoch is complete), or, for a receiver whose cycle end is not yet known, when the next epoch begins.
struct GNSSEpochDelivery {
    private var pending: GNSSFixReport?
    private var deliveredTime: UTCTime?

    /// Takes one report; returns the epochs to deliver now, oldest first: the previous epoch if it closed without
    /// a recognised end, and this one if it ends its cycle.
    mutating func accept(_ r: GNSSFixReport, endsCycle: Bool) -> (GNSSFixReport?, GNSSFixReport?) {
        var closed: GNSSFixReport?
        if let p = pending, p.time != r.time, p.time != deliveredTime || p.time == nil {
            closed = p
            deliveredTime = p.time
        }
        pending = r
        if endsCycle, r.time == nil || r.time != deliveredTime {
            deliveredTime = r.time
            pending = nil
            return (closed, r)
        }
        return (closed, nil)
    }
}

/// A GNSS receiver on a serial port (NMEA 0183 and/or u-blox UBX), read through termios without blocking.
/// The engine polls it at `rateHz`; each poll decodes what arrived and delivers the epoch that completed.
/// An unplugged receiver is "gone": the engine retries `start()`, which reopens the port by path.
public struct GNSSSerialSource: GNSSPowerControllable {
    public let id: String
    public let label: String
    /// Poll rate, Hz (not the receiver's fix rate).
    public let rateHz: Double
    public let path: String
    public let baudRate: Int
    /// The board file's chip: `ublox` (commanded with UBX) or `nmea` (power only modelled).
    public let chip: String
    /// The receiver's energy model (board file `"model"`; default by chip).
    public let receiverModel: String
    /// The mode last set.
    public private(set) var mode: GNSSReceiverMode = .continuous(rateHz: 1)
    /// True for a u-blox receiver (UBX commands); an NMEA talker keeps running.
    public var canCommandPower: Bool { false }
    /// An NMEA talker keeps tracking whatever is planned.
    public var powerState: GNSSPowerState { .tracking }
    private var port: SerialPort?
    private var decoder = GNSSDecoder()
    private var delivery = GNSSEpochDelivery()
    private var buffer = [UInt8](repeating: 0, count: 4096)

    public init(id: String, path: String, baudRate: Int, rateHz: Double = 20, chip: String = "nmea", receiverModel: String? = nil) {
        self.id = id; self.path = path; self.baudRate = baudRate; self.rateHz = rateHz; self.chip = chip
        self.receiverModel = receiverModel ?? BoardDescription.defaultReceiverModel(chip: chip) ?? "generic"
        label = "GNSS receiver @ \(path) \(baudRate) bit/s"
    }

    public mutating func start() throws(SourceError) {
        port?.close()
        port = nil
        do { port = try SerialPort(path: path, baudRate: baudRate) } catch {
            throw SourceError(sensor: id, message: error.description, deviceGone: error.kind == .gone)
        }
    }

    /// Records the mode (the UBX commands for a u-blox receiver follow in `UBXPowerCommands`).
    public mutating func setMode(_ mode: GNSSReceiverMode, timeS: Double) throws(SourceError) { self.mode = mode }

    public mutating func read(timeS: Double) throws(SourceError) -> SourceReading {
        guard let port else { throw SourceError(sensor: id, message: "\(path): not open", deviceGone: true) }
        var fix: GNSSFixReport?
        // Bounded: at most 16 reads (64 KiB) per poll, so a flooding port cannot stall the engine.
        for _ in 0..<16 {
            let result = buffer.withUnsafeMutableBytes { b in Result { () throws(SerialPortError) in try port.read(into: b) } }
            let n: Int
            switch result {
            case .success(let count): n = count
            case .failure(let e):
                port.close()
                self.port = nil
                throw SourceError(sensor: id, message: e.description, deviceGone: e.kind == .gone)
            }
            if n == 0 { break }
            for i in 0..<n {
                decoder.feed(byte: buffer[i]) { event in
                    if case .report(let r, let end) = event {
                        let (closed, ended) = delivery.accept(r, endsCycle: end)
                        if let newest = ended ?? closed { fix = newest }   // live: the newest epoch only
                    }
                }
            }
        }
        guard let fix else { return .none }
        return .fix(fix.receiverFix(timeS: timeS))
    }
}
