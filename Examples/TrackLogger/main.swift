// A track logger: fitness locations into a GPX file, one point per delivered location.
//
//   swift run lodestone-track-logger OUTPUT.gpx [SECONDS] [--daemon [SOCKET]]      (default: until Ctrl-C)
//
// In-process (the default) it runs a Session on the board Lodestone finds; with `--daemon` it asks `lodestone serve`
// over its socket (default /run/lodestone/lodestone.sock). Both are a `LodestoneService`: only one line differs.
// `locationUpdates(.fitness)` asks for the best accuracy and pauses while the carrier is still: the scheduler then
// turns the receiver off, and the log gets no points until the carrier moves again.
import Foundation
import LodestoneClient
import LodestoneEngine
import LodestoneLocation

var arguments = Array(CommandLine.arguments.dropFirst())
let daemon = arguments.firstIndex(of: "--daemon").map { i in
    arguments.remove(at: i)
    return i < arguments.count && Double(arguments[i]) == nil ? arguments.remove(at: i) : LodestoneClient.defaultSocketPath
}
guard let path = arguments.first else {
    FileHandle.standardError.write(Data("usage: lodestone-track-logger OUTPUT.gpx [SECONDS] [--daemon [SOCKET]]\n".utf8))
    exit(2)
}
do {
    let service: any LodestoneService
    if let daemon {
        service = try LodestoneClient.connect(socketPath: daemon, name: "lodestone-track-logger")
    } else {
        let session = try Session(configuration: SessionConfiguration(board: try BoardDescription.loadDefault()))
        await session.start()
        service = session
    }
    guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
        throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
    }
    func write(_ text: String) { file.write(Data(text.utf8)) }
    write(
        #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n" + #"<gpx version="1.1" creator="Lodestone track logger" "#
            + #"xmlns="http://www.topografix.com/GPX/1/1"><trk><name>Lodestone</name><trkseg>"# + "\n")
    // The stream pauses while the carrier is still, so the duration is kept by a timer that ends the loop's task.
    let logging = Task {
        var points = 0
        for await update in service.locationUpdates(.fitness) {
            if update.isStationary { print("paused at t=\(update.timeS) s: the carrier is still") }
            guard let l = update.location, !update.isStale else { continue }
            var point = "<trkpt lat=\"\(l.coordinate.latitudeDeg)\" lon=\"\(l.coordinate.longitudeDeg)\">"
            if let h = l.altitudeMSLM { point += "<ele>\(h)</ele>" }
            if let utc = l.utcS { point += "<time>\(UTCTime(seconds: Int64(utc.rounded(.down))).iso8601)</time>" }
            write(point + "</trkpt>\n")
            points += 1
        }
        return points
    }
    if let seconds = arguments.dropFirst().first.flatMap(Double.init) {
        try? await Task.sleep(for: .seconds(seconds))
        logging.cancel()
    }
    let points = await logging.value
    write("</trkseg></trk></gpx>\n")
    try file.close()
    print("\(points) points written to \(path)")
} catch {
    FileHandle.standardError.write(Data("track-logger: \(error)\n".utf8))
    exit(1)
}
