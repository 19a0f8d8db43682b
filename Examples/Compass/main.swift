// A compass: the board's true heading with its accuracy, once a second.
//
//   swift run lodestone-compass [SECONDS]      (default: until Ctrl-C)
//
// It runs on the board Lodestone finds by default ($LODESTONE_BOARD, /etc/lodestone/board.json, else the checkout's
// simulated board) and asks only for headings, so the scheduler runs the IMU and one magnetometer and leaves the
// receiver off until the declination needs a position.
import Foundation
import LodestoneEngine

let seconds = CommandLine.arguments.dropFirst().first.flatMap(Double.init)
do {
    let board = try BoardDescription.loadDefault()
    let session = try Session(configuration: SessionConfiguration(board: board, durationS: seconds))
    await session.start()
    var nextS = 0.0
    for await heading in session.headingUpdates(filterDeg: 0) {
        guard heading.timeS >= nextS else { continue }
        nextS = heading.timeS.rounded(.down) + 1
        let t = String(format: "%6.1f s", heading.timeS)
        if heading.headingAccuracyDeg < 0 {
            print("\(t)  no absolute heading (no magnetometer)")
        } else if let trueDeg = heading.trueHeadingDeg {
            print(
                "\(t)  \(String(format: "%5.1f", trueDeg))° true  ±\(String(format: "%.1f", heading.headingAccuracyDeg))°"
                    + (heading.calibrationNeeded ? "  (calibrate the magnetometer)" : ""))
        } else {
            print(
                "\(t)  \(String(format: "%5.1f", heading.magneticHeadingDeg))° magnetic  ±"
                    + String(format: "%.1f", heading.headingAccuracyDeg) + "°  (true north once a position is known)")
        }
    }
    for problem in await session.endProblems { FileHandle.standardError.write(Data("compass: \(problem)\n".utf8)) }
} catch {
    FileHandle.standardError.write(Data("compass: \(error)\n".utf8))
    exit(1)
}
