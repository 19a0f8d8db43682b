import LodestoneCore
import LodestoneSimulation
import Testing

/// The simulator's fault injection for the soak and the hostile-hardware tests (issue 18): random transfer faults at a
/// rate, a chip answering garbage, a stuck register released, the receiver stopped and restarted, the sky hidden.
@Suite struct SimulatedFaultInjectionTests {
    func board(scenario: String = "walk") throws -> SimulatedBoard {
        try SimulatedBoard(
            scenario: Scenario.named(scenario)!,
            placements: [
                .init(id: "imu", chip: "mpu9250", address: 0x68, mount: .identity, rateHz: 100),
                .init(id: "baro", chip: "bmp280", address: 0x76, mount: .identity, rateHz: 25)
            ], seed: 1)
    }

    /// 200 000 reads at NACK 1e-3 and EIO 2e-4: each count within 5σ of its binomial mean, and the errors say which.
    @Test func randomFaultsFailTransfersAtTheirRates() throws {
        let b = try board()
        b.bus.setRandomFaults(RandomFaultRates(nackPerTransfer: 1e-3, ioErrorPerTransfer: 2e-4), seed: 7)
        var nacks = 0, eios = 0
        var byte: UInt8 = 0
        let n = 200_000
        for _ in 0..<n {
            do {
                try withUnsafeMutableBytes(of: &byte) { try b.bus.read(address: 0x76, register: 0xD0, into: $0) }
            } catch let error as BusError {
                if error.kind == .nack { nacks += 1 } else if error.kind == .io { eios += 1 }
            }
        }
        #expect(b.bus.randomNACKCount == nacks && b.bus.randomIOErrorCount == eios)
        for (count, p) in [(nacks, 1e-3), (eios, 2e-4)] {
            let mean = Double(n) * p, sigma = (Double(n) * p * (1 - p)).squareRoot()
            #expect(abs(Double(count) - mean) < 5 * sigma, "\(count) faults, expected \(mean) ± \(sigma)")
        }
    }

    /// A chip answering garbage: all 0xFF, all 0x00, random bytes (not all equal over 64), then its registers again.
    @Test(arguments: GarbagePattern.allCases)
    func aChipAnswersGarbageUntilCleared(_ pattern: GarbagePattern) throws {
        let b = try board()
        var bytes = [UInt8](repeating: 0x55, count: 64)
        func read() throws {
            try bytes.withUnsafeMutableBytes { buffer in try b.bus.read(address: 0x76, register: 0x88, into: buffer) }
        }
        try read()
        let trim = bytes
        b.bus.setGarbage(pattern, address: 0x76)
        try read()
        switch pattern {
        case .allOnes: #expect(bytes.allSatisfy { $0 == 0xFF })
        case .allZeros: #expect(bytes.allSatisfy { $0 == 0 })
        case .random: #expect(Set(bytes).count > 16)
        }
        b.bus.setGarbage(nil, address: 0x76)
        try read()
        #expect(bytes == trim)
    }

    /// A stuck register removed by `remove(_:)` reads the chip's value again.
    @Test func aStuckRegisterIsReleased() throws {
        let b = try board()
        var id: UInt8 = 0
        func read() throws -> UInt8 {
            try withUnsafeMutableBytes(of: &id) { buffer in try b.bus.read(address: 0x76, register: 0xD0, into: buffer) }
            return id
        }
        let fault = SimulatedFault.stuck(address: 0x76, register: 0xD0, value: 0x12)
        b.bus.inject(fault)
        #expect(try read() == 0x12)
        b.bus.remove(fault)
        #expect(try read() == 0x58) // BMP280's chip ID
    }

    /// A stopped receiver gives no fix, whatever mode it is commanded to, and restarts in the mode last commanded; a
    /// hidden sky gives none until it is cleared.
    @Test func aStoppedReceiverRestartsAndAHiddenSkyReturns() throws {
        let b = try board()
        func fixes(from: Double, to: Double) -> Int {
            var n = 0
            var t = from
            while t < to {
                b.advance(toTimeS: t)
                if b.hasNewFix { n += 1 }
                t += 0.1
            }
            return n
        }
        #expect(fixes(from: 0, to: 30) > 20)
        b.stopReceiver(timeS: 30)
        b.setGNSSMode(.continuous(rateHz: 1), timeS: 31)
        #expect(fixes(from: 30, to: 60) == 0)
        b.restartReceiver(timeS: 60)
        #expect(fixes(from: 60, to: 90) > 15)
        b.isGNSSBlocked = true
        #expect(fixes(from: 90, to: 120) == 0)
        b.isGNSSBlocked = false
        #expect(fixes(from: 120, to: 150) > 15)
    }
}
