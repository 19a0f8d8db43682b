import Foundation
import Testing
@testable import LodestoneEngine

/// GNSS sources in board files: their buses, default poll rate, paths relative to the board file, and one-line errors.
@Suite struct GNSSBoardFileTests {
    @Test func boardFilesDescribeGNSSSources() throws {
        let json = """
            {"format":"lodestone-board/1","name":"gnss","sensors":[
              {"id":"rx","chip":"nmea","bus":{"serial":"/dev/ttyS2","baudRate":115200}},
              {"id":"gd","chip":"gpsd","bus":{"gpsd":"127.0.0.1:2947"},"rateHz":10},
              {"id":"sim","chip":"gpx","bus":{"file":"tracks/drive.gpx"}},
              {"id":"log","chip":"ublox","bus":{"file":"/var/log/rx.ubx"}}]}
            """
        let b = try BoardDescription.parse(Data(json.utf8), path: "/etc/lodestone/board.json")
        #expect(
            b.sensors.map(\.bus) == [
                .serial(path: "/dev/ttyS2", baudRate: 115200), .gpsd(host: "127.0.0.1", port: 2947),
                .file(path: "tracks/drive.gpx"), .file(path: "/var/log/rx.ubx")
            ])
        #expect(b.sensors[0].rateHz == BoardDescription.defaultGNSSPollRateHz && b.sensors[1].rateHz == 10)
        #expect(
            BoardRuntime.resolve("tracks/drive.gpx", relativeTo: "/etc/lodestone/board.json") == "/etc/lodestone/tracks/drive.gpx"
        )
    }

    @Test(arguments: [
        (
            #"{"id":"rx","chip":"nmea","bus":{"serial":"ttyS2"}}"#,
            "sensors[0].bus.serial: \"ttyS2\" must be a device path like \"/dev/ttyS0\" (or give {\"file\": LOG})"
        ),
        (
            #"{"id":"rx","chip":"nmea","bus":{"serial":"/dev/ttyS2","baudRate":12345}}"#,
            "sensors[0].bus.baudRate: 12345 is not a baud rate; allowed: 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600"
        ),
        (
            #"{"id":"gd","chip":"gpsd","bus":{"gpsd":"localhost"}}"#,
            "sensors[0].bus.gpsd: \"localhost\" must be \"HOST:PORT\", e.g. \"127.0.0.1:2947\""
        ),
        (
            #"{"id":"rx","chip":"nmea","bus":{"serial":"/dev/ttyS2"},"address":"0x42"}"#,
            "sensors[0].address: not allowed for a GNSS source"
        )
    ])
    func brokenGNSSEntriesAreOneLineErrors(entry: String, message: String) {
        let json = #"{"format":"lodestone-board/1","name":"x","sensors":["# + entry + "]}"
        do { _ = try BoardDescription.parse(Data(json.utf8), path: "b.json"); Issue.record("accepted \(entry)") } catch {
            #expect(error.description == "b.json: " + message)
        }
    }
}
