import LodestoneCore

/// u-blox UBX messages (u-blox 8 / M8 Receiver Description, UBX-13003221, §32): NAV-PVT (the navigation
/// solution), HNR-PVT (the high-rate solution of dead-reckoning receivers) and NAV-SAT (the sky view).
/// Each PVT message is a complete epoch: it clears the previous one and reports.
///
/// A dead-reckoning receiver (ADR/UDR: NEO-M8L, NEO-M8U) sends two solutions. NAV-PVT is the navigation
/// solution, once per navigation epoch (typically 1 Hz), and arrives late: after the high-rate messages of the
/// following few hundred milliseconds. HNR-PVT is the output of the receiver's fusion filter at up to 30 Hz
/// (set by CFG-HNR), the navigation solution propagated with the receiver's own inertial sensors between
/// navigation epochs (§32.9.1). Once HNR-PVT flows it is the solution reported, as gpsd does: it is the newer
/// of the two, and reporting the late NAV-PVT would step time backwards.
///
/// HNR-PVT does not restate everything the navigation solution knows. Its flags have no carrier-phase solution
/// (`carrSoln`), and it has no vertical velocity (only a 3-D and a 2-D speed, which give the magnitude of the
/// vertical speed but not its sign, and badly when the motion is nearly level). So a high-rate epoch inherits
/// from the latest navigation solution, while that is current (see `UBXNavigationSolution.maximumAgeMs`):
/// - its correction status (DGNSS, RTK float/fixed), when the high-rate fix is itself a plain GNSS fix (gpsFix
///   2 or 3): the fusion filter propagates that corrected solution. A dead-reckoning fix (gpsFix 1, or 4: GNSS
///   combined with dead reckoning) keeps its dead-reckoning status, which says more about how it was made;
/// - its vertical velocity, climb = −velD.
/// Climb is never the difference of successive high-rate heights: each navigation epoch re-anchors the
/// high-rate solution, and the step (9.7 cm in gpsd's ublox-neo-m8u-hnr log) would read as a 0.97 m/s climb.
/// Before the first navigation solution a high-rate epoch has no climb.
extension GNSSDecoder {
    /// UBX class and message ids.
    enum UBXMessage {
        static let navPVT: (UInt8, UInt8) = (0x01, 0x07)
        static let navSAT: (UInt8, UInt8) = (0x01, 0x35)
        static let hnrPVT: (UInt8, UInt8) = (0x28, 0x00)
    }

    /// Decodes one UBX frame (class, id, length, payload).
    mutating func handleUBX(_ frame: UnsafeBufferPointer<UInt8>, _ handle: (Event) -> Void) {
        let raw = UnsafeRawBufferPointer(frame)
        let cls = frame[0], id = frame[1]
        let payload = UnsafeRawBufferPointer(rebasing: raw[4...])
        newdata = Fix()
        if (cls, id) == UBXMessage.navPVT && payload.count >= 84 {
            decodedUBX += 1
            let iTOW = Bytes.leU32(payload, 0)
            let change = decodePVT(payload, highRate: false)
            navigationSolution.note(iTOW: iTOW, fixType: payload[20], flags: payload[21], velD: newdata.reportedVelD)
            // Once the high-rate solution flows, the navigation solution only lends it what it lacks.
            if sawHighRatePVT { return }
            completePacket(change.union(startEpoch(iTOW)), handle)
        } else if (cls, id) == UBXMessage.hnrPVT && payload.count >= 72 {
            decodedUBX += 1
            sawHighRatePVT = true
            let iTOW = Bytes.leU32(payload, 0)
            var change = decodePVT(payload, highRate: true)
            change.formUnion(inheritNavigationSolution(iTOW: iTOW))
            completePacket(change.union(startEpoch(iTOW)), handle)
        } else if (cls, id) == UBXMessage.navSAT && payload.count >= 8 {
            decodedUBX += 1
            completePacket(decodeNAVSAT(payload), handle)
        } else {
            ignoredUBX += 1
        }
    }

    /// `.clear` when `iTOW` (GPS time of week, ms) starts a new epoch: messages of one epoch share it (§32.2).
    mutating func startEpoch(_ iTOW: UInt32) -> GNSSChange {
        defer { ubxEpochTOW = iTOW }
        return ubxEpochTOW == iTOW ? [] : .clear
    }

    /// Gives the high-rate epoch in `newdata` what it inherits from a current navigation solution (see above).
    mutating func inheritNavigationSolution(iTOW: UInt32) -> GNSSChange {
        guard newdata.mode >= 2, let age = navigationSolution.ageMs(at: iTOW),
            age <= navigationSolution.maximumAgeMs
        else { return [] }
        var change: GNSSChange = []
        if newdata.status == statusGPS || newdata.status == statusDGPS,
            Self.correctionRank(navigationSolution.correction) > Self.correctionRank(newdata.status)
        {
            newdata.status = navigationSolution.correction
        }
        if navigationSolution.velD.isFinite {
            newdata.climb = -navigationSolution.velD
            change.insert(.climb)
        }
        return change
    }

    /// Orders the correction statuses: plain GNSS < DGNSS < RTK float < RTK fixed.
    static func correctionRank(_ status: Int) -> Int {
        switch status {
        case statusDGPS: 1
        case statusRTKFloat: 2
        case statusRTKFixed: 3
        default: 0
        }
    }

    /// The correction status a PVT message's flags state for a GNSS fix: bit 1 `diffSoln` (DGNSS, SBAS), and in
    /// NAV-PVT bits 6–7 `carrSoln` (1 RTK float, 2 RTK fixed). HNR-PVT's bits 6–7 are reserved.
    static func correctionStatus(flags: UInt8, carrierSolution: Bool) -> Int {
        if carrierSolution {
            switch flags >> 6 {
            case 1: return statusRTKFloat
            case 2: return statusRTKFixed
            default: break
            }
        }
        return flags & 0x02 != 0 ? statusDGPS : statusGPS
    }

    /// NAV-PVT (§32.17.30) or HNR-PVT (§32.9.1): time, fix type and flags, position, velocity, accuracies.
    mutating func decodePVT(_ p: UnsafeRawBufferPointer, highRate: Bool) -> GNSSChange {
        var mask: GNSSChange = [.online, .report, .cycleEnd]
        newdata.highRate = highRate
        let valid = p[11]
        let nano = Int(Bytes.leS32(p, highRate ? 12 : 16))
        let fixType = p[highRate ? 16 : 20]
        let flags = p[highRate ? 17 : 21]
        if valid & 0x03 == 0x03 {
            var seconds = UTCTime.secondsSince1970(
                year: Int(Bytes.leU16(p, 4)), month: Int(p[6]), day: Int(p[7]),
                hour: Int(p[8]), minute: Int(p[9]), second: Int(p[10]))
            // gpsd normalises the signed nanoseconds once (TS_NORM), enough for the ±1e9 the manual allows; a
            // corrupted frame can carry any Int32 (up to ±2.1 s), so the whole seconds are moved out of it: a fix's
            // nanoseconds are always 0 ..< 1e9 (the fuzzer found two such frames making a time difference overflow).
            let (carry, n) = nano.quotientAndRemainder(dividingBy: 1_000_000_000)
            seconds += Int64(carry)
            if n < 0 { seconds -= 1 }
            newdata.timeSeconds = seconds
            newdata.timeNanos = Int32(n < 0 ? n + 1_000_000_000 : n)
            mask.insert(.time)
        }
        let fixOK = flags & 0x01 != 0
        switch fixType {
        case 1: newdata.mode = 2; newdata.status = statusDeadReckoning
        case 2: newdata.mode = 2; newdata.status = statusGPS
        case 3: newdata.mode = 3; newdata.status = statusGPS
        case 4: newdata.mode = 3; newdata.status = statusGNSSDeadReckoning
        case 5: newdata.mode = 1; newdata.status = statusTime
        default: newdata.mode = 1; newdata.status = statusUnknown
        }
        if !fixOK && fixType != 1 { newdata.mode = 1; newdata.status = statusUnknown }
        if newdata.mode >= 2 && newdata.status == statusGPS {
            newdata.status = Self.correctionStatus(flags: flags, carrierSolution: !highRate)
        }
        mask.formUnion([.mode, .status])
        let o = highRate ? 20 : 24
        if newdata.mode >= 2 {
            newdata.longitude = Double(Bytes.leS32(p, o)) * 1e-7
            newdata.latitude = Double(Bytes.leS32(p, o + 4)) * 1e-7
            mask.insert(.latLon)
            if newdata.mode >= 3 {
                newdata.altHAE = Double(Bytes.leS32(p, o + 8)) * 1e-3
                newdata.altMSL = Double(Bytes.leS32(p, o + 12)) * 1e-3
                mask.insert(.altitude)
            }
            if highRate {
                newdata.speed = Double(Bytes.leS32(p, 36)) * 1e-3
                newdata.track = Double(Bytes.leS32(p, 44)) * 1e-5
                newdata.eph = Double(Bytes.leU32(p, 52)) * 1e-3
                newdata.epv = Double(Bytes.leU32(p, 56)) * 1e-3
                newdata.eps = Double(Bytes.leU32(p, 60)) * 1e-3
                newdata.epd = Double(Bytes.leU32(p, 64)) * 1e-5
                mask.formUnion([.speed, .track])
            } else {
                newdata.eph = Double(Bytes.leU32(p, 40)) * 1e-3
                newdata.epv = Double(Bytes.leU32(p, 44)) * 1e-3
                // Reported, but not used for climb: gpsd 3.27 derives climb from successive heights here.
                newdata.reportedVelN = Double(Bytes.leS32(p, 48)) * 1e-3
                newdata.reportedVelE = Double(Bytes.leS32(p, 52)) * 1e-3
                newdata.reportedVelD = Double(Bytes.leS32(p, 56)) * 1e-3
                newdata.speed = Double(Bytes.leS32(p, 60)) * 1e-3
                newdata.track = Double(Bytes.leS32(p, 64)) * 1e-5
                newdata.eps = Double(Bytes.leU32(p, 68)) * 1e-3
                mask.formUnion([.speed, .track, .velocityNED])
                let used = Int(p[23])
                satellitesUsedCount = used
                dop.pdop = Double(Bytes.leU16(p, 76)) * 0.01
                mask.insert(.dop)
            }
            mask.formUnion([.horizontalError, .verticalError])
        }
        return mask
    }

    /// NAV-SAT (§32.17.36): the sky view, one 12-byte block per satellite.
    mutating func decodeNAVSAT(_ p: UnsafeRawBufferPointer) -> GNSSChange {
        let count = Int(p[5])
        guard p.count >= 8 + 12 * count else { return .online }
        zeroSatellites()
        for i in 0..<min(count, Self.maximumChannels) {
            let o = 8 + 12 * i
            let gnss = Int(p[o]), sv = Int(p[o + 1])
            let prn: Int =
                switch gnss {
                case 0: sv
                case 1: sv
                case 2: 300 + sv
                case 3: 400 + sv
                case 4: 172 + sv
                case 5: 192 + sv
                case 6: sv == 255 ? 0 : 64 + sv
                default: 0
                }
            let cno = Double(p[o + 2])
            let el = Double(Int8(bitPattern: p[o + 3])), az = Double(Bytes.leS16(p, o + 4))
            let used = Bytes.leU32(p, o + 8) & 0x08 != 0
            let sat = GNSSSatellite(
                prn: prn, gnssID: gnss, svID: sv, elevationDeg: el, azimuthDeg: az,
                signalDBHz: cno, used: used)
            if satellitesVisible < skyview.count { skyview[satellitesVisible] = sat } else { skyview.append(sat) }
            satellitesVisible += 1
        }
        return [.online, .satellites]
    }
}

/// The latest navigation solution (NAV-PVT) of a receiver that also sends a high-rate solution (HNR-PVT): what
/// the high-rate epochs inherit from it (see `GNSSDecoder.handleUBX`).
struct UBXNavigationSolution {
    /// GPS time of week of the latest navigation epoch, ms; nil before the first NAV-PVT.
    var iTOW: UInt32?
    /// Interval between the last two navigation epochs, ms; 0 until two have arrived.
    var intervalMs: Int64 = 0
    /// Its correction status for a GNSS fix (gpsd statusGPS, statusDGPS, statusRTKFloat, statusRTKFixed);
    /// statusUnknown when it had none (no fix, dead reckoning only, time only, gnssFixOK clear).
    var correction = statusUnknown
    /// Its velocity down, m/s (NAV-PVT `velD`); NaN when it had no valid velocity.
    var velD = Double.nan

    /// GPS week, ms.
    static let weekMs: Int64 = 604_800_000

    /// How long a navigation solution stays current for the high-rate epochs after it, ms: two navigation
    /// intervals (one for the epoch itself, one for NAV-PVT's output latency), and at least 2 s, two intervals
    /// at the default 1 Hz navigation rate, until a second NAV-PVT has shown the rate. A receiver that stops
    /// sending NAV-PVT, or misses one, leaves its high-rate epochs on their own.
    var maximumAgeMs: Int64 { max(2000, 2 * intervalMs) }

    /// Time from the navigation epoch to the high-rate epoch at `iTOW`, ms, across the week's end; nil before
    /// the first navigation solution. A high-rate epoch before the navigation epoch comes out near a week.
    func ageMs(at highRateTOW: UInt32) -> Int64? {
        iTOW.map { (Int64(highRateTOW) - Int64($0) + Self.weekMs) % Self.weekMs }
    }

    /// Records a NAV-PVT: `fixType` and `flags` as sent (§32.17.30), `velD` as decoded (m/s, NaN without a fix).
    mutating func note(iTOW now: UInt32, fixType: UInt8, flags: UInt8, velD down: Double) {
        if let previous = iTOW {
            let step = (Int64(now) - Int64(previous) + Self.weekMs) % Self.weekMs
            if step > 0 && step <= 60_000 { intervalMs = step }
        }
        iTOW = now
        let gnssFix = flags & 0x01 != 0 && (2...4).contains(fixType)
        correction = gnssFix ? GNSSDecoder.correctionStatus(flags: flags, carrierSolution: true) : statusUnknown
        velD = down
    }
}
