import LodestoneEngine
import Testing

@testable import LodestoneDaemon

/// The 15-minute limit per client identity: subscribing or connecting again gives no fresher position.
@Suite struct ReducedAccuracyLedgerTests {
    typealias Ledger = ReducedAccuracyLedger
    /// Zurich, and 6 km further north: two different cells.
    static func at(_ timeS: Double, north: Bool = false) -> LocationUpdate {
        ReducedAccuracyFilterTests.fix(timeS, latitudeDeg: north ? 47.43 : 47.3769, longitudeDeg: 8.5417)
    }

    @Test func aNewSubscriptionOfTheSameUidGetsTheLastPositionNotAFreshOne() throws {
        let ledger = Ledger()
        var first = Ledger.Subscription(identity: .uid(65534))
        let given = try #require(ledger.filter(Self.at(100), for: &first)?.location)
        #expect(ledger.filter(Self.at(200, north: true), for: &first) == nil)
        // Connecting again 400 s later, 6 km north: the position of 100 s, once.
        var again = Ledger.Subscription(identity: .uid(65534))
        let repeated = try #require(ledger.filter(Self.at(500, north: true), for: &again))
        #expect(repeated.timeS == 100 && repeated.location == given)
        #expect(ledger.filter(Self.at(501, north: true), for: &again) == nil)
        // 900 s after the first: a fresh position, to whichever subscription comes first, then to the other once.
        let fresh = try #require(ledger.filter(Self.at(1000, north: true), for: &again))
        #expect(fresh.timeS == 1000 && fresh.location?.coordinate != given.coordinate)
        #expect(ledger.filter(Self.at(1000, north: true), for: &first)?.timeS == 1000)
        #expect(ledger.filter(Self.at(1001, north: true), for: &first) == nil)
    }

    @Test func identitiesAreCountedApart() {
        let ledger = Ledger()
        var nobody = Ledger.Subscription(identity: .uid(65534))
        var alice = Ledger.Subscription(identity: .uid(1000))
        var gpsd = Ledger.Subscription(identity: .gpsdEndpoint)
        #expect(ledger.filter(Self.at(100), for: &nobody)?.timeS == 100)
        #expect(ledger.filter(Self.at(200, north: true), for: &alice)?.timeS == 200)
        #expect(ledger.filter(Self.at(300, north: true), for: &gpsd)?.timeS == 300)
        var gpsdAgain = Ledger.Subscription(identity: .gpsdEndpoint)
        #expect(ledger.filter(Self.at(400), for: &gpsdAgain)?.timeS == 300)
    }

    @Test func updatesWithoutAPositionPassAndLeaveTheLimitAlone() {
        let ledger = Ledger()
        var s = Ledger.Subscription(identity: .uid(65534))
        let unavailable = LocationUpdate(timeS: 5, location: nil, locationUnavailable: true)
        #expect(ledger.filter(unavailable, for: &s)?.locationUnavailable == true)
        #expect(ledger.filter(Self.at(10), for: &s)?.timeS == 10)
    }
}
