import Foundation
import Testing
import LodestoneCore
@testable import LodestoneEngine
import LodestoneScheduler

/// The repository root, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

@Suite struct BoardFileTests {
    @Test(arguments: ["simulated.json", "beaglebone-blue.json", "gy-91.json", "generic-iio.json"])
    func everyShippedBoardFileLoads(_ name: String) throws {
        let board = try BoardDescription.load(path: repositoryRoot.appendingPathComponent("boards/" + name).path)
        #expect(!board.sensors.isEmpty)
        for s in board.sensors { #expect(abs(abs(s.mount.determinant) - 1) < 1e-9) }
    }

    @Test func beagleBoneBlueHasTheMPU9250AndBMP280OnBus2() throws {
        let b = try BoardDescription.load(path: repositoryRoot.appendingPathComponent("boards/beaglebone-blue.json").path)
        #expect(b.sensors.map(\.chip) == ["mpu9250", "bmp280"])
        #expect(b.sensors.map(\.address) == [0x68, 0x76])
        #expect(b.sensors.allSatisfy { $0.bus == .i2c(path: "/dev/i2c-2") })
    }

    /// Each broken file gives one line naming the file, the key, and what is allowed.
    @Test(arguments: [
        (
            #"{"format":"lodestone-board/1","name":"x","sensors":[{"id":"a","chip":"bmp281","bus":{"i2c":"/dev/i2c-1"},"rateHz":10}]}"#,
            "b.json: sensors[0].chip: \"bmp281\" is not a known chip; allowed: "
                + BoardDescription.knownChips.joined(separator: ", ")
        ),
        (
            #"{"format":"lodestone-board/1","name":"x","sensors":[{"id":"a","chip":"bmp280","bus":{"i2c":"/dev/i2c-1"},"address":"0x99","rateHz":10}]}"#,
            "b.json: sensors[0].address: \"0x99\" is not an I2C address; allowed: a string \"0x03\" … \"0x77\""
        ),
        (
            #"{"format":"lodestone-board/1","name":"x","sensors":[{"id":"a","chip":"bmp280","bus":{"i2c":"/dev/i2c-1"},"rateHz":-1}]}"#,
            "b.json: sensors[0].rateHz: -1 is not allowed; use a number of Hz in (0, 8000]"
        ),
        (
            #"{"format":"lodestone-board/2","name":"x","sensors":[]}"#,
            "b.json: format: \"lodestone-board/2\" is not supported; allowed: \"lodestone-board/1\""
        ),
        (
            #"{"format":"lodestone-board/1","name":"x","sensors":[{"id":"a","chip":"bmp280","bus":{"can":"can0"},"rateHz":10}]}"#,
            "b.json: sensors[0].bus: no bus given; allowed: {\"i2c\": \"/dev/i2c-N\"}, {\"spi\": \"/dev/spidevB.C\", \"speedHz\": N}, {\"iio\": \"DEVICE\", \"uri\": \"local:\" or \"ip:HOST\"}, {\"simulated\": true}"
        ),
        (
            #"{"format":"lodestone-board/1","name":"x","sensors":[{"id":"a","chip":"bmp280","bus":{"i2c":"/dev/i2c-1"},"rateHz":10,"mount":[1,0,0,0,1,0,0,0,2]}]}"#,
            "b.json: sensors[0].mount: determinant 2.0 is not ±1; a mount matrix must be a rotation (or a reflection for a left-handed chip)"
        ),
        (
            #"{"format":"lodestone-board/1","name":"x","sensors":[{"id":"a","chip":"bmp280","bus":{"simulated":true},"rateHz":10}]}"#,
            "b.json: simulation: missing, but sensor \"a\" is on the simulated bus; add \"simulation\": {\"scenario\": \"mixed-day\"}"
        ),
        (
            #"{"format":"lodestone-board/1","name":"x","sensors":[{"id":"a","chip":"bmp280","bus":{"i2c":"/dev/i2c-1"},"rateHz":10,"colour":"red"}]}"#,
            "b.json: sensors[0].colour: unknown key; allowed here: id, chip, bus, address, mount, rateHz, description, model"
        ),
        (
            #"{"format":"lodestone-board/1","name":"x","sensors":[{"id":"a","chip":"bmp280","bus":{"i2c":"/dev/i2c-1"},"rateHz":10,"model":"ublox-m8"}]}"#,
            "b.json: sensors[0].model: only a GNSS receiver (nmea, ublox, gpsd, modemmanager) has an energy model; remove the key"
        ),
        (
            #"{"format":"lodestone-board/1","name":"x","sensors":[{"id":"g","chip":"ublox","bus":{"serial":"/dev/ttyS0","baudRate":9600},"model":"U-blox M8"}]}"#,
            "b.json: sensors[0].model: \"U-blox M8\" is not allowed; use a receiver model name like \"ublox-m8\" or \"generic\""
        ),
        (
            #"{"format":"lodestone-board/1","name":"x","sensors":[{"id":"g","chip":"ublox","bus":{"serial":"/dev/ttyS0","baudRate":9600},"model":"ublox-m9"}]}"#,
            "b.json: sensors[0].model: \"ublox-m9\" is not a receiver the energy model knows; known: "
                + EnergyModel.receiverModels.joined(separator: ", ")
        ),
        (
            #"{"format":"lodestone-board/1","name":"x","sensors":[{"id":"a","chip":"bmp280","bus":{"i2c":"/dev/i2c-1"},"rateHz":10},{"id":"a","chip":"lis3mdl","bus":{"i2c":"/dev/i2c-1"},"rateHz":10}]}"#,
            "b.json: sensors[1].id: \"a\" is used twice; ids must be unique"
        ),
        (#"[1]"#, "b.json: the top level must be a JSON object"),
        (#"{"format":"lodestone-board/1","name":3,"sensors":[]}"#, "b.json: name: 3 must be a string"),
        (#"{"format":"lodestone-board/1","name":"x","sensors":[3]}"#, "b.json: sensors[0]: must be an object"),
        (
            #"{"format":"lodestone-board/1","name":"x","sensors":[{"id":"a","chip":"bmp280","bus":"/dev/i2c-1","rateHz":10}]}"#,
            "b.json: sensors[0].bus: \"/dev/i2c-1\" is not a bus; allowed: {\"i2c\": \"/dev/i2c-N\"}, {\"spi\": \"/dev/spidevB.C\", \"speedHz\": N}, {\"iio\": \"DEVICE\", \"uri\": \"local:\" or \"ip:HOST\"}, {\"simulated\": true}"
        ),
        (
            #"{"format":"lodestone-board/1","name":"x","sensors":[{"id":"a","chip":"bmp280","bus":{"simulated":true},"rateHz":10}],"simulation":{"scenario":"walk","softIron":[1,0,0]}}"#,
            "b.json: simulation.softIron: must be 9 numbers, row-major"
        )
    ])
    func brokenBoardFileGivesOneLineNamingFileKeyAndWhatIsAllowed(_ json: String, _ expected: String) {
        #expect(throws: BoardFileError.self) { try BoardDescription.parse(Data(json.utf8), path: "b.json") }
        do { _ = try BoardDescription.parse(Data(json.utf8), path: "b.json") } catch {
            #expect(error.description == expected)
            #expect(!error.description.contains("\n"))
        }
    }

    /// A GNSS entry's optional `"model"` names its energy model; without it the chip decides (ublox → ublox-m8, nmea and
    /// gpsd → generic, gpx → none).
    @Test func gnssEntriesNameTheirReceiverEnergyModel() throws {
        let json = #"""
            {"format":"lodestone-board/1","name":"x","sensors":[
              {"id":"a","chip":"ublox","bus":{"serial":"/dev/ttyS0","baudRate":9600}},
              {"id":"b","chip":"nmea","bus":{"serial":"/dev/ttyS1","baudRate":9600},"model":"ublox-m10"},
              {"id":"c","chip":"gpsd","bus":{"gpsd":"127.0.0.1:2947"}},
              {"id":"d","chip":"gpx","bus":{"file":"t.gpx"}},
              {"id":"e","chip":"bmp280","bus":{"i2c":"/dev/i2c-1"},"rateHz":10}]}
            """#
        let b = try BoardDescription.parse(Data(json.utf8), path: "b.json")
        #expect(b.sensors.map(\.receiverModel) == ["ublox-m8", "ublox-m10", "generic", nil, nil])
    }

    @Test func invalidJSONNamesTheFile() {
        do { _ = try BoardDescription.parse(Data("{\"format\": ".utf8), path: "broken.json"); Issue.record("no error") } catch {
            #expect(error.description.hasPrefix("broken.json: not valid JSON"))
        }
    }

    @Test func missingFileSaysSo() {
        do { _ = try BoardDescription.load(path: "/nonexistent/board.json"); Issue.record("no error") } catch {
            #expect(error.description.hasPrefix("/nonexistent/board.json: cannot read the file"))
        }
    }

    @Test(arguments: [("0x76", UInt8(0x76)), ("0X1c", 0x1C), ("118", 0x76)])
    func addressesParse(_ text: String, _ value: UInt8) { #expect(BoardDescription.parseAddress(text) == value) }

    @Test(arguments: ["0x00", "0x78", "0xzz", "", "-1"])
    func reservedOrMalformedAddressesAreRejected(_ text: String) { #expect(BoardDescription.parseAddress(text) == nil) }
}
