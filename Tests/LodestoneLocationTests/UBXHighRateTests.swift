import LodestoneCore
import LodestoneLocation
import Testing

/// A dead-reckoning receiver's two solutions (u-blox M8 Receiver Description UBX-13003221): the navigation
/// solution NAV-PVT (§32.17.30), and the high-rate HNR-PVT (§32.9.1), which lacks a carrier-phase status and a
/// vertical velocity and so inherits them from a current navigation solution.
@Suite struct UBXHighRateTests {
    /// HNR-PVT at GPS time of week `tow` ms (UTC 2021-06-16 23:46, GPS − 18 s), the receiver's `gpsFix` and `flags`; a 3-D
    /// speed of 43 mm/s over a ground speed of 19 mm/s, as in gpsd's ublox-neo-m8u-hnr log.
    static func hnrPVT(tow: UInt32, gpsFix: UInt8 = 3, flags: UInt8 = 0x1D) -> [UInt8] {
        var p = [UInt8](repeating: 0, count: 72)
        UBXTests.put(tow, &p, 0)
        UBXTests.put(UInt16(2021), &p, 4); p[6] = 6; p[7] = 16; p[8] = 23; p[9] = 46; p[10] = UInt8((tow / 1000 - 18) % 60)
        p[11] = 0x07
        UBXTests.put(Int32(tow % 1000) * 1_000_000, &p, 12)
        p[16] = gpsFix; p[17] = flags
        UBXTests.put(Int32(-1_213_140_888), &p, 20); UBXTests.put(Int32(440_688_579), &p, 24)
        UBXTests.put(Int32(1_111_895), &p, 28); UBXTests.put(Int32(1_133_245), &p, 32)
        UBXTests.put(Int32(19), &p, 36); UBXTests.put(Int32(43), &p, 40)
        UBXTests.put(Int32(23_505_708), &p, 44); UBXTests.put(Int32(23_505_708), &p, 48)
        UBXTests.put(UInt32(3024), &p, 52); UBXTests.put(UInt32(6079), &p, 56)
        UBXTests.put(UInt32(410), &p, 60); UBXTests.put(UInt32(3_339_730), &p, 64)
        return UBXTests.frame(0x28, 0x00, p)
    }

    /// NAV-PVT at `tow` ms: a 3-D fix with `flags` (0x23 = gnssFixOK, diffSoln, headVehValid, as in the same log)
    /// and velD `velDmm` mm/s.
    static func navPVT(tow: UInt32, fixType: UInt8 = 3, flags: UInt8 = 0x23, velDmm: Int32 = -39) -> [UInt8] {
        var p = [UInt8](repeating: 0, count: 92)
        UBXTests.put(tow, &p, 0)
        UBXTests.put(UInt16(2021), &p, 4); p[6] = 6; p[7] = 16; p[8] = 23; p[9] = 46; p[10] = UInt8((tow / 1000 - 18) % 60)
        p[11] = 0x07
        p[20] = fixType; p[21] = flags; p[23] = 15
        UBXTests.put(Int32(-1_213_140_888), &p, 24); UBXTests.put(Int32(440_688_579), &p, 28)
        UBXTests.put(Int32(1_111_880), &p, 32); UBXTests.put(Int32(1_133_230), &p, 36)
        UBXTests.put(velDmm, &p, 56)
        UBXTests.put(Int32(19), &p, 60)
        return UBXTests.frame(0x01, 0x07, p)
    }

    /// The reports a decoder gives for `frames`, in order.
    static func reports(_ frames: [[UInt8]]) -> [GNSSFixReport] {
        var d = GNSSDecoder()
        var out: [GNSSFixReport] = []
        for f in frames { f.withUnsafeBytes { raw in d.feed(raw) { if case .report(let r, _) = $0 { out.append(r) } } } }
        return out
    }

    @Test func highRateEpochsInheritTheNavigationSolutionsCorrectionAndVerticalVelocity() throws {
        let tow: UInt32 = 344_783_000
        let r = Self.reports([Self.hnrPVT(tow: tow + 300), Self.navPVT(tow: tow), Self.hnrPVT(tow: tow + 400)])
        // The late NAV-PVT is not reported once the high-rate solution flows: two reports, both high-rate.
        #expect(r.count == 2 && r.allSatisfy(\.isHighRateSolution))
        let before = try #require(r.first), after = try #require(r.last)
        // Before any navigation solution: the HNR-PVT's own flags (no DiffSoln), and no vertical velocity.
        #expect(before.status == nil && before.climbMps == nil && before.mode == .threeDimensional)
        // After it: its DGNSS status and climb = −velD = +0.039 m/s; the rest is the HNR-PVT's own.
        #expect(after.status == .differential && after.climbMps == 0.039)
        #expect(after.time?.iso8601 == "2021-06-16T23:46:05.400Z" && after.altitudeHAEM == 1111.895)
        #expect(after.speedMps == 0.019 && after.ephM == 3.024 && after.epvM == 6.079)
        #expect(after.receiverFix(timeS: 0).quality == .differential)
    }

    @Test func aStaleNavigationSolutionIsNotInherited() throws {
        let tow: UInt32 = 344_783_000
        // 2.1 s after a navigation epoch with no newer one: beyond two intervals and the 2 s floor.
        let r = Self.reports([Self.hnrPVT(tow: tow - 100), Self.navPVT(tow: tow), Self.hnrPVT(tow: tow + 2100)])
        let last = try #require(r.last)
        #expect(last.status == nil && last.climbMps == nil)
        // A high-rate epoch earlier than the navigation epoch (time stepped back) does not inherit either.
        let back = try #require(
            Self.reports([
                Self.hnrPVT(tow: tow - 100), Self.navPVT(tow: tow),
                Self.hnrPVT(tow: tow - 50)
            ]).last)
        #expect(back.status == nil && back.climbMps == nil)
    }

    @Test func theNavigationIntervalSetsHowLongASolutionStaysCurrent() throws {
        // Navigation epochs 2 s apart (0.5 Hz): a high-rate epoch 3 s after the latest one still inherits it.
        let tow: UInt32 = 344_780_000
        let r = Self.reports([
            Self.hnrPVT(tow: tow - 100), Self.navPVT(tow: tow), Self.navPVT(tow: tow + 2000),
            Self.hnrPVT(tow: tow + 5000)
        ])
        let last = try #require(r.last)
        #expect(last.status == .differential && last.climbMps == 0.039)
    }

    @Test func deadReckoningHighRateFixesKeepTheirOwnStatus() throws {
        let tow: UInt32 = 344_783_000
        // gpsFix 4, GNSS combined with dead reckoning: gpsd status 6, not the navigation solution's DGNSS.
        let combined = try #require(
            Self.reports([
                Self.hnrPVT(tow: tow - 100), Self.navPVT(tow: tow, fixType: 4),
                Self.hnrPVT(tow: tow + 100, gpsFix: 4)
            ]).last)
        #expect(combined.status == .gnssDeadReckoning && combined.climbMps == 0.039)
        // gpsFix 1, dead reckoning only (a GNSS outage): a 2D fix with gpsd status 5.
        let dr = try #require(
            Self.reports([
                Self.hnrPVT(tow: tow - 100), Self.navPVT(tow: tow, fixType: 1, flags: 0),
                Self.hnrPVT(tow: tow + 100, gpsFix: 1, flags: 0x1C)
            ]).last)
        #expect(dr.mode == .twoDimensional && dr.status == .deadReckoning)
    }

    @Test func onlyAGNSSNavigationFixLendsItsCorrections() throws {
        let tow: UInt32 = 344_783_000
        // gnssFixOK clear: no navigation fix, so neither its diffSoln nor a velocity to lend.
        let notOK = try #require(
            Self.reports([
                Self.hnrPVT(tow: tow - 100), Self.navPVT(tow: tow, flags: 0x02),
                Self.hnrPVT(tow: tow + 100)
            ]).last)
        #expect(notOK.status == nil && notOK.climbMps == nil)
        // RTK fixed (carrSoln 2) in the navigation solution: inherited.
        let rtk = try #require(
            Self.reports([
                Self.hnrPVT(tow: tow - 100), Self.navPVT(tow: tow, flags: 0x83),
                Self.hnrPVT(tow: tow + 100)
            ]).last)
        #expect(rtk.status == .rtkFixed)
        // HNR-PVT's own bits 6–7 are reserved, not a carrier-phase solution.
        let reserved = try #require(Self.reports([Self.hnrPVT(tow: tow, flags: 0xDD)]).last)
        #expect(reserved.status == nil)
    }

    @Test func highRateClimbIsNeverADifferenceOfHeights() throws {
        // Two high-rate epochs 0.1 s apart whose heights differ by 0.1 m, no navigation solution: no climb
        // (a navigation epoch's re-anchoring step would otherwise read as 1 m/s).
        var second = Self.hnrPVT(tow: 344_783_100)
        var p = Array(second[6..<(6 + 72)])
        UBXTests.put(Int32(1_111_995), &p, 28)
        second = UBXTests.frame(0x28, 0x00, p)
        let r = Self.reports([Self.hnrPVT(tow: 344_783_000), second])
        #expect(r.count == 2 && r.allSatisfy { $0.climbMps == nil })
    }
}
