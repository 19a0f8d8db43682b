// `lodestone replay`'s per-row work apart from fusion itself: reading one trace row from CSV bytes (field
// offsets, decimal-to-Double, in memory and streamed from a gzip file), recording one output row (every stage's
// cells on a `CellTape`, on the fusing thread) and writing it as text (the tape into the reused `CSVLine`, on the
// writer's thread), and one recorded row (`TraceFormatter`).
//
// The input is BROAD trial 21 (../shared/datasets/broad, CC BY 4.0: D. Laidig, M. Caruso, A. Cereatti, T. Seel,
// Data 6(7):72, 2021), read unmeasured in the setup. Each measured iteration is 1000 rows. For the output row,
// the pipeline has fused the trial's first 2000 rows with a GNSS fix added every 100th row (BROAD has none), so
// the orientation, motion and location cells all hold numbers.

import Benchmark
import BenchmarkSupport
import Foundation
import LodestoneCore
import LodestoneEngine

/// BROAD trial 21, found from this file (benchmarks/Benchmarks/Replay/) as ../shared/datasets/broad.
let trialPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
    "../../../../shared/datasets/broad/21_undisturbed_fast_combined.csv.gz"
).standardized.path

/// Rows per measured iteration (the policy's scaling factor).
let rowsPerIteration = 1000

/// The trial's first rows (header and 1000 rows as plain CSV bytes) and its first 2000 rows parsed.
struct Trial {
    var csv: [UInt8] = []
    var rows: [TraceRow] = []

    static let shared: Trial = {
        var trial = Trial()
        do {
            let all = Array(try TraceFiles.readText(path: trialPath).utf8)
            // The header and the first `rowsPerIteration` lines.
            var lines = 0
            for b in all {
                trial.csv.append(b)
                if b == UInt8(ascii: "\n") {
                    lines += 1
                    if lines == rowsPerIteration + 1 { break }
                }
            }
            var parser = TraceParser(bytes: all, path: trialPath)
            while trial.rows.count < 2 * rowsPerIteration, let row = try parser.next() { trial.rows.append(row) }
        } catch {
            preconditionFailure("benchmark input \(trialPath): \(error)")
        }
        precondition(trial.rows.count == 2 * rowsPerIteration, "benchmark input \(trialPath) is too short")
        return trial
    }()
}

/// A pipeline after the trial's rows, with a GNSS fix every 100th row (a walk north at 1 m/s from 52.5° N), and
/// its last row recorded on `row`.
final class FormatFixture {
    var pipeline = FusionPipeline()
    var tape = CellTape(capacity: 512)
    var row = CellTape(capacity: 512)
    var line = CSVLine(capacity: 512)
    var timeS = 0.0

    init() {
        for (i, var row) in Trial.shared.rows.enumerated() {
            if i % 100 == 0 {
                row.latitudeDeg = 52.5 + Double(i) * 1e-7
                row.longitudeDeg = 13.4
                row.heightM = 80
                row.horizontalAccuracyM = 3
                row.speedMps = 1
                row.courseDeg = 0
            }
            pipeline.process(FusionSample(traceRow: row))
            timeS = row.timeS
        }
        precondition(pipeline.location.latest != nil, "the location stage has no location")
        pipeline.appendLine(timeS: timeS, to: &row)
    }
}

let benchmarks: @Sendable () -> Void = {
    let configuration = LodestoneBenchmarkPolicy.configuration

    Benchmark("TraceParser.next", configuration: configuration) { benchmark in
        // A fresh parser over the same bytes each iteration; its header (column names) is read unmeasured.
        var parser = TraceParser(bytes: Trial.shared.csv, path: trialPath)
        do { try parser.readHeader() } catch { preconditionFailure("\(error)") }
        var rows = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            do {
                if let row = try parser.next() { rows += 1; blackHole(row) }
            } catch { preconditionFailure("\(error)") }
        }
        benchmark.stopMeasurement()
        precondition(rows == rowsPerIteration, "parsed \(rows) rows")
    }

    Benchmark("TraceParser.nextInto", configuration: configuration) { benchmark in
        // As `lodestone replay` reads (TraceInput): each row parsed into the same `TraceRow`.
        var parser = TraceParser(bytes: Trial.shared.csv, path: trialPath)
        do { try parser.readHeader() } catch { preconditionFailure("\(error)") }
        var row = TraceRow(timeS: .nan)
        var rows = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            do {
                if try parser.next(into: &row) { rows += 1; blackHole(row.timeS) }
            } catch { preconditionFailure("\(error)") }
        }
        benchmark.stopMeasurement()
        precondition(rows == rowsPerIteration, "parsed \(rows) rows")
    }

    Benchmark("TraceParser.nextFromGzipFile", configuration: configuration) { benchmark in
        // Streamed from the file: opening it and the first read (zlib's buffers) are unmeasured.
        var parser: TraceParser
        do {
            parser = try TraceParser(reading: trialPath)
            try parser.readHeader()
        } catch { preconditionFailure("\(error)") }
        var rows = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            do {
                if let row = try parser.next() { rows += 1; blackHole(row) }
            } catch { preconditionFailure("\(error)") }
        }
        benchmark.stopMeasurement()
        precondition(rows == rowsPerIteration, "parsed \(rows) rows")
    }

    Benchmark("FusionPipeline.appendLine", configuration: configuration) { benchmark, fixture in
        // Recording the row's cells, as the fusing thread does (the tape emptied each row, as the writer's ring is
        // every 512 rows).
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            fixture.tape.removeAll()
            fixture.pipeline.appendLine(timeS: fixture.timeS + Double(i) * 0.005, to: &fixture.tape)
            blackHole(fixture.tape.count)
        }
        benchmark.stopMeasurement()
    } setup: {
        FormatFixture()
    }

    Benchmark("CellTape.format", configuration: configuration) { benchmark, fixture in
        // Writing a recorded row as text, as the writer's thread does.
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            fixture.line.removeAll()
            fixture.row.format(into: &fixture.line)
            blackHole(fixture.line.count)
        }
        benchmark.stopMeasurement()
    } setup: {
        FormatFixture()
    }

    Benchmark("TraceFormatter.append", configuration: configuration) { benchmark, line in
        let formatter = TraceFormatter(columns: TraceFormatter.fullColumns)
        let rows = Trial.shared.rows
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            line.value.removeAll()
            formatter.append(rows[i], to: &line.value)
            blackHole(line.value.count)
        }
        benchmark.stopMeasurement()
    } setup: {
        Box(CSVLine(capacity: 1024))
    }
}

/// A mutable value shared with the measured closure.
final class Box<Value> {
    var value: Value
    init(_ value: Value) { self.value = value }
}
