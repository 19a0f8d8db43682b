/// The cells of output rows as they were given, not yet written as text: a compact binary record that
/// `format(into:)` turns into exactly the bytes `CSVLine`'s `appendCell`/`appendFixed` calls would have written.
///
/// `lodestone replay` records each row's cells on the thread that fuses and formats them on another
/// (`ReplayJob`): writing decimals was a quarter of the fusing thread's time. Recording is a few stores per cell.
/// A tape may hold many rows, each closed by `endRow()`; `rows(_:)` walks them. Like `CSVLine`, it keeps its
/// buffer: once it has grown to its longest content, recording allocates nothing.
///
/// The record of one cell is a tag byte and its operands (unaligned, native byte order; a tape is read by the
/// process that wrote it): `,` alone; `,` and a number (digits, `Double`); a number alone (digits, `Double`);
/// `,` and an integer (`Int`); `,` and text (length as `Int32`, UTF-8 bytes); `n` commas (`Int32`); the end of a row.
///
/// The tape owns its buffer and is not copyable: recording a cell is a bounds check and a few stores, without the
/// uniqueness check (a call into the runtime) that an array's copy-on-write makes before every write. `@unchecked
/// Sendable`: it is handed between threads whole (the replay's writer ring), never shared.
public struct CellTape: ~Copyable, @unchecked Sendable {
    // The recording calls are `@inlinable` (and what they use `@usableFromInline`): the fusion stages record some 30
    // cells a row from another module, and a call each was a tenth of the recording.

    /// The buffer; `base[..<byteCount]` is the tape.
    @usableFromInline var base: UnsafeMutableRawPointer
    /// The buffer's size in bytes.
    @usableFromInline var capacity: Int
    /// The length of the tape in bytes.
    public var count: Int { byteCount }
    /// Rows closed by `endRow()` since the tape was last emptied.
    public var rowCount: Int { closedRows }
    @usableFromInline var byteCount = 0
    @usableFromInline var closedRows = 0

    /// The tags of the records.
    @usableFromInline enum Tag: UInt8 {
        case emptyCell = 0, numberCell, number, integerCell, textCell, emptyCells, endOfRow
    }

    /// The longest record with a fixed size: a tag, the digits and a `Double` (`Int` records are shorter).
    @usableFromInline static let longestFixedRecord = 10

    /// An empty tape with room for `capacity` bytes (it grows as needed).
    public init(capacity: Int = 256) {
        self.capacity = max(capacity, Self.longestFixedRecord)
        base = .allocate(byteCount: self.capacity, alignment: MemoryLayout<Int>.alignment)
    }

    deinit { base.deallocate() }

    /// Empties the tape, keeping its buffer.
    public mutating func removeAll() {
        byteCount = 0
        closedRows = 0
    }

    // MARK: recording (the same calls as `CSVLine`'s)

    /// Records `CSVLine.appendCell(value, digits:)`: `,` and the value, or just `,` when it is `nil` or not finite.
    @inlinable public mutating func appendCell(_ value: Double?, digits: Int) {
        precondition((0...19).contains(digits), "appendCell: digits must be 0…19")
        guard let value, value.isFinite else { return appendTag(.emptyCell) }
        appendNumber(.numberCell, value, digits: digits)
    }

    /// Records `CSVLine.appendFixed(value, digits:)`: the value alone (no comma first), `nan`/`inf` as such.
    @inlinable public mutating func appendFixed(_ value: Double, digits: Int) {
        precondition((0...19).contains(digits), "appendFixed: digits must be 0…19")
        appendNumber(.number, value, digits: digits)
    }

    /// Records `CSVLine.appendCell(value)` for an integer: `,` and the integer, or just `,` when it is `nil`.
    @inlinable public mutating func appendCell(_ value: Int?) {
        guard let value else { return appendTag(.emptyCell) }
        reserve(1 + MemoryLayout<Int>.size)
        base.storeBytes(of: Tag.integerCell.rawValue, toByteOffset: byteCount, as: UInt8.self)
        base.storeBytes(of: value, toByteOffset: byteCount + 1, as: Int.self)
        byteCount += 1 + MemoryLayout<Int>.size
    }

    /// Records `CSVLine.appendCell(text)`: `,` and the text as it is, or just `,` when it is `nil`.
    public mutating func appendCell(_ text: String?) {
        guard var text else { return appendTag(.emptyCell) }
        text.withUTF8 { bytes in
            precondition(bytes.count <= Int(Int32.max), "appendCell: a cell of 2 GiB or more")
            reserve(1 + MemoryLayout<Int32>.size + bytes.count)
            base.storeBytes(of: Tag.textCell.rawValue, toByteOffset: byteCount, as: UInt8.self)
            base.storeBytes(of: Int32(bytes.count), toByteOffset: byteCount + 1, as: Int32.self)
            if let source = bytes.baseAddress {
                (base + byteCount + 1 + MemoryLayout<Int32>.size).copyMemory(from: source, byteCount: bytes.count)
            }
            byteCount += 1 + MemoryLayout<Int32>.size + bytes.count
        }
    }

    /// Records `CSVLine.appendEmptyCells(n)`: `n` commas.
    @inlinable public mutating func appendEmptyCells(_ n: Int) {
        precondition((0...Int(Int32.max)).contains(n), "appendEmptyCells: n out of range")
        reserve(1 + MemoryLayout<Int32>.size)
        base.storeBytes(of: Tag.emptyCells.rawValue, toByteOffset: byteCount, as: UInt8.self)
        base.storeBytes(of: Int32(n), toByteOffset: byteCount + 1, as: Int32.self)
        byteCount += 1 + MemoryLayout<Int32>.size
    }

    /// Closes the row recorded since the last `endRow()` (or since the tape was emptied).
    @inlinable public mutating func endRow() {
        appendTag(.endOfRow)
        closedRows += 1
    }

    // MARK: playing back

    /// Appends the cells of the whole tape to `line`, as the recorded calls would have (rows one after the other,
    /// nothing between them). Allocates nothing once `line` has grown to the text's length.
    public func format(into line: inout CSVLine) {
        let p = bytes
        var offset = 0
        while offset < byteCount { offset = Self.formatRecord(p, at: offset, into: &line) }
    }

    /// The recorded bytes (valid while the tape is neither changed nor dropped).
    private var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: byteCount) }

    /// The whole tape as text, as `format(into:)` writes it (allocates; for tests and the `String` interfaces).
    public var text: String {
        var line = CSVLine()
        format(into: &line)
        return line.text
    }

    /// Calls `body` with each row's text in turn (the rows closed by `endRow()`, in order), formatted into `line`
    /// (emptied before each row). Stops after a row for which `body` returns false. Returns the rows passed to `body`.
    @discardableResult
    public func rows(formattingInto line: inout CSVLine, _ body: (UnsafeRawBufferPointer) -> Bool) -> Int {
        let p = bytes
        var offset = 0, rows = 0
        line.removeAll()
        while offset < byteCount {
            if p[offset] == Tag.endOfRow.rawValue {
                offset += 1
                rows += 1
                guard line.withUnsafeBytes(body) else { return rows }
                line.removeAll()
            } else {
                offset = Self.formatRecord(p, at: offset, into: &line)
            }
        }
        return rows
    }

    /// Formats the record at `offset` into `line` and returns the offset of the next one (an end of row is skipped).
    @inline(__always)
    private static func formatRecord(_ p: UnsafeRawBufferPointer, at offset: Int, into line: inout CSVLine) -> Int {
        switch Tag(rawValue: p[offset])! {
        case .emptyCell:
            line.append(byte: UInt8(ascii: ","))
            return offset + 1
        case .numberCell:
            line.appendCell(p.loadUnaligned(fromByteOffset: offset + 2, as: Double.self), digits: Int(p[offset + 1]))
            return offset + 2 + MemoryLayout<Double>.size
        case .number:
            line.appendFixed(p.loadUnaligned(fromByteOffset: offset + 2, as: Double.self), digits: Int(p[offset + 1]))
            return offset + 2 + MemoryLayout<Double>.size
        case .integerCell:
            line.append(byte: UInt8(ascii: ","))
            line.appendInteger(p.loadUnaligned(fromByteOffset: offset + 1, as: Int.self))
            return offset + 1 + MemoryLayout<Int>.size
        case .textCell:
            let length = Int(p.loadUnaligned(fromByteOffset: offset + 1, as: Int32.self))
            let start = offset + 1 + MemoryLayout<Int32>.size
            line.append(byte: UInt8(ascii: ","))
            line.append(bytes: UnsafeRawBufferPointer(rebasing: p[start..<(start + length)]))
            return start + length
        case .emptyCells:
            line.appendEmptyCells(Int(p.loadUnaligned(fromByteOffset: offset + 1, as: Int32.self)))
            return offset + 1 + MemoryLayout<Int32>.size
        case .endOfRow:
            return offset + 1
        }
    }

    // MARK: storage

    @inlinable
    mutating func appendTag(_ tag: Tag) {
        reserve(1)
        base.storeBytes(of: tag.rawValue, toByteOffset: byteCount, as: UInt8.self)
        byteCount += 1
    }

    @inlinable
    mutating func appendNumber(_ tag: Tag, _ value: Double, digits: Int) {
        reserve(Self.longestFixedRecord)
        base.storeBytes(of: tag.rawValue, toByteOffset: byteCount, as: UInt8.self)
        base.storeBytes(of: UInt8(truncatingIfNeeded: digits), toByteOffset: byteCount + 1, as: UInt8.self)
        base.storeBytes(of: value, toByteOffset: byteCount + 2, as: Double.self)
        byteCount += Self.longestFixedRecord
    }

    /// Makes room for `n` more bytes, doubling the buffer when it is too small.
    @inlinable
    mutating func reserve(_ n: Int) {
        if byteCount + n > capacity { grow(toHold: byteCount + n) }
    }

    @usableFromInline
    mutating func grow(toHold needed: Int) {
        let newCapacity = max(needed, 2 * capacity)
        let grown = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: MemoryLayout<Int>.alignment)
        grown.copyMemory(from: base, byteCount: byteCount)
        base.deallocate()
        base = grown
        capacity = newCapacity
    }
}
