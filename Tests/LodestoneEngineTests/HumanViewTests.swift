import Foundation
import LodestoneWire
import Testing
import LodestoneCore
@testable import LodestoneEngine
@testable import LodestoneCLI
import LodestoneEvaluation

@Suite struct HumanViewTests {
    /// A busy screen of the simulated board with a receiver: lines like the stages write them, several wider than 80
    /// columns, `°`, `±`, `µ`, `²`, `↑` throughout, five notes.
    static func busyScreen(notes: Int = 5) -> HumanView.Screen {
        let reading = SensorReading(
            timeS: 12, pressurePa: 96_512.25, temperatureC: 24.5,
            accelerationMps2: Vector3(0.012, -0.034, 9.806), angularVelocityRadS: Vector3(0.0012, -0.0003, 0.0001),
            magneticFieldMicroTesla: Vector3(21.5, -3.25, -42.75))
        func sensor(_ id: String, _ label: String, _ reading: SensorReading?, _ health: Engine.Health = .ok)
            -> Engine.SourceStatus
        {
            Engine.SourceStatus(
                id: id, label: label, rateHz: 100, health: health, samples: 1200, failures: 0,
                lastReading: reading, lastFix: nil, measuredRateHz: 99.8)
        }
        let statuses = [
            sensor("imu", "MPU-9250 @ simulated bus 0x68 (accel, gyro, mag)", reading),
            sensor(
                "mag", "LIS3MDL @ simulated bus 0x1C", SensorReading(timeS: 12, magneticFieldMicroTesla: Vector3(20, -3, -41))),
            sensor(
                "baro", "BMP280 @ simulated bus 0x76", SensorReading(timeS: 12, pressurePa: 96_512.25, temperatureC: 24.5),
                .degraded("I2C read of register 0xF7 failed: EIO (errno 5); the chip stopped answering")),
            sensor("gnss", "simulated receiver (u-blox M8 class, NMEA + UBX)", nil),
            sensor(
                "imu2", "ICM-20948 @ /dev/i2c-1 0x69 (accel, gyro, mag)",
                SensorReading(
                    timeS: 12, temperatureC: 31.5, accelerationMps2: Vector3(0.5, 0.25, 9.75),
                    angularVelocityRadS: Vector3(0.5, -0.5, 0.25), magneticFieldMicroTesla: Vector3(1, 2, 3)))
        ]
        let fusion = [
            "calibration: /work/wt-cli/calibration/simulated.json (imu: accelerometer, gyroscope; mag: magnetometer)",
            "orientation   roll 1.2°  pitch -0.4°  heading 123.4° magnetic, 126.0° true ±2.1°",
            "              gyro bias 0.012 -0.003 0.001 °/s, at rest, magnetic field ok",
            "altitude     412.3 m ±1.2 m, 965.12 hPa, QNH 1013.2 hPa",
            "relative     +3.20 m, vertical speed 0.01 m/s",
            "activity     walk (high confidence) since t=12.0 s",
            "pedometer    1234 steps, 901.2 m, floors ↑5 ↓2, 110 steps/min, 1.40 m/s",
            "location  47.376887° N  8.541694° E  ±4.2 m  alt 412.3 m MSL ±6.0",
            "          1.4 m/s ±0.3  course 90° ±5°  fused, last fix 0.4 s ago  (fixes used 120, rejected 2)"
        ]
        let plan = [
            "plan      adaptive #3 since t=10.0 s  predicted 0.40 mA / 1.5 mW  used 0.012 mAh",
            "          imu: 100 Hz normal, FIFO 10  0.300 mA  0.010 mAh",
            "          mag: 40 Hz lowPower  0.050 mA  0.001 mAh",
            "          baro: 10 Hz lowPower, read 1.0 Hz  0.010 mA  0.000 mAh",
            "          gnss: powerSave(period: 10 s) (tracking)  0.11 mA  0.001 mAh",
            "          battery none (external power), tier unrestricted; motion walk since t=5 s",
            "          why: run wants location best; run wants heading; run wants activity; carrier walk since t=5 s; battery tier unrestricted",
            "          delivered 12 locations, the last 0.4 s ago ±4.2 m"
        ]
        let truth = Wire.Status.Truth(
            activity: "walk", segment: "walk to the station", floor: 0, latDeg: 47.37, lonDeg: 8.54,
            heightM: 412.3, headingDeg: 123)
        let noteLines = (0..<notes).map {
            "baro degraded at t=\($0).52 s: I2C read of register 0xF7 failed: EIO (errno 5); retrying (µ note \($0))"
        }
        return HumanView(boardName: "Simulated board", isTerminal: true)
            .render(timeS: 12.3, statuses: statuses, truth: truth, fusion: fusion, plan: plan, notes: noteLines)
    }

    /// The screen line each fitted line came from, in order (a cut line ends in `…`).
    static func indices(of lines: [String], in screen: HumanView.Screen) -> [Int] {
        var next = 0
        return lines.map { line in
            let i = screen.texts.indices[next...].first {
                screen.texts[$0] == line || (line.hasSuffix("…") && screen.texts[$0].hasPrefix(line.dropLast()))
            }!
            next = i + 1
            return i
        }
    }

    static func roles(of lines: [String], in screen: HumanView.Screen) -> [HumanView.Role] {
        indices(of: lines, in: screen).map { screen.roles[$0] }
    }

    @Test(arguments: [(80, 24), (120, 40)])
    func theViewFitsTheTerminalWithoutWrappingOrScrolling(_ width: Int, _ height: Int) {
        let screen = Self.busyScreen()
        #expect(screen.texts.count > height) // it has to drop
        #expect(screen.texts.contains { HumanView.displayWidth($0) > width }) // and to cut
        let lines = HumanView.fit(screen, width: width, height: height)
        #expect(lines.count <= height - 1)
        #expect(lines.count >= height - 2) // and uses the room it has
        for line in lines { #expect(HumanView.displayWidth(line) <= width - 1, "\(line)") }
        #expect(lines.first == "lodestone — Simulated board — t = 12.3 s")
        for essential in ["orientation   roll", "location  47.", "activity     walk"] {
            #expect(lines.contains { $0.hasPrefix(essential) }, "\(essential) dropped at \(width)×\(height)")
        }
        // The newest note is kept before any plan detail.
        #expect(lines.contains { $0.hasPrefix("! baro degraded at t=4.52 s") })
        let roles = Self.roles(of: lines, in: screen)
        if roles.contains(.planDetail) { #expect(roles.filter { $0 == .note }.count == 5) }
    }

    /// Shrinking the terminal row by row drops lines in the documented order and never a more important one first.
    @Test func linesAreDroppedLeastImportantFirst() {
        let screen = Self.busyScreen()
        for height in 2...(screen.texts.count + 1) {
            let lines = HumanView.fit(screen, width: 200, height: height)
            let kept = Self.roles(of: lines, in: screen)
            #expect(kept.first == .header)
            let keptIndices = Set(Self.indices(of: lines, in: screen))
            let dropped = screen.roles.indices.filter { !keptIndices.contains($0) }.map { screen.roles[$0] }
                .filter { $0 != .spacing && $0 != .sensorTableHeader }
            let keptRanks = kept.filter { $0 != .spacing && $0 != .sensorTableHeader }.map(\.keepRank)
            // Every dropped line is at most as important as every kept one.
            if let worstKept = keptRanks.max(), let bestDropped = dropped.map(\.keepRank).min() {
                #expect(bestDropped >= worstKept, "height \(height): dropped \(dropped) while keeping \(kept)")
            }
            if kept.contains(.sensorTableHeader) { #expect(kept.contains(.sensor)) }
        }
    }

    @Test func notesAreDroppedOldestFirst() {
        let screen = Self.busyScreen()
        let essentials = screen.roles.filter { $0 <= .essential }.count
        let lines = HumanView.fit(screen, width: 200, height: essentials + 3) // room for two notes
        #expect(
            lines.filter { $0.hasPrefix("! ") }.map { String($0.prefix(27)) } == [
                "! baro degraded at t=3.52 s", "! baro degraded at t=4.52 s"
            ])
    }

    @Test func aScreenThatFitsIsDrawnWhole() {
        let screen = Self.busyScreen(notes: 0)
        #expect(HumanView.fit(screen, width: 400, height: 200) == screen.texts)
    }

    @Test(arguments: [
        ("heading 123.4° ±2.1°", 10, "heading 1…"),
        ("heading 123.4° ±2.1°", 14, "heading 123.4…"),
        ("heading 123.4° ±2.1°", 16, "heading 123.4° …"),
        ("heading 123.4° ±2.1°", 20, "heading 123.4° ±2.1°"), // 20 columns: fits as it is
        ("mag 21.50 µT ↑↓", 13, "mag 21.50 µT…"),
        ("café ↑5 ↓2", 5, "cafe\u{301}…"), // a combining accent is part of its letter
        ("board 北京 test", 9, "board 北…"), // wide characters take two columns
        ("board 北京 test", 8, "board …"), // … never splits one
        ("x", 0, "")
    ])
    func truncationCountsDisplayColumnsNotBytesOrScalars(_ line: String, _ columns: Int, _ expected: String) {
        let line = line.replacingOccurrences(of: "é", with: "e\u{301}")
        let cut = HumanView.truncate(line, toColumns: columns)
        #expect(cut == expected)
        #expect(HumanView.displayWidth(cut) <= columns)
    }

    @Test func displayWidthOfTheUnitSigns() {
        #expect(HumanView.displayWidth("°±µ²↑↓—…") == 8)
        #expect(HumanView.displayWidth("北京") == 4)
        #expect(HumanView.displayWidth("e\u{301}") == 1)
    }

    /// Frames of 20, then 12, then 15 rows in a 80×24 terminal: each moves the cursor up exactly the rows the one before
    /// wrote, a shorter frame erases the previous frame's leftover rows, and the screen ends up showing the last frame.
    @Test func theCursorGoesUpExactlyTheRowsThePreviousFrameWrote() {
        var view = HumanView(boardName: "b", isTerminal: true, terminalSize: { HumanView.Size(columns: 80, rows: 24) })
        func screen(_ rows: Int, _ tag: String) -> HumanView.Screen {
            var s = HumanView.Screen()
            s.append("header \(tag)", .header)
            for i in 1..<rows { s.append("line \(i) \(tag) " + String(repeating: "±", count: 100), .sensor) }
            return s
        }
        var transcript = ""
        let first = view.frame(screen(20, "a"))
        #expect(!first.contains("\u{1B}[H") && !first.hasPrefix("\u{1B}["))
        let second = view.frame(screen(12, "b"))
        #expect(second.hasPrefix("\u{1B}[20F"))
        let third = view.frame(screen(15, "c"))
        #expect(third.hasPrefix("\u{1B}[12F"))
        let tooTall = view.frame(screen(40, "d"))
        #expect(tooTall.hasPrefix("\u{1B}[15F"))
        let after = view.frame(screen(2, "e"))
        #expect(after.hasPrefix("\u{1B}[23F")) // the 40-row frame was fitted to 23 rows
        transcript = first + second + third + tooTall + after
        let shown = ScreenModel(transcript).screen.filter { !$0.isEmpty }
        #expect(shown == ["header e", "line 1 e " + String(repeating: "±", count: 69) + "…"])
    }

    @Test func aResizeRedrawsFromTheTopOfTheScreenFittedToTheNewSize() {
        var view = HumanView(boardName: "b", isTerminal: true, terminalSize: { HumanView.Size(columns: 120, rows: 40) })
        let screen = Self.busyScreen()
        _ = view.frame(screen)
        view.terminalSize = { HumanView.Size(columns: 80, rows: 24) }
        let resized = view.frame(screen)
        #expect(resized.hasPrefix("\u{1B}[H\u{1B}[J"))
        #expect(resized.components(separatedBy: "\u{1B}[K\n").count - 1 == 23)
        let again = view.frame(screen)
        #expect(again.hasPrefix("\u{1B}[23F"))
    }

    @Test func withoutASizeTheLinesAreDrawnAsTheyAre() {
        var view = HumanView(boardName: "b", isTerminal: true)
        let screen = Self.busyScreen()
        #expect(view.frame(screen) == screen.texts.map { $0 + "\u{1B}[K\n" }.joined())
    }

    /// `lodestone run` in an 80×24 terminal: no line written is wider than the terminal and the view never has more
    /// rows than fit.
    @Test func aRunInAn80x24TerminalNeitherWrapsNorScrolls() async throws {
        var options = RunOptions(
            board: LocationTrial.simulatedBoard(scenario: "drive"), scenario: "drive",
            durationS: 30, speed: 0, isTerminal: true)
        options.terminalSize = { HumanView.Size(columns: 80, rows: 24) }
        options.scheduling = SchedulingConfiguration(battery: .none)
        let out = CapturedOutput()
        #expect(try await RunJob(options: options).run(output: out, errors: CapturedOutput()) == 0)
        let written = out.raw.components(separatedBy: "\u{1B}[K\n").map { line in
            // Drop the cursor movements that start a frame.
            line.replacingOccurrences(of: "\u{1B}\\[[0-9]*[FHJ]", with: "", options: .regularExpression)
        }
        #expect(written.count > 10)
        for line in written { #expect(HumanView.displayWidth(line) <= 79, "\(line)") }
        let shown = ScreenModel(out.raw).screen
        #expect(shown.count <= 24)
        #expect(shown.first?.hasPrefix("lodestone — ") == true, "\(shown)")
        #expect(shown.contains { $0.hasPrefix("location ") })
    }
}
