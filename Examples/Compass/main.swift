// A compass: the board's true heading with its accuracy, once a second.
//
//   swift run lodestone-compass [SECONDS] [--daemon [SOCKET]]      (default: until Ctrl-C)
//
// In-process (the default) it runs a Session on the board Lodestone finds ($LODESTONE_BOARD,
// /etc/lodestone/board.json, else the checkout's simulated board); with `--daemon` it asks `lodestone serve` over its
// socket (default /run/lodestone/lodestone.sock) instead. Both are a `LodestoneService`: only the line that makes the
// service differs. It asks only for headings, so the scheduler runs the IMU and one magnetometer.
import Foundation
import LodestoneClient
import LodestoneEngine

var arguments = Array(CommandLine.arguments.dropFirst())
let daemon = arguments.firstIndex(of: "--daemon").map { i in
    arguments.remove(at: i)
    return i < arguments.count && !arguments[i].allSatisfy(\.isNumber)
        ? arguments.remove(at: i) : LodestoneClient.defaultSocketPath
}
let seconds = arguments.first.flatMap(Double.init) ?? .infinity
do {
    let service: any LodestoneService
    if let daemon {
        service = try LodestoneClient.connect(socketPath: daemon, name: "lodestone-compass")
    } else {
        let session = try Session(configuration: SessionConfiguration(board: try BoardDescription.loadDefault()))
        await session.start()
        service = session
    }
    let clock = ContinuousClock(), start = clock.now
    var nextS = 0.0
    for await heading in service.headingUpdates(filterDeg: 0) {
        let elapsed = start.duration(to: clock.now)
        let elapsedS = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        if elapsedS >= seconds { break }
        guard elapsedS >= nextS else { continue }
        nextS = elapsedS.rounded(.down) + 1
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
} catch {
    FileHandle.standardError.write(Data("compass: \(error)\n".utf8))
    exit(1)
}
