import LodestoneSimulation
import Testing
@testable import LodestoneTrace

/// `CellTape` against `CSVLine` itself: the same calls recorded on a tape and formatted later give exactly the bytes
/// the calls give when made on the line (replay's output must not change by a byte when its text is written on
/// another thread), row by row.
@Suite struct CellTapeTests {
    /// One recorded call.
    enum Call {
        case number(Double?, digits: Int)
        case fixed(Double, digits: Int)
        case integer(Int?)
        case text(String?)
        case empty(Int)

        func make(on line: inout CSVLine) {
            switch self {
            case let .number(v, d): line.appendCell(v, digits: d)
            case let .fixed(v, d): line.appendFixed(v, digits: d)
            case let .integer(v): line.appendCell(v)
            case let .text(v): line.appendCell(v)
            case let .empty(n): line.appendEmptyCells(n)
            }
        }

        func record(on tape: inout CellTape) {
            switch self {
            case let .number(v, d): tape.appendCell(v, digits: d)
            case let .fixed(v, d): tape.appendFixed(v, digits: d)
            case let .integer(v): tape.appendCell(v)
            case let .text(v): tape.appendCell(v)
            case let .empty(n): tape.appendEmptyCells(n)
            }
        }
    }

    /// Random calls: `CSVLineTests`' values (every magnitude, halves, the 9·10¹⁸ fallback, non-finite ones, `nil`),
    /// integers to both ends, texts empty, long and multi-byte, runs of empty cells.
    static func calls(count: Int, seed: UInt64) -> [Call] {
        let values = CSVLineTests.values(count: count, seed: seed)
        let texts: [String?] = [nil, "", "walk", "stationary", "höhe µT °", String(repeating: "x", count: 300)]
        let integers: [Int?] = [nil, 0, 1, -1, 42, -97_531, Int.max, Int.min, 1 << 40]
        var random = SeededGenerator(seed: seed &+ 99)
        return values.enumerated().map { i, v in
            let digits = Int(random.next() % 20)
            switch random.next() % 8 {
            case 0: return .fixed(v, digits: digits)
            case 1: return .integer(integers[Int(random.next() % UInt64(integers.count))])
            case 2: return .text(texts[Int(random.next() % UInt64(texts.count))])
            case 3: return .empty(Int(random.next() % 25))
            case 4: return .number(nil, digits: digits)
            default: return .number(i % 97 == 0 ? nil : v, digits: digits)
            }
        }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func aTapeFormatsExactlyWhatTheLineWouldHaveWritten(seed: UInt64) {
        let calls = Self.calls(count: 20_000, seed: seed)
        var direct = CSVLine()
        var tape = CellTape(capacity: 16) // grows many times on the way
        for call in calls {
            call.make(on: &direct)
            call.record(on: &tape)
        }
        var formatted = CSVLine()
        tape.format(into: &formatted)
        #expect(formatted.text == direct.text)
    }

    @Test func rowsComeBackOneByOneInOrder() {
        let calls = Self.calls(count: 3_000, seed: 7)
        var tape = CellTape()
        var expected: [String] = []
        var start = 0
        var random = SeededGenerator(seed: 11)
        while start < calls.count {
            let end = min(calls.count, start + Int(random.next() % 40)) // empty rows too
            var line = CSVLine()
            for call in calls[start..<end] {
                call.make(on: &line)
                call.record(on: &tape)
            }
            tape.endRow()
            expected.append(line.text)
            start = max(end, start + 1)
        }
        #expect(tape.rowCount == expected.count)
        var line = CSVLine()
        var rows: [String] = []
        let passed = tape.rows(formattingInto: &line) { bytes in
            rows.append(String(decoding: bytes, as: UTF8.self))
            return true
        }
        #expect(passed == expected.count)
        #expect(rows == expected)
    }

    @Test func rowsStopWhenTheBodySaysSo() {
        var tape = CellTape()
        for i in 0..<10 {
            tape.appendFixed(Double(i), digits: 1)
            tape.endRow()
        }
        var line = CSVLine()
        var seen: [String] = []
        let passed = tape.rows(formattingInto: &line) { bytes in
            seen.append(String(decoding: bytes, as: UTF8.self))
            return seen.count < 3
        }
        #expect(passed == 3)
        #expect(seen == ["0.0", "1.0", "2.0"])
    }

    @Test func anEmptiedTapeKeepsNothingOfItsRows() {
        var tape = CellTape(capacity: 8)
        tape.appendCell("walk")
        tape.appendCell(3.25, digits: 2)
        tape.endRow()
        tape.removeAll()
        #expect(tape.count == 0 && tape.rowCount == 0)
        tape.appendCell(7)
        tape.endRow()
        var line = CSVLine()
        var rows: [String] = []
        tape.rows(formattingInto: &line) { bytes in
            rows.append(String(decoding: bytes, as: UTF8.self))
            return true
        }
        #expect(rows == [",7"])
    }
}
