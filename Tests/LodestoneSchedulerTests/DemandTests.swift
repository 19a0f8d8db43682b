import Testing
import LodestoneScheduler

@Suite struct DemandTests {
    @Test func strictestAccuracyAndFiltersWinAndAnyWantedPartIsServed() {
        let a = Demand(
            client: "map", location: LocationDemand(desiredAccuracy: .hundredMeters, distanceFilterM: 50, maximumAgeS: 30),
            foreground: false)
        let b = Demand(
            client: "nav", location: LocationDemand(desiredAccuracy: .bestForNavigation, distanceFilterM: 5, maximumAgeS: 5),
            heading: HeadingDemand(headingFilterDeg: 2), altitude: true)
        let c = CombinedDemand([a, b])
        #expect(c.location?.desiredAccuracy == .bestForNavigation)
        #expect(c.location?.distanceFilterM == 5)
        #expect(c.location?.maximumAgeS == 5)
        #expect(c.locationClient == "nav")
        #expect(c.heading?.headingFilterDeg == 2)
        #expect(c.altitude && !c.activity && c.foreground)
        #expect(CombinedDemand([b, a]).location == c.location)
    }

    @Test func noDistanceFilterIsStricterThanAnyAndSignificantChangeNeedsEveryClient() {
        let sig = Demand(
            client: "weather", location: LocationDemand(desiredAccuracy: .threeKilometers, significantChangeOnly: true))
        let every = Demand(client: "log", location: LocationDemand(desiredAccuracy: .kilometer, distanceFilterM: nil))
        #expect(CombinedDemand([sig]).location?.significantChangeOnly == true)
        let both = CombinedDemand([sig, every])
        #expect(both.location?.significantChangeOnly == false)
        #expect(both.location?.distanceFilterM == nil)
        #expect(CombinedDemand([Demand]()) == .none)
    }
}
