import LodestoneCore

/// u-blox UBX messages (u-blox 8 / M8 Receiver Description, UBX-13003221, §32): NAV-PVT (the navigation
/// solution), HNR-PVT (the high-rate solution of dead-reckoning receivers) and NAV-SAT (the sky view).
/// Each PVT message is a complete epoch: it clears the previous one and reports.
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
            // A dead-reckoning receiver's high-rate HNR-PVT is the solution to report once it flows (as gpsd).
            if sawHighRatePVT { return }
            completePacket(decodePVT(payload, highRate: false), handle)
        } else if (cls, id) == UBXMessage.hnrPVT && payload.count >= 72 {
            decodedUBX += 1
            sawHighRatePVT = true
            completePacket(decodePVT(payload, highRate: true), handle)
        } else if (cls, id) == UBXMessage.navSAT && payload.count >= 8 {
            decodedUBX += 1
            completePacket(decodeNAVSAT(payload), handle)
        } else {
            ignoredUBX += 1
        }
    }

    /// NAV-PVT (§32.17.30) or HNR-PVT (§32.9.1): time, fix type and flags, position, velocity, accuracies.
    mutating func decodePVT(_ p: UnsafeRawBufferPointer, highRate: Bool) -> GNSSChange {
        var mask: GNSSChange = [.online, .report, .cycleEnd]
        let iTOW = Bytes.leU32(p, 0)
        if ubxEpochTOW != iTOW { mask.insert(.clear) }
        ubxEpochTOW = iTOW
        let valid = p[11]
        let nano = Int(Bytes.leS32(p, highRate ? 12 : 16))
        let fixType = p[highRate ? 16 : 20]
        let flags = p[highRate ? 17 : 21]
        if valid & 0x03 == 0x03 {
            var seconds = UTCTime.secondsSince1970(year: Int(Bytes.leU16(p, 4)), month: Int(p[6]), day: Int(p[7]),
                                                   hour: Int(p[8]), minute: Int(p[9]), second: Int(p[10]))
            var n = nano
            if n < 0 { n += 1_000_000_000; seconds -= 1 }
            newdata.timeSeconds = seconds
            newdata.timeNanos = Int32(n)
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
            if flags & 0x02 != 0 { newdata.status = statusDGPS }
            switch flags >> 6 {
            case 1: newdata.status = statusRTKFloat
            case 2: newdata.status = statusRTKFixed
            default: break
            }
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
            let prn: Int = switch gnss {
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
            let sat = GNSSSatellite(prn: prn, gnssID: gnss, svID: sv, elevationDeg: el, azimuthDeg: az,
                                    signalDBHz: cno, used: used)
            if satellitesVisible < skyview.count { skyview[satellitesVisible] = sat } else { skyview.append(sat) }
            satellitesVisible += 1
        }
        return [.online, .satellites]
    }
}
