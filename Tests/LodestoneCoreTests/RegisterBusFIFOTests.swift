import LodestoneCore
import Testing

/// `RegisterBus.readFIFO(address:register:frameBytes:into:)`: the one way every bus reads a FIFO read-out register.
@Suite struct RegisterBusFIFOTests {
    /// A bus that records each read's start register and length and fills it from a counter (the FIFO's bytes in
    /// order), reading at most `maximumReadBytes` at a time.
    final class RecordingBus: RegisterBus {
        let name = "recording"
        let maximumReadBytes: Int
        private(set) var reads: [(register: UInt8, count: Int)] = []
        private var next: UInt8 = 0
        init(maximumReadBytes: Int) { self.maximumReadBytes = maximumReadBytes }
        func read(address: UInt8, register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(BusError) {
            #expect(buffer.count <= maximumReadBytes, "a FIFO piece longer than the bus reads at once")
            reads.append((register, buffer.count))
            for i in 0..<buffer.count { buffer[i] = next; next &+= 1 }
        }
        func write(address: UInt8, register: UInt8, bytes: UnsafeRawBufferPointer) throws(BusError) {}
        func isPresent(address: UInt8) -> Bool { true }
    }

    func readFIFO(_ bus: RecordingBus, register: UInt8, frameBytes: Int, count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0xEE, count: count)
        try bytes.withUnsafeMutableBytes { try bus.readFIFO(address: 0x68, register: register, frameBytes: frameBytes, into: $0) }
        return bytes
    }

    @Test func aBusWithoutALimitReadsTheWholeFIFOInOneTransaction() throws {
        let bus = RecordingBus(maximumReadBytes: .max)
        #expect(try readFIFO(bus, register: 0x72, frameBytes: 1, count: 504) == (0..<504).map { UInt8(truncatingIfNeeded: $0) })
        #expect(bus.reads.map(\.count) == [504] && bus.reads[0].register == 0x72)
    }

    /// SMBus-only I2C (32 bytes a transfer): every piece restarts at the FIFO register, never `register + 32`.
    @Test func aPortThatDoesNotAdvanceIsReadInFullPiecesEachAtThePort() throws {
        let bus = RecordingBus(maximumReadBytes: 32)
        #expect(try readFIFO(bus, register: 0x14, frameBytes: 1, count: 70) == (0..<70).map { UInt8($0) })
        #expect(bus.reads.map(\.count) == [32, 32, 6] && bus.reads.allSatisfy { $0.register == 0x14 })
    }

    /// A window the chip wraps over (the LPS22HB's 5-byte slot, the LSM6DSOX's 7-byte word) is never cut: 30 and 28.
    @Test(arguments: [(5, [30, 30, 15]), (7, [28, 28, 28, 7])])
    func aWrappingWindowIsReadInWholeFrames(frameBytes: Int, pieces: [Int]) throws {
        let bus = RecordingBus(maximumReadBytes: 32)
        _ = try readFIFO(bus, register: 0x28, frameBytes: frameBytes, count: pieces.reduce(0, +))
        #expect(bus.reads.map(\.count) == pieces && bus.reads.allSatisfy { $0.register == 0x28 })
    }

    @Test func aFrameLongerThanTheBusCanReadIsUnsupportedNotSplit() throws {
        let bus = RecordingBus(maximumReadBytes: 1) // an adapter with SMBus byte reads only
        #expect {
            _ = try readFIFO(bus, register: 0x28, frameBytes: 5, count: 10)
        } throws: { error in
            guard let e = error as? BusError else { return false }
            return e.kind == .unsupported && e.register == 0x28 && e.operation.contains("frames of 5 bytes")
        }
        #expect(bus.reads.isEmpty)
        #expect(try readFIFO(bus, register: 0x72, frameBytes: 1, count: 3) == [0, 1, 2] && bus.reads.count == 3)
    }
}
