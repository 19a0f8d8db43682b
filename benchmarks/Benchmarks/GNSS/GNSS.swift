// GNSS decoding (LodestoneLocation.GNSSDecoder): the per-fix path allocates nothing once warmed up, and a 1 MB
// receiver log decodes in well under a second.
//
// Inputs are built before `startMeasurement()`: NMEA epochs as a receiver sends them (RMC, GGA, GSA, three
// GSV, VTG, ZDA with advancing UTC, checksums computed), UBX NAV-PVT frames, a dead-reckoning receiver's
// seconds (one NAV-PVT, ten HNR-PVT), and 1 MiB of gpsd's development
// logs from ../shared/datasets/nmea concatenated (real receivers' output, defects included). The decoder is
// warmed up on the same input first, so its sky-view storage has reached its size.

import Benchmark
import BenchmarkSupport
import Foundation
import LodestoneCore
import LodestoneLocation

func sentence(_ body: String) -> String {
    var x: UInt8 = 0
    for c in body.utf8 { x ^= c }
    let hex = String(x, radix: 16, uppercase: true)
    return "$" + body + "*" + (hex.count == 1 ? "0" : "") + hex + "\r\n"
}

/// `count` one-second NMEA epochs, each as its own byte array.
func nmeaEpochs(_ count: Int) -> [[UInt8]] {
    (0..<count).map { i in
        let s = 10_000 + i
        let hhmmss = String(format: "%02d%02d%02d.00", (s / 3600) % 24, (s / 60) % 60, s % 60)
        let lat = String(format: "4807.%04d", i % 10_000)
        var e = sentence("GPRMC,\(hhmmss),A,\(lat),N,01131.000,E,022.4,084.4,230394,003.1,W,A")
        e += sentence("GPGGA,\(hhmmss),\(lat),N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
        e += sentence("GPGSA,A,3,04,05,09,12,24,25,,,,,,,2.5,1.3,2.1")
        e += sentence("GPGSV,3,1,12,04,40,083,46,05,17,308,41,09,07,344,39,12,22,228,45")
        e += sentence("GPGSV,3,2,12,24,40,083,46,25,17,308,41,26,07,344,39,29,22,228,45")
        e += sentence("GPGSV,3,3,12,31,40,083,46,32,17,308,41,02,07,344,,07,22,228,")
        e += sentence("GPVTG,084.4,T,087.5,M,022.4,N,041.5,K,A")
        e += sentence("GPZDA,\(hhmmss),23,03,1994,00,00")
        return Array(e.utf8)
    }
}

/// A UBX frame: sync, class, id, length, payload, Fletcher-8 checksum (u-blox M8 Receiver Description §32.4).
func ubxFrame(_ cls: UInt8, _ id: UInt8, _ payload: [UInt8]) -> [UInt8] {
    var body: [UInt8] = [cls, id, UInt8(payload.count & 0xFF), UInt8(payload.count >> 8)] + payload
    var a: UInt8 = 0, b: UInt8 = 0
    for c in body { a &+= c; b &+= a }
    body += [a, b]
    return [0xB5, 0x62] + body
}

/// A UBX NAV-PVT frame (u-blox M8 Receiver Description §32.17.30) with iTOW `tow` ms.
func navPVT(tow: UInt32) -> [UInt8] {
    var p = [UInt8](repeating: 0, count: 92)
    func put32(_ v: UInt32, _ o: Int) { for k in 0..<4 { p[o + k] = UInt8(truncatingIfNeeded: v >> (8 * k)) } }
    put32(tow, 0)
    p[4] = 0xE1; p[5] = 0x07; p[6] = 7; p[7] = 19; p[8] = 8; p[9] = 50; p[10] = UInt8(tow / 1000 % 60); p[11] = 0x07
    p[20] = 3; p[21] = 0x01; p[23] = 12
    put32(UInt32(bitPattern: 1_386_081_199), 24); put32(UInt32(bitPattern: -349_062_266), 28)
    put32(25_378, 32); put32(28_849, 36); put32(1133, 40); put32(1603, 44)
    return ubxFrame(0x01, 0x07, p)
}

/// A dead-reckoning receiver's output (u-blox M8 Receiver Description §32.9.1, §32.17.30): per second, one
/// NAV-PVT navigation solution (diffSoln, velD −39 mm/s) followed by ten HNR-PVT high-rate frames, 100 ms apart,
/// which inherit its status and vertical velocity. Returns the frames in order and marks the HNR-PVT ones.
func deadReckoningSeconds(_ count: Int) -> [(frame: [UInt8], highRate: Bool)] {
    func put32(_ v: UInt32, _ p: inout [UInt8], _ o: Int) {
        for k in 0..<4 { p[o + k] = UInt8(truncatingIfNeeded: v >> (8 * k)) }
    }
    var out: [(frame: [UInt8], highRate: Bool)] = []
    for s in 0..<count {
        let tow = 344_783_000 + UInt32(s) * 1000
        var nav = [UInt8](repeating: 0, count: 92)
        put32(tow, &nav, 0)
        nav[4] = 0xE5; nav[5] = 0x07; nav[6] = 6; nav[7] = 16; nav[8] = 23; nav[9] = 46; nav[10] = UInt8((tow / 1000 - 18) % 60)
        nav[11] = 0x07; nav[20] = 3; nav[21] = 0x23; nav[23] = 15
        put32(UInt32(bitPattern: -1_213_140_888), &nav, 24); put32(440_688_579, &nav, 28)
        put32(1_111_880, &nav, 32); put32(1_133_230, &nav, 36); put32(UInt32(bitPattern: -39), &nav, 56)
        out.append((ubxFrame(0x01, 0x07, nav), false))
        for k in 0..<10 {
            let t = tow + 400 + UInt32(k) * 100
            var p = [UInt8](repeating: 0, count: 72)
            put32(t, &p, 0)
            p[4] = 0xE5; p[5] = 0x07; p[6] = 6; p[7] = 16; p[8] = 23; p[9] = 46; p[10] = UInt8((t / 1000 - 18) % 60)
            p[11] = 0x07; put32((t % 1000) * 1_000_000, &p, 12); p[16] = 3; p[17] = 0x1D
            put32(UInt32(bitPattern: -1_213_140_888), &p, 20); put32(440_688_579, &p, 24)
            put32(1_111_895 + UInt32(k) * 4, &p, 28); put32(1_133_245 + UInt32(k) * 4, &p, 32)
            put32(19, &p, 36); put32(43, &p, 40); put32(3024, &p, 52); put32(6079, &p, 56)
            out.append((ubxFrame(0x28, 0x00, p), true))
        }
    }
    return out
}

/// About 1 MiB of the development logs, concatenated.
func megabyteOfLogs() -> [UInt8] {
    let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../../../../shared/datasets/nmea"
    ).standardized
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasSuffix(".log") }.sorted()
    var bytes: [UInt8] = []
    while bytes.count < 1 << 20 && !names.isEmpty {
        for n in names { bytes += (try? Data(contentsOf: dir.appendingPathComponent(n))).map(Array.init) ?? [] }
    }
    return Array(bytes.prefix(1 << 20))
}

let benchmarks: @Sendable () -> Void = {
    let configuration = LodestoneBenchmarkPolicy.configuration

    // One operation: one NMEA epoch (8 sentences, 560 bytes) decoded into its fix report.
    Benchmark("NMEA.epoch", configuration: configuration) { benchmark in
        let epochs = nmeaEpochs(2000)
        var decoder = GNSSDecoder()
        var fixes = 0
        for e in epochs { e.withUnsafeBytes { decoder.feed($0) { if case .report = $0 { fixes += 1 } } } }
        var i = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            epochs[i].withUnsafeBytes { decoder.feed($0) { if case .report = $0 { fixes += 1 } } }
            i = i + 1 == epochs.count ? 0 : i + 1
        }
        benchmark.stopMeasurement()
        blackHole(fixes)
    }

    // One operation: one UBX NAV-PVT frame decoded into its fix report.
    Benchmark("UBX.navPVT", configuration: configuration) { benchmark in
        let frames = (0..<1000).map { navPVT(tow: 291_000_000 + UInt32($0) * 200) }
        var decoder = GNSSDecoder()
        var fixes = 0
        for f in frames { f.withUnsafeBytes { decoder.feed($0) { if case .report = $0 { fixes += 1 } } } }
        var i = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            frames[i].withUnsafeBytes { decoder.feed($0) { if case .report = $0 { fixes += 1 } } }
            i = i + 1 == frames.count ? 0 : i + 1
        }
        benchmark.stopMeasurement()
        blackHole(fixes)
    }

    // One operation: one second of a dead-reckoning receiver, a NAV-PVT and ten HNR-PVT frames, decoded into
    // ten high-rate fix reports that inherit the navigation solution's status and vertical velocity.
    Benchmark("UBX.highRateSecond", configuration: configuration) { benchmark in
        let seconds = deadReckoningSeconds(200)
        var decoder = GNSSDecoder()
        var fixes = 0
        for f in seconds { f.frame.withUnsafeBytes { decoder.feed($0) { if case .report = $0 { fixes += 1 } } } }
        var i = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            repeat {
                seconds[i].frame.withUnsafeBytes { decoder.feed($0) { if case .report = $0 { fixes += 1 } } }
                i = i + 1 == seconds.count ? 0 : i + 1
            } while seconds[i].highRate
        }
        benchmark.stopMeasurement()
        blackHole(fixes)
    }

    // One operation: 1 MiB of real receiver logs (NMEA and UBX, with their defects) decoded whole. Not scaled:
    // the wall time of one iteration is the time per megabyte.
    var megabyte = configuration
    megabyte.scalingFactor = .one
    megabyte.maxIterations = 20
    Benchmark("Log.megabyte", configuration: megabyte) { benchmark in
        let bytes = megabyteOfLogs()
        var decoder = GNSSDecoder()
        var fixes = 0
        bytes.withUnsafeBytes { decoder.feed($0) { if case .report = $0 { fixes += 1 } } }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            bytes.withUnsafeBytes { decoder.feed($0) { if case .report = $0 { fixes += 1 } } }
        }
        benchmark.stopMeasurement()
        blackHole(fixes)
    }
}
