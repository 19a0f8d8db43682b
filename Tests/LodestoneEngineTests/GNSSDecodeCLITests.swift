import Foundation
import Testing
@testable import LodestoneEngine

@Suite(.serialized) struct GNSSDecodeCLITests {
    static let firefly = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../shared/datasets/nmea/firefly-II.log").standardized.path

    @Test func jsonIsOneTPVPerEpochAndTheSummaryCountsBadSentences() throws {
        let r = try CLI.run(["gnss", "decode", "--input", Self.firefly, "--json"])
        #expect(r.status == 0)
        let objects = r.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let tpvs = objects.filter { $0["class"] as? String == "TPV" }
        #expect(tpvs.count == 23) // firefly-II: 23 epochs (its GGAs all fail their checksum: RMC + ZDA give 2D)
        #expect(Set(tpvs.compactMap { $0["time"] as? String }).count == 23)
        #expect(tpvs.allSatisfy { $0["mode"] as? Int == 2 && $0["lat"] is Double })
        #expect(
            r.stderr
                == "lodestone: gnss decode: \(Self.firefly): 23 epochs (0 reports without time) from 46 NMEA sentences and 0 UBX frames; skipped: 23 bad checksum\n"
        )
    }

    @Test func withoutJSONItIsATable() throws {
        let r = try CLI.run(["gnss", "decode", "--input", Self.firefly])
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("time") == true && lines.count == 24)
        #expect(lines[1].hasPrefix("2010-07-08T00:59:47.000Z 2D    37.261026667"))
    }

    @Test func aMissingLogIsOneLineAndExitStatus1() throws {
        let r = try CLI.run(["gnss", "decode", "--input", "/nonexistent/rx.nmea"])
        #expect(r.status == 1 && r.stdout.isEmpty)
        #expect(r.stderr.hasPrefix("lodestone: gnss decode: /nonexistent/rx.nmea: no such file or directory"))
        #expect(r.stderr.filter { $0 == "\n" }.count == 1)
    }
}
