// A track logger: fitness locations into a GPX file, one point per delivered location.
//
//   swift run lodestone-track-logger OUTPUT.gpx [SECONDS]      (default: until Ctrl-C)
//
// `locationUpdates(.fitness)` asks for the best accuracy and pauses while the carrier is still: the scheduler then
// turns the receiver off, and the log gets no points until the carrier moves again.
import Foundation
import LodestoneEngine
import LodestoneLocation

let arguments = Array(CommandLine.arguments.dropFirst())
guard let path = arguments.first else {
    FileHandle.standardError.write(Data("usage: lodestone-track-logger OUTPUT.gpx [SECONDS]\n".utf8))
    exit(2)
}
do {
    let board = try BoardDescription.loadDefault()
    let session = try Session(
        configuration: SessionConfiguration(board: board, durationS: arguments.dropFirst().first.flatMap(Double.init)))
    guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
        throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
    }
    func write(_ text: String) { file.write(Data(text.utf8)) }
    write(
        #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n" + #"<gpx version="1.1" creator="Lodestone track logger" "#
            + #"xmlns="http://www.topografix.com/GPX/1/1"><trk><name>\#(board.name)</name><trkseg>"# + "\n")
    await session.start()
    var points = 0
    for await update in session.locationUpdates(.fitness) {
        if update.isStationary { print("paused at t=\(update.timeS) s: the carrier is still") }
        guard let l = update.location, !update.isStale else { continue }
        var point = "<trkpt lat=\"\(l.coordinate.latitudeDeg)\" lon=\"\(l.coordinate.longitudeDeg)\">"
        if let h = l.altitudeMSLM { point += "<ele>\(h)</ele>" }
        if let utc = l.utcS { point += "<time>\(UTCTime(seconds: Int64(utc.rounded(.down))).iso8601)</time>" }
        write(point + "</trkpt>\n")
        points += 1
    }
    write("</trkseg></trk></gpx>\n")
    try file.close()
    print("\(points) points written to \(path)")
} catch {
    FileHandle.standardError.write(Data("track-logger: \(error)\n".utf8))
    exit(1)
}
