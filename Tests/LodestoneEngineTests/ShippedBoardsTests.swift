import Foundation
import LodestoneCore
import Testing
@testable import LodestoneEngine

/// The board files for real boards in `boards/` (issue 3): each loads, names the chips and buses its hardware has,
/// and has rotation mount matrices.
@Suite struct ShippedBoardsTests {
    static func load(_ name: String) throws -> BoardDescription? {
        try BoardDescription.load(path: repositoryRoot.appendingPathComponent("boards/" + name).path)
    }

    static let boards = [
        "sense-hat.json", "navio2.json", "berryimu-v3.json", "adafruit-lsm6dsox-lis3mdl.json",
        "sparkfun-icm20948.json", "gy-521.json", "pinephone.json"
    ]

    @Test(arguments: boards)
    func eachBoardFileIsWellFormed(name: String) throws {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("boards/" + name), encoding: .utf8)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect((json["description"] as? String)?.isEmpty == false)
        let board = try #require(try Self.load(name))
        for s in board.sensors { #expect(s.mount.isRotation(), "\(name) \(s.id)") }
    }

    @Test func theSenseHATHasTheLSM9DS1AndItsBarometerOnBus1() throws {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("boards/sense-hat.json"), encoding: .utf8)
        for needle in [
            #""chip": "lsm9ds1""#, #""chip": "lsm9ds1-mag""#, #""chip": "lps25h""#, #""address": "0x6A""#,
            #""address": "0x1C""#, #""address": "0x5C""#, #""i2c": "/dev/i2c-1""#
        ] {
            #expect(text.contains(needle), "\(needle)")
        }
    }

    @Test func navio2PutsBothIMUsOnSPIAndTheBarometerOnI2C() throws {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("boards/navio2.json"), encoding: .utf8)
        for needle in [
            #""spi": "/dev/spidev0.1""#, #""spi": "/dev/spidev0.3""#, #""spi": "/dev/spidev0.2""#, #""chip": "ms5611""#
        ] {
            #expect(text.contains(needle), "\(needle)")
        }
    }

    @Test func everyShippedBoardLoadsCompletely() throws {
        for name in Self.boards {
            let board = try #require(try Self.load(name), "\(name)")
            #expect(!board.sensors.isEmpty)
        }
        let icm = try #require(try Self.load("sparkfun-icm20948.json"))
        #expect(icm.sensors[0].chip == "icm20948" && icm.sensors[0].address == 0x69)
        let phone = try #require(try Self.load("pinephone.json"))
        #expect(phone.sensors.filter { $0.id != "gnss" }.allSatisfy { $0.chip == "iio" })
        let gnss = try #require(phone.sensors.first { $0.id == "gnss" })
        #expect(gnss.chip == "nmea" && gnss.bus == .serial(path: "/dev/ttyUSB1", baudRate: 115200))
    }
}
