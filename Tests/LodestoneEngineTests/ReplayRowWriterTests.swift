import Foundation
@testable import LodestoneCLI
import LodestoneEngine
import LodestoneTrace
import Testing

/// The replay's rows formatted and written on a thread of their own (`ThreadedRowWriter`): the same lines in the same
/// order as formatting them in the loop, across batch boundaries and ring wrap-arounds; a broken output stops the loop
/// and nothing is written after the line that broke it; a writer dropped without `finish()` writes what it was given
/// and ends its thread. In ThreadSanitizer's subset (scripts/sanitize).
@Suite struct ReplayRowWriterTests {
    /// Collects the lines written (by the writer's thread; read after `finish()`), breaking after `limit` of them
    /// as standard output does when its reader goes away.
    final class Lines: LineOutput, @unchecked Sendable {
        let limit: Int
        private(set) var lines: [String] = []
        init(limit: Int = .max) { self.limit = limit }
        var isBroken: Bool { lines.count >= limit }
        func write(_ line: String) { lines.append(line) }
        func writeRaw(_ text: String) {}
        func flush() {}
    }

    /// Records row `i`'s cells: its number, a value with 3 decimals, a text every third row and an empty cell.
    static func record(row i: Int, on tape: inout CellTape) {
        tape.appendFixed(Double(i) * 0.01, digits: 2)
        tape.appendCell(Double(i) * -1.2345, digits: 3)
        tape.appendCell(i % 3 == 0 ? "walk" : nil)
        tape.appendCell(i)
        tape.endRow()
    }

    /// Row `i`'s line, formatted here.
    static func line(_ i: Int) -> String {
        var tape = CellTape()
        record(row: i, on: &tape)
        return tape.text
    }

    /// The lines `rows` rows give through `writer`, recorded as `ReplayJob`'s loop records them.
    static func lines(_ rows: Int, through writer: some ReplayRowWriter) -> Int {
        var recorded = 0
        for i in 0..<rows {
            record(row: i, on: &writer.tape.pointee)
            recorded += 1
            guard writer.rowRecorded() else { break }
        }
        writer.finish()
        return recorded
    }

    @Test(arguments: [0, 1, 511, 512, 513, 2_047, 2_048, 2_049, 5_000])
    func theThreadWritesTheLinesTheLoopWouldHave(rows: Int) {
        var direct: [String] = []
        let directWriter = DirectRowWriter(write: { direct.append(String(decoding: $0, as: UTF8.self)) })
        #expect(Self.lines(rows, through: directWriter) == rows)
        let output = Lines()
        #expect(Self.lines(rows, through: ThreadedRowWriter(output: output)) == rows)
        #expect(output.lines.count == rows)
        #expect(output.lines == direct)
    }

    @Test(arguments: [1, 10, 512, 700])
    func aBrokenOutputStopsTheLoopAndGetsNothingMore(limit: Int) {
        let output = Lines(limit: limit)
        let recorded = Self.lines(100_000, through: ThreadedRowWriter(output: output))
        #expect(output.lines.count == limit)
        #expect(output.lines == (0..<limit).map(Self.line))
        // The loop learns of it when it hands a tape over: at most the ring's rows and the one being filled later.
        #expect(recorded <= limit + ThreadedRowWriter.batchRows * (ThreadedRowWriter.batchCount + 1), "\(recorded) rows")
    }

    @Test func aWriterDroppedWithoutFinishWritesWhatItHadAndEnds() {
        let output = Lines()
        do {
            let writer = ThreadedRowWriter(output: output)
            for i in 0..<1_300 {
                Self.record(row: i, on: &writer.tape.pointee)
                _ = writer.rowRecorded()
            }
        }
        #expect(output.lines == (0..<1_300).map(Self.line))
    }

    /// `replay` to an output (the writer's thread) and to a closure (formatted in the loop): the same lines.
    @Test func replayWritesTheSameLinesEitherWay() throws {
        let path = try TracePrefetcherTests.write(TracePrefetcherTests.trace(rows: 3_000))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var emitted: [String] = []
        let n = try ReplayJob(inputPath: path).run { emitted.append($0) }
        let output = Lines()
        #expect(try ReplayJob(inputPath: path).run(output: output) == n)
        #expect(n == 3_000 && emitted.count == 3_001)
        #expect(output.lines == emitted)
    }
}
