import Foundation
import LodestoneDaemon
import Testing

/// The authorization a connection keeps: its spellings on the wire and what when-in-use means.
@Suite struct AuthorizationTests {
    @Test func theSpellingsAreThePolicyFilesAndCoreLocationsModel() {
        #expect(LocationAccess.allCases.map(\.rawValue) == ["denied", "when-in-use", "always"])
        #expect(AccuracyAccess.allCases.map(\.rawValue) == ["full", "reduced"])
    }

    @Test func itRoundTripsThroughJSONWithThoseSpellings() throws {
        let a = Authorization(location: .whenInUse, accuracy: .reduced, motion: true, decidedBy: "policy.toml:12 (user alice)")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(a), as: UTF8.self)
        #expect(
            json == #"{"accuracy":"reduced","decidedBy":"policy.toml:12 (user alice)","location":"when-in-use","motion":true}"#)
        #expect(try JSONDecoder().decode(Authorization.self, from: Data(json.utf8)) == a)
    }

    @Test(arguments: [
        (LocationAccess.denied, false, false), (.denied, true, false), (.whenInUse, false, false), (.whenInUse, true, true),
        (.always, false, true), (.always, true, true)
    ])
    func whenInUseAllowsForegroundSubscriptionsOnly(location: LocationAccess, foreground: Bool, allowed: Bool) {
        let a = Authorization(location: location, accuracy: .full, motion: false, decidedBy: "test")
        #expect(a.allowsLocation(foreground: foreground) == allowed)
    }

    @Test func itDescribesItselfInOneLine() {
        #expect(
            Authorization(location: .whenInUse, accuracy: .reduced, motion: true, decidedBy: "policy.toml:12 (user alice)")
                .description
                == "location when-in-use (reduced), motion allowed, by policy.toml:12 (user alice)")
        #expect(
            Authorization(location: .denied, accuracy: .full, motion: false, decidedBy: "default").description
                == "location denied, motion denied, by default")
    }
}
