import LodestoneCore
import LodestoneEngine

/// Where `ReplayJob`'s loop records its rows: a tape to record the next row on, told when a row is recorded.
protocol ReplayRowWriter: AnyObject {
    /// The tape to record the next row on (valid until the next `rowRecorded()`).
    var tape: UnsafeMutablePointer<CellTape> { get }
    /// Called after each row recorded on `tape`. Returns false once the output is broken: the loop stops.
    func rowRecorded() -> Bool
    /// Writes every row recorded and not yet written; returns when they are.
    func finish()
}

/// Formats each row as soon as it is recorded and hands its text to `write` (the loop's own thread; never broken).
final class DirectRowWriter: ReplayRowWriter {
    let tape: UnsafeMutablePointer<CellTape>
    private var line = CSVLine(capacity: 512)
    private let write: (UnsafeRawBufferPointer) -> Void

    init(write: @escaping (UnsafeRawBufferPointer) -> Void) {
        self.write = write
        tape = .allocate(capacity: 1)
        tape.initialize(to: CellTape(capacity: 1024))
    }

    deinit {
        tape.deinitialize(count: 1)
        tape.deallocate()
    }

    func rowRecorded() -> Bool {
        tape.pointee.rows(formattingInto: &line) { bytes in
            write(bytes)
            return true
        }
        tape.pointee.removeAll()
        return true
    }

    func finish() {}
}

/// Formats and writes `lodestone replay`'s rows on a thread of its own: the decimals and the `write`s were a third
/// of the fusing thread's time, and a board has more than one core. The loop records each row's cells on a
/// `CellTape` (a few stores a cell); this thread turns them into exactly the text the loop would have written, in
/// the same order, to the same output.
///
/// Rows are recorded into `batchCount` tapes of `batchRows` rows each, allocated once (a tape keeps its buffer, so
/// nothing is allocated per row once each has grown). The threads meet once a batch, under one mutex: the loop hands
/// a full tape over and takes the next free one in ring order; the writer formats the tapes handed over in the same
/// order and gives each back once it is written. A tape is touched by the loop only before it is handed over and
/// after it is given back, by the writer only in between, so the mutex orders every access.
///
/// The output is used by the writer's thread alone from the first hand-over until `finish()` (or `deinit`) returns;
/// before it, the loop's thread may write to it itself (`ReplayJob` writes the header so). Once a write fails (the
/// reader went away, the disk is full), the writer drops the rest and the loop stops at its next batch: at most
/// `(batchCount + 1) × batchRows` rows are fused after the failing one (the ring's and the one being filled).
/// `@unchecked Sendable` because the loop's side (`tape`, `rowRecorded`, `finish`) is used by one thread at a time,
/// as the loop is.
final class ThreadedRowWriter: ReplayRowWriter, @unchecked Sendable {
    /// Rows per tape and tapes in the ring (4 × 512 rows of about 230 bytes recorded: 0.5 MB).
    static let batchRows = 512
    static let batchCount = 4

    /// What the two threads share.
    final class Ring: @unchecked Sendable {
        let output: LineOutput
        let tapes: UnsafeMutablePointer<CellTape>
        /// The mutex and condition the two threads meet under.
        let handOver = HandOver()
        /// The writer's line buffer (its thread only).
        var line = CSVLine(capacity: 512)
        // Under the mutex: tapes handed over and not yet written, whether the loop has handed over its last, and
        // whether a write failed.
        var handedOver = 0
        var ended = false
        var broken = false

        init(output: LineOutput) {
            self.output = output
            tapes = .allocate(capacity: ThreadedRowWriter.batchCount)
            for b in 0..<ThreadedRowWriter.batchCount { (tapes + b).initialize(to: CellTape(capacity: 1024)) }
        }

        deinit {
            tapes.deinitialize(count: ThreadedRowWriter.batchCount)
            tapes.deallocate()
        }

        /// The writer's loop: writes the tapes in ring order as they are handed over, until the last one is written.
        func consume() {
            var next = 0
            while true {
                handOver.lock()
                while handedOver == 0 && !ended { handOver.wait() }
                let done = handedOver == 0
                let skip = broken
                handOver.unlock()
                if done { return }
                let failed = skip || write(next)
                handOver.lock()
                handedOver -= 1
                if failed { broken = true }
                handOver.broadcast()
                handOver.unlock()
                next = (next + 1) % ThreadedRowWriter.batchCount
            }
        }

        /// Formats and writes tape `b`'s rows. Returns true when the output broke (the rows after it are dropped).
        func write(_ b: Int) -> Bool {
            var broke = false
            tapes[b].rows(formattingInto: &line) { bytes in
                output.write(lineBytes: bytes)
                broke = output.isBroken
                return !broke
            }
            return broke
        }
    }

    let ring: Ring
    private var thread: JoinableThread?
    /// The tape the loop records on (its thread only).
    private var current = 0
    private var finished = false

    var tape: UnsafeMutablePointer<CellTape> { ring.tapes + current }

    /// Starts the writer's thread over `output` (which it alone uses from the first hand-over until `finish()`);
    /// without a thread (the system has no more) the loop formats each tape itself when it is full.
    init(output: LineOutput) {
        let ring = Ring(output: output)
        self.ring = ring
        thread = JoinableThread { ring.consume() }
    }

    deinit { finish() }

    func rowRecorded() -> Bool {
        guard tape.pointee.rowCount >= Self.batchRows else { return true }
        return handTapeOver()
    }

    /// Hands the current tape over and takes the next one once it is written. Returns false once a write failed.
    private func handTapeOver() -> Bool {
        guard thread != nil else {
            let broke = ring.broken || ring.write(current)
            ring.broken = broke
            tape.pointee.removeAll()
            return !broke
        }
        ring.handOver.lock()
        ring.handedOver += 1
        ring.handOver.broadcast()
        current = (current + 1) % Self.batchCount
        while ring.handedOver == Self.batchCount { ring.handOver.wait() }
        let broke = ring.broken
        ring.handOver.unlock()
        tape.pointee.removeAll()
        return !broke
    }

    func finish() {
        guard !finished else { return }
        finished = true
        if tape.pointee.rowCount > 0 { _ = handTapeOver() }
        guard let thread else { return }
        ring.handOver.lock()
        ring.ended = true
        ring.handOver.broadcast()
        ring.handOver.unlock()
        thread.join()
        self.thread = nil
    }
}
