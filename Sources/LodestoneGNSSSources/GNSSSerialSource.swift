import LodestoneCore
import LodestoneLinux
import LodestoneLocation
import LodestoneSources

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
///
/// A `ublox` receiver's power is commanded (`setMode`, `UBXPowerCommands`): continuous at a rate, power save with an
/// update period, or backup (off); an `nmea` talker keeps running and its power is only modelled (always tracking).
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
    public var canCommandPower: Bool { GNSSChip(rawValue: chip)?.canCommandPower ?? false }
    /// The power state, for energy accounting. An NMEA talker: always `.tracking`. A u-blox receiver: `.off` in backup;
    /// continuous: `.acquiring` from its wake-up until its first fix, then `.tracking`; power save: `.powerSaveIdle`
    /// (the receiver cycles through acquisition, tracking and sleep on its own, unseen from here; the energy model's
    /// mean for the mode accounts for the cycle).
    public var powerState: GNSSPowerState {
        guard canCommandPower else { return .tracking }
        switch mode {
        case .off: return .off
        case .powerSave: return .powerSaveIdle
        case .continuous: return awaitingFirstFix ? .acquiring : .tracking
        }
    }
    /// Commands waiting for the receiver to wake (sent at the first read at or after `pendingAtS`).
    private var pending: [UInt8] = []
    private var pendingAtS = 0.0
    private var awaitingFirstFix = false
    private var port: SerialPort?
    private var decoder = GNSSDecoder()
    private var delivery = GNSSEpochDelivery()
    private var buffer = [UInt8](repeating: 0, count: 4096)

    public init(id: String, path: String, baudRate: Int, rateHz: Double = 20, chip: String = "nmea", receiverModel: String? = nil)
    {
        self.id = id; self.path = path; self.baudRate = baudRate; self.rateHz = rateHz; self.chip = chip
        self.receiverModel = receiverModel ?? GNSSChip(rawValue: chip)?.defaultReceiverModel ?? "generic"
        label = "GNSS receiver @ \(path) \(baudRate) bit/s"
    }

    /// Opens the port; a u-blox receiver whose mode was set is given it again (a reopened or replugged receiver may
    /// have restarted in its default continuous mode).
    public mutating func start() throws(SourceError) {
        port?.close()
        port = nil
        do { port = try SerialPort(path: path, baudRate: baudRate) } catch {
            throw SourceError(sensor: id, message: error.description, deviceGone: error.kind == .gone)
        }
        if canCommandPower, mode != .continuous(rateHz: 1) || !pending.isEmpty {
            pending = UBXPowerCommands.commands(for: mode)
            pendingAtS = -.infinity
        }
    }

    /// Switches the receiver to `mode` at `timeS`. A u-blox receiver is sent the UBX commands of
    /// `UBXPowerCommands.commands(for:)`; leaving backup it is first woken with `UBXPowerCommands.wakeUp` and the
    /// commands follow `UBXPowerCommands.wakeUpDelayS` later (at the first read after). An NMEA talker only records
    /// the mode. Before `start()` the mode is kept and sent when the port opens.
    /// - Throws: `SourceError` when the port cannot be written (`deviceGone` when it vanished).
    public mutating func setMode(_ mode: GNSSReceiverMode, timeS: Double) throws(SourceError) {
        let previous = self.mode
        self.mode = mode
        guard canCommandPower, mode != previous else { return }
        let commands = UBXPowerCommands.commands(for: mode)
        if case .continuous = mode { awaitingFirstFix = previous == .off || awaitingFirstFix }
        guard port != nil else {
            pending = commands
            pendingAtS = -.infinity
            return
        }
        if previous == .off {
            try send(UBXPowerCommands.wakeUp)
            pending = commands
            pendingAtS = timeS + UBXPowerCommands.wakeUpDelayS
        } else {
            pending = []
            try send(commands)
        }
    }

    private mutating func send(_ bytes: [UInt8]) throws(SourceError) {
        guard let port else { throw SourceError(sensor: id, message: "\(path): not open", deviceGone: true) }
        do { try port.write(bytes) } catch {
            port.close()
            self.port = nil
            throw SourceError(
                sensor: id, message: "sending UBX power commands: " + error.description, deviceGone: error.kind == .gone)
        }
    }

    public mutating func read(timeS: Double) throws(SourceError) -> SourceReading {
        if !pending.isEmpty, port != nil, timeS >= pendingAtS {
            let commands = pending
            pending = []
            try send(commands)
        }
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
                        if let newest = ended ?? closed { fix = newest } // live: the newest epoch only
                    }
                }
            }
        }
        guard let fix else { return .none }
        awaitingFirstFix = false
        return .fix(fix.receiverFix(timeS: timeS))
    }
}

/// The UBX frames that command a u-blox M8's power (u-blox 8 / u-blox M8 Receiver Description including Protocol
/// Specification, UBX-13003221: section 32.2 "UBX frame structure", 32.4 "UBX checksum" (8-bit Fletcher over class, id,
/// length and payload), 32.10.25 UBX-CFG-RATE, 32.10.27 UBX-CFG-RXM, 32.10.22 UBX-CFG-PM2, 32.17.2 UBX-RXM-PMREQ; and
/// section 14 "Power management": power save mode, ON/OFF and cyclic tracking operation, backup and wake-up).
public enum UBXPowerCommands {
    /// Sent on the UART to wake a receiver in software backup (any edge on RXD wakes it when `PMREQ` named the UART as a
    /// wake-up source; the first bytes may be lost, so they are only padding).
    public static let wakeUp = [UInt8](repeating: 0xFF, count: 8)
    /// Time from `wakeUp` to the first command, s (the receiver boots from backup before it listens).
    public static let wakeUpDelayS = 0.5
    /// Longest update period run as cyclic tracking; longer ones are ON/OFF operation, s (the receiver description
    /// recommends ON/OFF for periods above 10 s).
    public static let cyclicTrackingMaximumPeriodS = 10.0

    /// One UBX frame (`UBXFrame.frame`): sync `B5 62`, class, id, little-endian payload length, payload, `CK_A CK_B`.
    public static func frame(messageClass: UInt8, id: UInt8, payload: [UInt8]) -> [UInt8] {
        UBXFrame.frame(messageClass: messageClass, id: id, payload: payload)
    }

    private static func le16(_ v: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }
    private static func le32(_ v: Int) -> [UInt8] { le16(v) + le16(v >> 16) }

    /// UBX-CFG-RATE (0x06 0x08): `measRate` ms (1000 / `rateHz`, 25 … 65535), `navRate` 1, `timeRef` 1 (GPS time).
    public static func cfgRate(rateHz: Double) -> [UInt8] {
        let ms = rateHz > 0 && rateHz.isFinite ? Int(min(max((1000 / rateHz).rounded(), 25), 65_535)) : 1000
        return frame(messageClass: 0x06, id: 0x08, payload: le16(ms) + le16(1) + le16(1))
    }

    /// UBX-CFG-RXM (0x06 0x11): `reserved1` 8, `lpMode` 0 continuous or 1 power save.
    public static func cfgRXM(powerSave: Bool) -> [UInt8] {
        frame(messageClass: 0x06, id: 0x11, payload: [0x08, powerSave ? 0x01 : 0x00])
    }

    /// UBX-CFG-PM2 (0x06 0x3B, version 1, 44 bytes): `flags` with `waitTimeFix` (bit 10), `updateEPH` (bit 12: wake to
    /// keep the ephemerides fresh) and `mode` (bits 17–18: 1 cyclic tracking for periods up to
    /// `cyclicTrackingMaximumPeriodS`, else 0 ON/OFF); `updatePeriod` the period, ms; `searchPeriod` the retry period
    /// after a failed acquisition (the period, at least 10 s), ms; `gridOffset` 0; `onTime` 1 s; `minAcqTime` 0.
    public static func cfgPM2(updatePeriodS: Double) -> [UInt8] {
        let periodMs = updatePeriodS.isFinite ? Int(min(max((updatePeriodS * 1000).rounded(), 1000), 4_000_000_000)) : 1000
        let cyclic = Double(periodMs) / 1000 <= cyclicTrackingMaximumPeriodS
        let flags = 1 << 10 | 1 << 12 | (cyclic ? 1 << 17 : 0)
        var payload: [UInt8] = [0x01, 0x00, 0x00, 0x00] // version, reserved1, maxStartupStateDur, reserved2
        payload += le32(flags) + le32(periodMs) + le32(max(periodMs, 10_000)) + le32(0)
        payload += le16(1) + le16(0) + [UInt8](repeating: 0, count: 20)
        return frame(messageClass: 0x06, id: 0x3B, payload: payload)
    }

    /// UBX-RXM-PMREQ (0x02 0x41, version 0, 16 bytes): `duration` 0 (until woken), `flags` backup (bit 1) and force
    /// (bit 2), `wakeupSources` uartrx (bit 3).
    public static var rxmPMREQBackup: [UInt8] {
        frame(messageClass: 0x02, id: 0x41, payload: [0, 0, 0, 0] + le32(0) + le32(1 << 1 | 1 << 2) + le32(1 << 3))
    }

    /// The frames that put a receiver in `mode`: continuous → CFG-RXM continuous and CFG-RATE; power save → CFG-PM2,
    /// then CFG-RXM power save (the description's order: configure, then switch); off → RXM-PMREQ backup.
    public static func commands(for mode: GNSSReceiverMode) -> [UInt8] {
        switch mode {
        case .continuous(let rateHz): cfgRXM(powerSave: false) + cfgRate(rateHz: rateHz)
        case .powerSave(let periodS): cfgPM2(updatePeriodS: periodS) + cfgRXM(powerSave: true)
        case .off: rxmPMREQBackup
        }
    }
}
