import LodestoneCore
import LodestoneEngine
import LodestoneLocation
import LodestoneService
import Testing

@testable import LodestoneDaemon

/// An update encoded once and shared between subscriptions reads as what encoding it for each would give.
@Suite struct UpdateLinesTests {
    static let heading = HeadingUpdate(
        timeS: 12.25, magneticHeadingDeg: 350.5, trueHeadingDeg: 5.5, headingAccuracyDeg: 4,
        magneticFieldMicroTesla: Vector3(1, 2, 3), calibrationNeeded: false)
    static let location = ReducedAccuracyFilterTests.fix(12, latitudeDeg: 48.1, longitudeDeg: 11.6)

    /// The update a line decodes to, and whether it is one line that starts with its class and id.
    static func read(_ line: String, id: Int) throws -> NativeProtocol.Update? {
        #expect(line.hasPrefix(#"{"class":"UPDATE","id":\#(id),"#) && line.hasSuffix("}\n"))
        #expect(line.dropLast().firstIndex(of: "\n") == nil)
        guard case .update(let u) = try NativeProtocol.decodeDaemonMessage(Array(line.utf8.dropLast())) else { return nil }
        return u
    }

    @Test func eachSubscriptionGetsItsOwnIdAroundTheSameUpdate() throws {
        let lines = UpdateLines()
        for id in [1, 2, 64, 1234, -3] {
            var heading = NativeProtocol.Update(id: id)
            heading.heading = Self.heading
            #expect(try Self.read(lines.line(id: id, member: "heading", element: Self.heading), id: id) == heading)
            var location = NativeProtocol.Update(id: id)
            location.location = Self.location
            #expect(try Self.read(lines.line(id: id, member: "location", element: Self.location), id: id) == location)
        }
    }

    @Test func aDifferentUpdateOfTheSameTypeIsEncodedAfresh() throws {
        let lines = UpdateLines()
        var next = Self.heading
        next.timeS += 0.05
        next.magneticHeadingDeg = 351
        _ = lines.line(id: 1, member: "heading", element: Self.heading)
        #expect(try Self.read(lines.line(id: 2, member: "heading", element: next), id: 2)?.heading == next)
        #expect(try Self.read(lines.line(id: 3, member: "heading", element: Self.heading), id: 3)?.heading == Self.heading)
    }
}
