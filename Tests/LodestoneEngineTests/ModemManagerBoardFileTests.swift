import Foundation
import LodestoneGNSSSources
import Testing
@testable import LodestoneEngine

/// The `modemmanager` GNSS source in board files: the shipped PinePhone file, what the engine builds from it, and
/// one-line errors.
@Suite struct ModemManagerBoardFileTests {
    @Test func theShippedPinePhoneFileTakesGNSSFromModemManager() throws {
        let board = try BoardDescription.load(
            path: repositoryRoot.appendingPathComponent("boards/pinephone-modemmanager.json").path)
        let gnss = try #require(board.sensors.first { $0.id == "gnss" })
        #expect(gnss.chip == "modemmanager" && gnss.bus == .modemManager(modem: "any"))
        #expect(gnss.rateHz == BoardDescription.defaultGNSSPollRateHz)
        #expect(gnss.receiverModel == "generic") // the chip's default: ModemManager cannot command the receiver
        // Only the GNSS entry (the IIO devices are not on this machine): the engine builds a ModemManager source.
        let gnssOnly = BoardDescription(name: board.name, sensors: [gnss], path: board.path)
        let runtime = try BoardRuntime.assemble(gnssOnly, seed: 1, scenario: nil)
        let source = try #require(runtime.sources.first as? GNSSModemManagerSource)
        #expect(source.modem == "any" && source.mmcli == "mmcli" && source.receiverModel == "generic")
        #expect(runtime.plannedReceiver != nil)
    }

    @Test(arguments: [
        (#"{"id":"g","chip":"modemmanager","bus":{"modem":""}}"#, "must name the modem as mmcli -m takes it"),
        (#"{"id":"g","chip":"modemmanager","bus":{"modem":"any","baudRate":9600}}"#, "baudRate"),
        (#"{"id":"g","chip":"modemmanager","bus":{"serial":"/dev/ttyUSB1"}}"#, "serial")
    ])
    func brokenModemManagerEntriesAreOneLineErrors(entry: String, expected: String) {
        let json = #"{"format":"lodestone-board/1","name":"x","sensors":["# + entry + "]}"
        do { _ = try BoardDescription.parse(Data(json.utf8), path: "b.json"); Issue.record("accepted \(entry)") } catch {
            #expect(error.description.hasPrefix("b.json: sensors[0].bus"))
            #expect(error.description.contains(expected))
            #expect(!error.description.contains("\n"))
        }
    }
}
