import LodestoneLocation
import LodestoneMonitoring
import Testing

@Suite struct RegionTests {
    @Test(arguments: [0.5, 0, -3, 100_000.5, .nan, .infinity])
    func aRadiusOutsideOneMetreToOneHundredKilometresIsRefused(radiusM: Double) {
        #expect(throws: RegionError.self) { try CircularRegion(id: "a", center: zurich, radiusM: radiusM) }
    }

    @Test func theLimitsThemselvesAreAccepted() throws {
        #expect(try CircularRegion(id: "a", center: zurich, radiusM: 1).radiusM == 1)
        #expect(try CircularRegion(id: "b", center: zurich, radiusM: 100_000).radiusM == 100_000)
        #expect(try CircularRegion(id: "pole", latitudeDeg: 90, longitudeDeg: 180, radiusM: 10).center.latitudeDeg == 90)
    }

    @Test func badCoordinatesAndIdentifiersAreRefusedWithTheField() {
        #expect(throws: RegionError.latitude(id: "a", latitudeDeg: 91)) {
            try CircularRegion(id: "a", latitudeDeg: 91, longitudeDeg: 0, radiusM: 10)
        }
        #expect(throws: RegionError.longitude(id: "a", longitudeDeg: -180.5)) {
            try CircularRegion(id: "a", latitudeDeg: 0, longitudeDeg: -180.5, radiusM: 10)
        }
        #expect(throws: RegionError.identifier("")) { try CircularRegion(id: "", latitudeDeg: 0, longitudeDeg: 0, radiusM: 10) }
        #expect(RegionError.radius(id: "x", radiusM: 0).description.contains("[1, 100000] m"))
    }

    @Test func aDuplicateIdentifierIsRefusedByTheMonitor() throws {
        var monitor = RegionMonitor()
        try monitor.add(CircularRegion(id: "home", center: zurich, radiusM: 100))
        #expect(throws: RegionError.duplicate(id: "home")) {
            try monitor.add(CircularRegion(id: "home", center: zurich, radiusM: 200))
        }
        #expect(monitor.count == 1)
    }

    @Test func theRegionsFileIsReadWithOrWithoutHeader() throws {
        let withHeader = try RegionsCSV.parse(
            "id,lat_deg,lon_deg,radius_m\r\nhome,47.1,8.5,100\n\n# comment\noffice, -33.9, 151.2 ,5000\n")
        #expect(withHeader.map(\.id) == ["home", "office"])
        #expect(withHeader[1].center.longitudeDeg == 151.2 && withHeader[1].radiusM == 5000)
        let bare = try RegionsCSV.parse("a,0,179.999,50")
        #expect(bare.count == 1)
    }

    @Test func aBadLineIsReportedWithItsNumber() {
        #expect(throws: RegionsCSV.LineError(line: 3, problem: "lon_deg \"east\" is not a number")) {
            try RegionsCSV.parse("id,lat_deg,lon_deg,radius_m\na,1,2,30\nb,1,east,30\n")
        }
        #expect(throws: RegionsCSV.LineError.self) { try RegionsCSV.parse("a,1,2\n") }
        do {
            _ = try RegionsCSV.parse("a,1,2,30\nb,1,2,0.2\n")
            Issue.record("a radius of 0.2 m was accepted")
        } catch {
            #expect(error.line == 2 && error.problem.contains("radius"))
        }
        #expect(throws: RegionsCSV.LineError.self) { try RegionsCSV.parse("a,1,2,30\na,1,2,30\n") }
        // A second non-numeric line is no header.
        #expect(throws: RegionsCSV.LineError.self) { try RegionsCSV.parse("id,lat,lon,r\nid,lat,lon,r\n") }
    }
}
