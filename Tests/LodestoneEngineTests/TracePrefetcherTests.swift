import Foundation
import LodestoneTrace
import Testing
@testable import LodestoneEngine

/// The replay's parser on a thread of its own (`TracePrefetcher`): the same rows and the same error as the parser read
/// in place, across batch boundaries and ring wrap-arounds, and a loop that stops early ends the thread. In
/// ThreadSanitizer's subset (scripts/sanitize).
@Suite struct TracePrefetcherTests {
    /// A trace of `rows` rows (time 0.01 s apart); `badRow` (1-based) gets a cell that is not a number.
    static func trace(rows: Int, badRow: Int? = nil) -> String {
        var text = "t_s,acc_x,acc_y,acc_z,gyr_x,gyr_y,gyr_z\n"
        for i in stride(from: 1, through: rows, by: 1) {
            let x = i == badRow ? "x\(i)" : String(Double(i) * 0.001)
            text += "\(Double(i) * 0.01),\(x),0.5,9.81,0.01,\(-Double(i) * 1e-4),0\n"
        }
        return text
    }

    static func write(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("prefetch-\(getpid())-\(UUID().uuidString).csv").path
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    /// Every row through the prefetcher, and its error at the end.
    static func prefetched(_ path: String) throws -> (rows: [TraceRow], error: TraceError?) {
        var parser = try TraceParser(reading: path)
        try parser.readHeader()
        let prefetcher = TracePrefetcher(parser: parser)
        var rows: [TraceRow] = []
        while let row = prefetcher.nextRow() { rows.append(row.pointee) }
        #expect(prefetcher.nextRow() == nil, "the end stays the end")
        return (rows, prefetcher.error)
    }

    /// The input read to its end and the prefetcher dropped afterwards, or before the producer has finished: either
    /// way the thread is joined by the consumer (a producer that let go of the last reference would have had to join
    /// itself: ThreadSanitizer reported that thread as leaked).
    @Test func theThreadIsJoinedWhoeverFinishesFirst() throws {
        let path = try Self.write(Self.trace(rows: 3000))
        defer { try? FileManager.default.removeItem(atPath: path) }
        for readAll in [true, false] {
            var parser = try TraceParser(reading: path)
            try parser.readHeader()
            var prefetcher: TracePrefetcher? = TracePrefetcher(parser: parser)
            weak var ring: TracePrefetcher.Ring?
            ring = prefetcher?.ring
            if readAll { while prefetcher?.nextRow() != nil {} }
            prefetcher = nil
            #expect(ring == nil, "read all: \(readAll)")
        }
    }

    /// The same, read in place by the parser.
    static func parsed(_ path: String) throws -> (rows: [TraceRow], error: TraceError?) {
        var parser = try TraceParser(reading: path)
        var rows: [TraceRow] = []
        do {
            while let row = try parser.next() { rows.append(row) }
        } catch { return (rows, error) }
        return (rows, nil)
    }

    /// Lengths around the batch (512 rows) and the ring (4 batches: 2 048 rows), none, and errors inside a later batch
    /// and on a batch's last row.
    @Test(
        arguments: [
            (0, nil), (1, nil), (511, nil), (512, nil), (513, nil), (2048, nil), (2049, nil), (5000, nil), (5000, 3333),
            (3000, 1024), (700, 1)
        ] as [(Int, Int?)])
    func theRowsAndTheErrorAreTheParsers(rows: Int, badRow: Int?) throws {
        let path = try Self.write(Self.trace(rows: rows, badRow: badRow))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let expected = try Self.parsed(path)
        let got = try Self.prefetched(path)
        // The first row that differs, not the whole arrays (thousands of rows in a failure's message).
        #expect(got.rows.count == expected.rows.count)
        let firstDifference = zip(got.rows, expected.rows).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(firstDifference == nil, "row \(firstDifference.map { $0 + 1 } ?? 0) differs")
        #expect(got.error == expected.error)
        #expect(got.rows.count == (badRow.map { $0 - 1 } ?? rows))
        if let badRow {
            #expect(got.error?.line == badRow + 1 && got.error?.column == "acc_x", "\(String(describing: got.error))")
        }
    }

    /// A loop that stops after a few rows (the output's disk is full) drops the prefetcher while its thread waits for a
    /// free batch: the thread ends and nothing hangs.
    @Test func stoppingEarlyEndsTheThread() throws {
        let path = try Self.write(Self.trace(rows: 20_000))
        defer { try? FileManager.default.removeItem(atPath: path) }
        for stopAfter in [0, 1, 600, 3000] {
            var parser = try TraceParser(reading: path)
            try parser.readHeader()
            var prefetcher: TracePrefetcher? = TracePrefetcher(parser: parser)
            weak var ring: TracePrefetcher.Ring?
            ring = prefetcher?.ring
            for _ in 0..<stopAfter { #expect(prefetcher?.nextRow() != nil) }
            prefetcher = nil
            // The producer's thread, waiting for a free batch, was stopped and joined: it holds the ring no more.
            #expect(ring == nil, "after \(stopAfter) rows the producer still holds the ring")
        }
    }

    /// `replay` through the prefetcher: the rows in time order, then time going backwards ends the input with the
    /// line named, as before.
    @Test func traceInputKeepsItsChecks() throws {
        var text = Self.trace(rows: 1500)
        text += "1.0,0,0,9.81,0,0,0\n"
        let path = try Self.write(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var input = try TraceInput(path: path)
        var count = 0
        while input.takeSample() != nil { count += 1 }
        #expect(count == 1500)
        #expect(input.error?.line == 1502 && input.error?.problem.contains("time goes backwards") == true)
    }
}
