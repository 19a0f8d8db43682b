import Foundation
@testable import LodestoneGNSSSources
import LodestoneSources
import LodestoneCore
import LodestoneLinux
import LodestoneLocation
import Testing

/// The UBX power commands a u-blox receiver is sent (u-blox M8 receiver description UBX-13003221: CFG-RATE, CFG-RXM,
/// CFG-PM2, RXM-PMREQ; 8-bit Fletcher checksum), checked byte for byte, decoded by the project's UBX framer, and
/// written through a pseudo-terminal by the serial source; receivers that cannot be commanded keep running.
@Suite(.serialized) struct GNSSPowerCommandTests {
    static func bytes(_ hex: String) -> [UInt8] { hex.split(separator: " ").compactMap { UInt8($0, radix: 16) } }

    /// Frames whose checksums were computed by hand (CFG-RATE 1 Hz and CFG-RXM are also the frames u-center sends).
    @Test func framesMatchHandCheckedBytes() {
        #expect(UBXPowerCommands.cfgRate(rateHz: 1) == Self.bytes("B5 62 06 08 06 00 E8 03 01 00 01 00 01 39"))
        #expect(UBXPowerCommands.cfgRate(rateHz: 5) == Self.bytes("B5 62 06 08 06 00 C8 00 01 00 01 00 DE 6A"))
        #expect(UBXPowerCommands.cfgRXM(powerSave: true) == Self.bytes("B5 62 06 11 02 00 08 01 22 92"))
        #expect(UBXPowerCommands.cfgRXM(powerSave: false) == Self.bytes("B5 62 06 11 02 00 08 00 21 91"))
        #expect(
            UBXPowerCommands.rxmPMREQBackup
                == Self.bytes("B5 62 02 41 10 00 00 00 00 00 00 00 00 00 06 00 00 00 08 00 00 00 61 6B"))
        // 60 s: ON/OFF (flags 0x00001400: waitTimeFix, updateEPH), updatePeriod = searchPeriod = 60000 ms, onTime 1 s.
        #expect(
            UBXPowerCommands.cfgPM2(updatePeriodS: 60)
                == Self.bytes(
                    "B5 62 06 3B 2C 00 01 00 00 00 00 14 00 00 60 EA 00 00 60 EA 00 00 00 00 00 00 01 00 00 00 "
                        + "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 17 01"))
        // 5 s: cyclic tracking (mode bit 17), searchPeriod at least 10 s.
        #expect(
            UBXPowerCommands.cfgPM2(updatePeriodS: 5)
                == Self.bytes(
                    "B5 62 06 3B 2C 00 01 00 00 00 00 14 02 00 88 13 00 00 10 27 00 00 00 00 00 00 01 00 00 00 "
                        + "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 57 EB"))
    }

    @Test func theFramerDecodesEveryCommandWithItsChecksum() {
        let stream =
            UBXPowerCommands.commands(for: .continuous(rateHz: 2)) + UBXPowerCommands.commands(for: .powerSave(updatePeriodS: 30))
            + UBXPowerCommands.commands(for: .off)
        var framer = GNSSFramer()
        var packets: [[UInt8]] = []
        for byte in stream where framer.push(byte) == .ubx {
            packets.append(framer.withPacket { Array($0) })
        }
        #expect(framer.badTotal == 0)
        // class, id and payload length of each frame
        #expect(
            packets.map { [$0[0], $0[1], $0[2]] } == [
                [0x06, 0x11, 2], [0x06, 0x08, 6], [0x06, 0x3B, 44], [0x06, 0x11, 2], [0x02, 0x41, 16]
            ])
        #expect(packets[1][4...5] == [0xF4, 0x01]) // measRate 500 ms
        #expect(packets[2][12...15] == [0x30, 0x75, 0, 0]) // updatePeriod 30000 ms
    }

    /// What arrived at the pty's master within `timeoutMs` of quiet.
    static func received(_ pty: PseudoTerminal, timeoutMs: Int32 = 200) -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var p = pollfd(fd: pty.master, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, timeoutMs) > 0 else { break }
            let n = buffer.withUnsafeMutableBytes { read(pty.master, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            out += buffer[0..<n]
        }
        return out
    }

    @Test func aUbloxReceiverIsCommandedThroughItsPort() throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        var source = GNSSSerialSource(id: "gnss", path: pty.slavePath, baudRate: 9600, chip: "ublox")
        #expect(source.canCommandPower && source.receiverModel == "ublox-m8")
        try source.start()
        #expect(Self.received(pty, timeoutMs: 50).isEmpty) // no mode set: nothing sent
        try source.setMode(.powerSave(updatePeriodS: 60), timeS: 0)
        #expect(Self.received(pty) == UBXPowerCommands.cfgPM2(updatePeriodS: 60) + UBXPowerCommands.cfgRXM(powerSave: true))
        #expect(source.powerState == .powerSaveIdle)
        try source.setMode(.off, timeS: 5)
        #expect(Self.received(pty) == UBXPowerCommands.rxmPMREQBackup)
        #expect(source.powerState == .off)
        // Woken by 0xFF bytes; the commands follow half a second later, at the next read.
        try source.setMode(.continuous(rateHz: 5), timeS: 10)
        #expect(Self.received(pty) == [UInt8](repeating: 0xFF, count: 8))
        #expect(source.powerState == .acquiring)
        _ = try source.read(timeS: 10.2)
        #expect(Self.received(pty, timeoutMs: 50).isEmpty)
        _ = try source.read(timeS: 10.6)
        #expect(Self.received(pty) == UBXPowerCommands.cfgRXM(powerSave: false) + UBXPowerCommands.cfgRate(rateHz: 5))
        // The first fix: tracking.
        let lines = try GNSSTestData.lines("firefly-II.log")
        var sent = 0
        let fixes = try GNSSTestData.collect(&source, count: 1, timeoutS: 10) { _ in
            if sent < lines.count { pty.send(Array(lines[sent].utf8)); sent += 1 }
        }
        #expect(fixes.count == 1)
        #expect(source.powerState == .tracking)
    }

    @Test func anNMEATalkerKeepsRunningAndIsAccountedAsTracking() throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        var source = GNSSSerialSource(id: "gnss", path: pty.slavePath, baudRate: 9600, chip: "nmea")
        #expect(!source.canCommandPower && source.receiverModel == "generic")
        try source.start()
        try source.setMode(.off, timeS: 0)
        #expect(source.mode == .off && source.powerState == .tracking)
        #expect(Self.received(pty, timeoutMs: 50).isEmpty)
        let lines = try GNSSTestData.lines("firefly-II.log")
        var sent = 0
        let fixes = try GNSSTestData.collect(&source, count: 3, timeoutS: 10) { _ in
            if sent < lines.count { pty.send(Array(lines[sent].utf8)); sent += 1 }
        }
        #expect(fixes.count == 3) // nothing dropped
    }

    @Test func gpsdAndRecordedLogsAreModelledAsAlwaysTracking() throws {
        var gpsd = GNSSGpsdSource(id: "g", host: "127.0.0.1", port: 2947)
        try gpsd.setMode(.powerSave(updatePeriodS: 60), timeS: 0)
        #expect(!gpsd.canCommandPower && gpsd.powerState == .tracking && gpsd.receiverModel == "generic")
        #expect(gpsd.mode == .powerSave(updatePeriodS: 60))
        var log = GNSSLogSource(
            id: "l", path: GNSSTestData.nmea.appendingPathComponent("firefly-II.log").path, receiverModel: "ublox-m8")
        try log.start()
        try log.setMode(.off, timeS: 0)
        #expect(!log.canCommandPower && log.powerState == .tracking && log.receiverModel == "ublox-m8")
        var fixes = 0
        for step in 0..<300 {
            if case .fix = try log.read(timeS: Double(step) * 0.01) { fixes += 1 }
        }
        #expect(fixes == 3) // the recording plays on: epochs at 0, 1 and 2 s
    }
}
