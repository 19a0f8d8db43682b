import LodestoneCore

/// The NMEA 0183 sentences the decoder knows, in the order gpsd's dispatch table tags them. Sentences that carry
/// nothing for a fix (TXT, DTM, GRS, THS, proprietary status) are still known: they take part in the cycle-end
/// detection as they do in gpsd.
public enum NMEASentenceType: Int, CaseIterable, Sendable {
    case pglor, pgrme, pgrmf, pgrmm, pgrmz, accuracy, bwc, dbt, dtm, gbs, gga, gll, gns, grs, gsa, gst, gsv
    case hdg, hdm, hdt, mwd, mwv, rot, xdr, pashr, pmgnst, psrfepe, psti, ptnta, ptnthtm, rmc, sti, ths, txt, vtg, zda

    /// Minimum field count (tag included) below which gpsd ignores the sentence.
    var minimumFields: Int {
        switch self {
        case .pglor, .pgrmm, .sti, .psti: 2
        case .pgrme: 7
        case .pgrmf: 15
        case .pgrmz: 4
        case .accuracy, .hdt: 1
        case .bwc: 12
        case .dbt, .gbs: 7
        case .dtm: 2
        case .gga, .gns: 13
        case .gll: 7
        case .gsa: 18
        case .gst, .pmgnst, .ptnta: 8
        case .pashr: 3
        case .psrfepe: 7
        case .ptnthtm: 9
        case .rmc: 8
        case .txt, .vtg: 5
        case .zda: 4
        case .grs, .gsv, .hdg, .hdm, .mwd, .mwv, .rot, .xdr, .ths: 0
        }
    }

    /// Sentences that may trail the last time-stamped one and still belong to its cycle (gpsd's
    /// `cycle_continue`).
    var continuesCycle: Bool { self == .gll || self == .accuracy }

    /// The type of a sentence tag (`GPGGA`, `PSRFEPE`): proprietary names whole, standard ones by their last
    /// three letters whatever the talker (`GNGGA`, `BDGSA`, Quectel's `PQGSV`).
    static func forTag(_ tag: NMEAField) -> (type: NMEASentenceType?, known: Bool) {
        if tag.first == 0x50 { // P…: proprietary
            if tag.equals("PGLOR") { return (.pglor, true) }
            if tag.equals("PGRME") { return (.pgrme, true) }
            if tag.equals("PGRMF") { return (.pgrmf, true) }
            if tag.equals("PGRMM") { return (.pgrmm, true) }
            if tag.equals("PGRMZ") { return (.pgrmz, true) }
            if tag.equals("PASHR") { return (.pashr, true) }
            if tag.equals("PMGNST") { return (.pmgnst, true) }
            if tag.equals("PSRFEPE") { return (.psrfepe, true) }
            if tag.equals("PSTI") { return (.psti, true) }
            if tag.equals("PTNTA") { return (.ptnta, true) }
            if tag.equals("PTNTHTM") { return (.ptnthtm, true) }
            // Known to gpsd without a decoder (Garmin, MediaTek, SiRF, u-blox, Furuno…): no tag.
            if tag.hasPrefix("PGRM") || tag.hasPrefix("PMTK") || tag.hasPrefix("PSRF") || tag.hasPrefix("PUBX")
                || tag.hasPrefix("PERD") || tag.hasPrefix("PSTM") || tag.hasPrefix("PTNL") || tag.hasPrefix("PJLT")
                || tag.hasPrefix("PQVERNO") || tag.hasPrefix("PRWIZCH") || tag.hasPrefix("PTKM") || tag.hasPrefix("PTFTTXT")
            {
                return (nil, true)
            }
        }
        if tag.equals("STI") { return (.sti, true) }
        if tag.bytes.count == 8, tag.hasPrefix("GP"), NMEAField(UnsafeBufferPointer(rebasing: tag.bytes[2...])).equals("ACCURACY")
        {
            return (.accuracy, true)
        }
        guard tag.bytes.count == 5 else { return (nil, false) }
        let s = NMEAField(UnsafeBufferPointer(rebasing: tag.bytes[2...]))
        switch (s[0], s[1], s[2]) {
        case (0x42, 0x57, 0x43): return (.bwc, true)
        case (0x44, 0x42, 0x54): return (.dbt, true)
        case (0x44, 0x54, 0x4D): return (.dtm, true)
        case (0x47, 0x42, 0x53): return (.gbs, true)
        case (0x47, 0x47, 0x41): return (.gga, true)
        case (0x47, 0x4C, 0x4C): return (.gll, true)
        case (0x47, 0x4E, 0x53): return (.gns, true)
        case (0x47, 0x52, 0x53): return (.grs, true)
        case (0x47, 0x53, 0x41): return (.gsa, true)
        case (0x47, 0x53, 0x54): return (.gst, true)
        case (0x47, 0x53, 0x56): return (.gsv, true)
        case (0x48, 0x44, 0x47): return (.hdg, true)
        case (0x48, 0x44, 0x54): return (.hdt, true)
        case (0x48, 0x44, 0x4D): return (.hdm, true)
        case (0x52, 0x4F, 0x54): return (.rot, true)
        case (0x58, 0x44, 0x52): return (.xdr, true)
        case (0x4D, 0x57, 0x44): return (.mwd, true)
        case (0x4D, 0x57, 0x56): return (.mwv, true)
        case (0x52, 0x4D, 0x43): return (.rmc, true)
        case (0x54, 0x48, 0x53): return (.ths, true)
        case (0x54, 0x58, 0x54): return (.txt, true)
        case (0x56, 0x54, 0x47): return (.vtg, true)
        case (0x5A, 0x44, 0x41): return (.zda, true)
        default: return (nil, false)
        }
    }
}

/// The fields of one sentence (tag first), as a view over the decoder's buffers.
struct NMEASentence {
    let bytes: UnsafeBufferPointer<UInt8>
    let starts: UnsafeMutableBufferPointer<Int>
    let count: Int

    subscript(i: Int) -> NMEAField {
        guard i < count else { return .empty }
        let end = i + 1 < count ? starts[i + 1] - 1 : bytes.count
        return NMEAField(UnsafeBufferPointer(rebasing: bytes[starts[i]..<end]))
    }
}

// gpsd's fix status values (STATUS_*).
let statusUnknown = 0, statusGPS = 1, statusDGPS = 2, statusRTKFixed = 3, statusRTKFloat = 4
let statusDeadReckoning = 5, statusGNSSDeadReckoning = 6, statusTime = 7, statusSimulated = 8, statusPPS = 9

extension GNSSDecoder {
    static let knotsToMps = 1852.0 / 3600.0
    static let maximumFields = 100

    /// Longest sentence gpsd decodes, characters from `$` through `*hh` and CR LF: gpsd's `NMEA_MAX` (110,
    /// `include/gpsd.h`). Its `nmea_parse` drops a longer sentence whole, without a decode or a part in the cycle
    /// detection (a Garmin GPS-10 glued two sentences into one with a valid checksum); its lexer still frames it,
    /// and so does `GNSSFramer`.
    public static let maximumDecodedSentenceLength = 110

    /// Decodes one framed sentence (`$` … before `*`) and completes the packet.
    mutating func handleSentence(_ packet: UnsafeBufferPointer<UInt8>, _ handle: (Event) -> Void) {
        guard packet.count > 1 else { return }
        // The framed bytes lack `*hh` and the line end, CR LF on every receiver gpsd's limit was set for.
        guard packet.count + 5 <= Self.maximumDecodedSentenceLength else {
            overLongSentences += 1
            newdata = Fix()
            completePacket(.online, handle)
            return
        }
        // Borrow the field-offset buffer (a move, not a copy: no allocation) while `parse` mutates the rest of self.
        var starts = fieldStarts
        fieldStarts = []
        let mask: GNSSChange = starts.withUnsafeMutableBufferPointer { startBuffer in
            // Split on commas (gpsd's count: fields including the tag).
            let body = UnsafeBufferPointer(rebasing: packet[1...])
            var n = 1
            startBuffer[0] = 0
            for i in 0..<body.count where body[i] == 0x2C && n < Self.maximumFields {
                startBuffer[n] = i + 1
                n += 1
            }
            return parse(NMEASentence(bytes: body, starts: startBuffer, count: n))
        }
        fieldStarts = starts
        completePacket(mask, handle)
    }

    /// gpsd's `nmea_parse()`: dispatch, time stamp, cycle-end detection, mode hold.
    mutating func parse(_ s: NMEASentence) -> GNSSChange {
        newdata = Fix()
        latchFractionalTime = false
        gsxMore = false
        var mask = GNSSChange.online
        var thisTag = 0
        let (type, known) = NMEASentenceType.forTag(s[0])
        if let type {
            if s.count < type.minimumFields {
                shortSentences += 1
            } else {
                decodedSentences += 1
                mask = decode(type, s)
                cycleContinue = type.continuesCycle
                thisTag = type.rawValue + 1
            }
        } else {
            ignoredSentences += 1
            _ = known
        }
        let tag = s[0]
        if !(tag.bytes.count >= 5 && tag[2] == 0x47 && tag[3] == 0x53 && tag[4] == 0x56) { lastGSVTalker = 0 }
        if !(tag.bytes.count >= 5 && tag[2] == 0x47 && tag[3] == 0x53 && tag[4] == 0x41) { lastGSATalker = 0 }

        if mask.contains(.time) {
            if dateYear == 0 && dateDay == 0 {
                newdata.timeSeconds = 0
                newdata.timeNanos = 0
            } else {
                newdata.timeSeconds = UTCTime.secondsSince1970(
                    year: 1900 + dateYear, month: dateMonth0 + 1, day: dateDay,
                    hour: dateHour, minute: dateMinute, second: dateSecond)
                newdata.timeNanos = Int32(subsecondNanos)
            }
        }

        // The end-of-cycle detector (gpsd): a time-stamped sentence whose time differs from the last one starts
        // a cycle; the time-stamped sentence seen just before it is tagged as the cycle's end.
        let previousTag = lastTag
        if gsxMore {
            // more GSA/GSV to come: neither starts nor ends a cycle
        } else if latchFractionalTime {
            if abs(thisFractionalTime - lastFractionalTime) > 0.01 {
                mask.insert(.clear)
                if previousTag > 0 && !cycleEnders[previousTag] && !cycleContinue {
                    cycleEnders[previousTag] = true
                    cycleEndReliable = true
                }
            }
        } else {
            if cycleEnders[previousTag] && !mask.subtracting(.online).isEmpty {
                mask.insert(.report) // new data just after the cycle's end
            }
            if cycleContinue {
                cycleEnders[previousTag] = false
                cycleEnders[thisTag] = true
                cycleEndReliable = true
            }
        }
        if (latchFractionalTime || cycleContinue) && cycleEnders[thisTag] && !gsxMore {
            mask.formUnion([.report, .cycleEnd])
        }
        if latchFractionalTime { lastTag = thisTag }

        // Don't downgrade a 3D fix to 2D within a cycle because a sentence (RMC) cannot tell 2D from 3D.
        if mask.contains(.mode) && fix.mode == 3 && newdata.mode != 1
            && (lastfix.altHAE.isFinite || oldfix.altHAE.isFinite || lastfix.altMSL.isFinite || oldfix.altMSL.isFinite)
        {
            newdata.mode = fix.mode
        }
        return mask
    }

    mutating func decode(_ type: NMEASentenceType, _ s: NMEASentence) -> GNSSChange {
        switch type {
        case .rmc: return decodeRMC(s)
        case .gga: return decodeGGA(s)
        case .gll: return decodeGLL(s)
        case .gns: return decodeGNS(s)
        case .gsa: return decodeGSA(s)
        case .gsv: return decodeGSV(s)
        case .vtg: return decodeVTG(s)
        case .zda: return decodeZDA(s)
        case .gbs: return decodeGBS(s)
        case .hdt: return decodeHDT(s)
        case .hdg: return decodeHDG(s)
        case .hdm:
            // HDM, magnetic heading (§8.3.51): gpsd 3.27's ATT `mheading`.
            guard let h = s[1].double, (0...360).contains(h) else { return .online }
            return [.online, .attitude]
        case .rot:
            // ROT, rate of turn (§8.3.69), degrees/minute, valid when field 2 is A.
            return s[2].first == 0x41 && !s[1].isEmpty ? [.online, .attitude] : .online
        case .xdr:
            // XDR, transducer measurements (§8.3.91): angular (A) pitch and roll become ATT.
            var i = 1
            while i + 3 <= s.count {
                if s[i].first == 0x41, !s[i + 1].isEmpty,
                    s[i + 3].equals("PTCH") || s[i + 3].equals("ROLL")
                        || s[i + 3].equals("PITCH")
                {
                    return [.online, .attitude]
                }
                i += 4
            }
            return .online
        case .gst: return [.online, .noise]
        case .dbt:
            if let d = s[3].double ?? s[1].double.map({ $0 * 0.3048 }) ?? s[5].double.map({ $0 * 1.8288 }) {
                newdata.depth = d
                return [.online, .altitude]
            }
            return .online
        case .mwd, .mwv: return s[1].isEmpty ? .online : [.online, .navigationData]
        case .psrfepe: return decodePSRFEPE(s)
        case .psti: return decodePSTI(s)
        case .ptnta: return s[3].equals("T4") ? [.online, .oscillator] : .online
        case .bwc:
            if !s[1].isEmpty, mergeTimeOfDay(s[1]), dateYear != 0 { return .time }
            return .online
        case .pglor, .pgrme, .pgrmf, .pgrmm, .pgrmz, .accuracy, .dtm, .grs, .pashr, .pmgnst, .ptnthtm, .sti, .ths, .txt:
            return .online
        }
    }

    // MARK: time

    /// gpsd's `merge_hhmmss`: sets the time of day (a decreasing hour is a midnight wrap: next day).
    mutating func mergeTimeOfDay(_ f: NMEAField) -> Bool {
        guard let t = f.timeOfDay else { return false }
        if t.hour < dateHour { dateDay += 1 }
        dateHour = t.hour
        dateMinute = t.minute
        dateSecond = t.second
        subsecondNanos = t.nanosecond
        return true
    }

    /// gpsd's `merge_ddmmyy`: a two-digit year is placed in the current century; 2080 and later are taken as
    /// 1980–1999 (receivers that wrapped at a GPS week rollover report 2099 for 1999).
    mutating func mergeDate(_ f: NMEAField) -> Bool {
        guard f.bytes.count == 6, f.leadingDigits(6), let dd = f.twoDigits(at: 0), let mm = f.twoDigits(at: 2),
            let yy = f.twoDigits(at: 4)
        else { return false }
        if dateYear % 100 == 99 && yy == 0 { century += 100 }
        var year = century + yy
        if year >= 2080 { year -= 100 }
        guard (1...12).contains(mm), (1...31).contains(dd) else { return false }
        dateYear = year - 1900
        dateMonth0 = mm - 1
        dateDay = dd
        return true
    }

    /// gpsd's `register_fractional_time`: the sentence's time stamp, for the cycle detector.
    mutating func registerFractionalTime(_ f: NMEAField) {
        guard !f.isEmpty else { return }
        lastFractionalTime = thisFractionalTime
        thisFractionalTime = f.double ?? 0
        latchFractionalTime = true
    }

    /// A sentence's own `hhmmss` time stamp: merged into the date and registered for the cycle detector. True
    /// when the time is usable as the epoch's (a date is known).
    mutating func stamp(_ f: NMEAField) -> Bool {
        guard !f.isEmpty, mergeTimeOfDay(f) else { return false }
        registerFractionalTime(f)
        return dateYear != 0
    }

    /// `ddmm.mmmm,N,dddmm.mmmm,E` at `index` into `newdata`; false when a field is empty or malformed.
    mutating func latitudeLongitude(_ s: NMEASentence, _ index: Int) -> Bool {
        let lat = s[index], ns = s[index + 1], lon = s[index + 2], ew = s[index + 3]
        guard !lat.isEmpty, !ns.isEmpty, !lon.isEmpty, !ew.isEmpty,
            var la = lat.degreesMinutes, var lo = lon.degreesMinutes
        else { return false }
        if ns.first == 0x53 { la = -la }
        if ew.first == 0x57 { lo = -lo }
        newdata.latitude = la
        newdata.longitude = lo
        return true
    }

    /// FAA mode indicator (NMEA 0183 v2.3+) to gpsd status.
    static func status(faaMode c: UInt8) -> Int {
        switch c {
        case 0: statusUnknown
        case 0x43, 0x4E, 0x55: statusUnknown // C (Quectel caution), N (not valid), U (Quectel unsafe)
        case 0x44, 0x50: statusDGPS // D differential, P precise
        case 0x45: statusDeadReckoning // E estimated
        case 0x46: statusRTKFloat // F float RTK
        case 0x52: statusRTKFixed // R fixed RTK
        case 0x4D, 0x53: statusSimulated // M manual, S simulator
        default: statusGPS // A autonomous, and anything else
        }
    }

    // MARK: sentences

    /// RMC, recommended minimum data (NMEA 0183 v4.11 §8.3.70).
    mutating func decodeRMC(_ s: NMEASentence) -> GNSSChange {
        var mask = GNSSChange.online
        let status = s[2].first
        if status == 0x41 || status == 0x44 { // A valid, D differential
            if !s[1].isEmpty && s.count > 9 && !s[9].isEmpty {
                if mergeTimeOfDay(s[1]) && mergeDate(s[9]) {
                    mask.insert(.time)
                    registerFractionalTime(s[1])
                }
            }
            var newStatus: Int
            if latitudeLongitude(s, 3) {
                newStatus = status == 0x44 ? statusDGPS : statusGPS
                mask.insert(.latLon)
                if lastfix.mode <= 2 {
                    newdata.mode = 2
                    mask.insert(.mode)
                } else if lastfix.mode == 3 {
                    newdata.mode = 3
                    mask.insert(.mode)
                }
            } else {
                newStatus = statusUnknown
                newdata.mode = 1
                mask.insert(.mode)
            }
            if let v = s[7].double {
                newdata.speed = v * Self.knotsToMps; mask.insert(.speed)
            } else if !s[7].isEmpty {
                newdata.speed = .nan; mask.insert(.speed)
            }
            if let v = s[8].double {
                newdata.track = v; mask.insert(.track)
            } else if !s[8].isEmpty {
                newdata.track = .nan; mask.insert(.track)
            }
            if !s[10].isEmpty && !s[11].isEmpty {
                var variation = s[10].doubleOrNaN
                switch s[11].first {
                case 0x45: break
                case 0x57: variation = -variation
                default: variation = .nan
                }
                if variation.isFinite && abs(variation) > 0.09 {
                    newdata.magneticVariation = variation
                    mask.insert(.magneticTrack)
                }
            }
            if s.count >= 12 { newStatus = Self.status(faaMode: s[12].first) }
            if satellitesUsedCount > 3 {
                newdata.mode = 3
                mask.insert(.mode)
            } else if fix.altHAE.isFinite || fix.altMSL.isFinite {
                newdata.mode = 3
                mask.insert(.mode)
            }
            newdata.status = newStatus
            mask.insert(.status)
        } else {
            // V (invalid) or missing
            newdata.mode = 1
            if s[1].isEmpty || s[9].isEmpty {
                // No time: the cycle detector cannot work; report at once (Quectel's `$GPRMC,,V,,,,,,,,,,N`).
                clearDate()
                cycleEndReliable = false
                mask.formUnion([.report, .time])
            }
            mask.formUnion([.status, .mode])
        }
        return mask
    }

    mutating func clearDate() {
        dateYear = 0; dateMonth0 = 0; dateDay = 0; dateHour = 0; dateMinute = 0; dateSecond = 0
    }

    /// GGA, fix data (§8.3.36).
    mutating func decodeGGA(_ s: NMEASentence) -> GNSSChange {
        var mask = GNSSChange.online
        let previousTalker = lastGGATalker
        lastGGATalker = s[0][1]
        let quality = s[6].isEmpty ? -1 : s[6].int
        var newStatus: Int
        switch quality {
        case 0:
            newStatus = statusUnknown
            if s[1].isEmpty {
                clearDate()
                cycleEndReliable = false
                mask.formUnion([.report, .time])
            }
        case 1: newStatus = statusGPS
        case 2: newStatus = statusDGPS
        case 3: newStatus = statusPPS
        case 4: newStatus = statusRTKFixed
        case 5: newStatus = statusRTKFloat
        case 6: newStatus = statusDeadReckoning
        case 7: newStatus = statusTime
        case 8: newStatus = statusSimulated
        default: newStatus = -1
        }
        if newStatus >= 0 {
            newdata.status = newStatus
            mask = .status // gpsd replaces the mask here
        }
        // A receiver that lost lock may repeat GGA with a frozen time stamp: no fix then.
        if previousTalker != 0 && previousTalker != lastGGATalker {
            latchMode = false
        } else {
            latchMode = sameAsLastGGATimestamp(s[1])
        }
        if latchMode {
            newdata.status = statusUnknown
            newdata.mode = 1
            mask.formUnion([.mode, .status])
        } else {
            storeGGATimestamp(s[1])
        }
        let satellites = s[7].int
        if stamp(s[1]) { mask.insert(.time) }
        if latitudeLongitude(s, 2) {
            newdata.mode = 2
            mask.insert(.latLon)
            if !s[11].isEmpty { newdata.geoidSeparation = s[11].doubleOrNaN }
            if !s[9].isEmpty {
                newdata.altMSL = s[9].doubleOrNaN
                mask.insert(.altitude)
                if satellites >= 4 { newdata.mode = 3 }
            }
            // Fewer than 3 satellites: no fix, unless the talker just changed (per-constellation GGAs, SiRFstarV,
            // Telit: each counts only its own system's satellites).
            if satellites < 3 && !(previousTalker != 0 && previousTalker != lastGGATalker) { newdata.mode = 1 }
        } else {
            newdata.mode = 1
        }
        mask.insert(.mode)
        if !s[8].isEmpty, let h = s[8].double, h < 99 {
            dop.hdop = h
            mask.insert(.dop)
        }
        if !s[13].isEmpty && !s[14].isEmpty {
            let age = s[13].doubleOrNaN, station = s[14].int
            if age > 0.09 || station > 0 {
                newdata.dgpsAge = age
                newdata.dgpsStation = station
            }
        }
        return mask
    }

    mutating func sameAsLastGGATimestamp(_ f: NMEAField) -> Bool {
        let n = min(f.bytes.count, lastGGATimestamp.count)
        guard n == lastGGATimestampLength else { return false }
        for i in 0..<n where lastGGATimestamp[i] != f.bytes[i] { return false }
        return true
    }

    mutating func storeGGATimestamp(_ f: NMEAField) {
        let n = min(f.bytes.count, lastGGATimestamp.count)
        for i in 0..<n { lastGGATimestamp[i] = f.bytes[i] }
        lastGGATimestampLength = n
    }

    /// GLL, geographic position (§8.3.37).
    mutating func decodeGLL(_ s: NMEASentence) -> GNSSChange {
        var mask = GNSSChange.online
        if stamp(s[5]) { mask = .time }
        let valid = s[6].first
        if valid == 0x41 && (s.count < 8 || s[7].first != 0x4E) && latitudeLongitude(s, 1) {
            mask.insert(.latLon)
            var newStatus = statusGPS
            if s.count >= 8 { newStatus = Self.status(faaMode: s[7].first) }
            if fix.altHAE.isFinite || fix.altMSL.isFinite {
                newdata.mode = 3
            } else if satellitesUsedCount > 3 {
                newdata.mode = 3
            } else if fix.mode < 2 || (!oldfix.altHAE.isFinite && !oldfix.altMSL.isFinite) {
                newdata.mode = 2
            }
            newdata.status = newStatus
        } else {
            newdata.status = statusUnknown
            newdata.mode = 1
        }
        mask.formUnion([.status, .mode])
        return mask
    }

    /// GNS, GNSS fix data (§8.3.41).
    mutating func decodeGNS(_ s: NMEASentence) -> GNSSChange {
        var mask = GNSSChange.online
        if stamp(s[1]) { mask = .time }
        let faa = s[6].first
        if faa == 0 || faa == 0x4E {
            newdata.mode = 1
            mask.insert(.mode)
            return mask
        }
        let navigationStatus = s[13].first
        if navigationStatus == 0x55 || navigationStatus == 0x56 { return mask }
        let used = s[7].int
        if latitudeLongitude(s, 2) {
            mask.insert(.latLon)
            newdata.mode = 2
            if !s[9].isEmpty {
                newdata.altMSL = s[9].doubleOrNaN
                if newdata.altMSL.isFinite {
                    mask.insert(.altitude)
                    if used > 3 { newdata.mode = 3 }
                }
                if !s[10].isEmpty { newdata.geoidSeparation = s[10].doubleOrNaN }
            }
        } else {
            newdata.mode = 1
            mask.insert(.mode)
        }
        if !s[8].isEmpty {
            dop.hdop = s[8].doubleOrNaN
            mask.insert(.dop)
        }
        newdata.status = Self.status(faaMode: faa)
        mask.formUnion([.mode, .status])
        if !s[11].isEmpty && !s[12].isEmpty {
            newdata.dgpsAge = s[11].doubleOrNaN
            newdata.dgpsStation = s[12].int
        }
        return mask
    }

    /// GSA, DOP and active satellites (§8.3.46). Several per cycle (one per constellation) accumulate.
    mutating func decodeGSA(_ s: NMEASentence) -> GNSSChange {
        var mask = GNSSChange.online
        let talker = s[0][1]
        let previousTalker = lastGSATalker
        if s.count < 18 {
            // malformed: nothing
        } else if latchMode {
            // the last GGA had a frozen time stamp: don't trust this GSA
        } else {
            newdata.mode = s[2].int
            if s[2].first != 0x45 { mask = .mode }
            if s.count <= 19 {
                if !s[15].isEmpty, let d = s[15].double, d < 99 { dop.pdop = d; mask.insert(.dop) }
                if !s[16].isEmpty, let d = s[16].double, d < 99 { dop.hdop = d; mask.insert(.dop) }
                if !s[17].isEmpty, let d = s[17].double, d < 99 { dop.vdop = d; mask.insert(.dop) }
            }
            if lastGSATalker == 0 || (talker == lastGSATalker && talker != 0x4E) {
                satellitesUsedCount = 0
                for i in satsUsed.indices { satsUsed[i] = 0 }
            }
            lastGSATalker = talker
            var gnss = 0
            switch talker {
            case 0x41: gnss = 3; seenGSA |= 1 << 0 // GA
            case 0x42, 0x44: gnss = 4; seenGSA |= 1 << 1 // GB, BD
            case 0x49: gnss = 6; seenGSA |= 1 << 2 // GI
            case 0x4C: gnss = 2; seenGSA |= 1 << 3 // GL
            case 0x4E: seenGSA |= 1 << 4 // GN
            case 0x50: seenGSA |= 1 << 5 // GP
            case 0x51, 0x5A: gnss = 5; seenGSA |= 1 << 6 // GQ, QZ, PQ
            default: break
            }
            if s.count > 6 {
                for i in 0..<(s.count - 6) {
                    let number = s[i + 3].int
                    if number < 1 { continue }
                    let id = Self.satelliteID(talker0: s[0][0], talker1: talker, number: number, gnss: gnss)
                    if id.prn > 0 {
                        if satellitesUsedCount >= Self.maximumChannels { break }
                        satsUsed[satellitesUsedCount] = id.prn
                        satellitesUsedCount += 1
                    }
                }
            }
            mask.insert(.used)
        }
        let others = seenGSA & ~(1 << 5)
        if others != 0 && talker == 0x50 {
            mask = .online
        } else if previousTalker != 0x4E && talker == 0x4E {
            mask = [.online, .mode] // the first of several GNGSA: ship the mode
        }
        return mask
    }

    /// GSV, satellites in view (§8.3.49). Groups of one talker's sentences accumulate into one sky view.
    mutating func decodeGSV(_ s: NMEASentence) -> GNSSChange {
        let count = s.count
        guard count > 3 else { zeroSatellites(); return .online }
        var signal = 0
        switch count % 4 {
        case 0: break
        case 1: signal = Self.ubxSignal(nmeaSignal: s[count - 1].int)
        default: zeroSatellites(); return .online
        }
        gsvAwait = s[1].int
        gsvPart = s[2].int
        guard gsvPart >= 1 else { zeroSatellites(); return .online }
        let talker = s[0][1]
        var gnss = 0
        if gsvPart == 1 {
            if lastGSVTalker == 0 || (talker == 0x50 && signal == 0) { zeroSatellites() }
            lastGSVTalker = talker
            switch talker {
            case 0x41: gnss = 3; seenGSV |= 1 << 0
            case 0x42, 0x44: gnss = 4; seenGSV |= 1 << 1
            case 0x49: gnss = 6; seenGSV |= 1 << 2
            case 0x4C: gnss = 2; seenGSV |= 1 << 3
            case 0x4E: seenGSV |= 1 << 4
            case 0x50: seenGSV |= 1 << 5
            case 0x51, 0x5A: gnss = 5; seenGSV |= 1 << 6
            default: break
            }
        }
        var field = 4
        while field < count / 4 * 4 {
            if satellitesVisible >= Self.maximumChannels { zeroSatellites(); break }
            let number = s[field].int
            field += 1
            if number == 0 { continue }
            let id = Self.satelliteID(talker0: s[0][0], talker1: talker, number: number, gnss: gnss)
            let el = s[field], az = s[field + 1], ss = s[field + 2]
            field += 3
            let signalDBHz: Double? = ss.isEmpty ? nil : Double(ss.int)
            var used = false
            if id.prn > 0, (signalDBHz ?? 0) > 0 {
                for i in 0..<satellitesUsedCount where satsUsed[i] == id.prn { used = true; break }
            }
            let sat = GNSSSatellite(
                prn: id.prn, gnssID: id.gnss, svID: id.sv, signalID: count % 4 == 1 ? signal : nil,
                elevationDeg: el.isEmpty ? nil : Double(el.int), azimuthDeg: az.isEmpty ? nil : Double(az.int),
                signalDBHz: signalDBHz, used: used)
            if satellitesVisible < skyview.count { skyview[satellitesVisible] = sat } else { skyview.append(sat) }
            satellitesVisible += 1
        }
        if gsvPart < gsvAwait {
            gsxMore = true
            return .online
        }
        gsxMore = false
        var sane = false
        for i in 0..<satellitesVisible where (skyview[i].azimuthDeg ?? 0) != 0 { sane = true; break }
        guard sane else { zeroSatellites(); return .online }
        if (seenGSV & ~(1 << 5)) != 0 && talker == 0x50 { return .online }
        return .satellites
    }

    mutating func zeroSatellites() { satellitesVisible = 0 }

    /// NMEA 4.10 signal id to u-blox's.
    static func ubxSignal(nmeaSignal: Int) -> Int {
        switch nmeaSignal {
        case 2: 5
        case 3: 2
        case 5: 4
        case 6: 3
        default: 0
        }
    }

    /// A satellite's extended PRN, u-blox GNSS id and number, from the NMEA number, the talker and (NMEA 4.10)
    /// the system id, after gpsd's `nmeaid_to_prn()` (NMEA 0183 v4.11 Table 20 and u-blox numbering).
    static func satelliteID(talker0: UInt8, talker1: UInt8, number: Int, gnss: Int) -> (prn: Int, gnss: Int, sv: Int) {
        if number < 1 { return (0, 0, 0) }
        if gnss > 0 {
            switch gnss {
            case 1:
                if number < 33 { return (number, 0, number) }
                if number < 65 { return (number, 1, number + 87) }
                if number < 137 { return (number, 3, number - 100) }
                if number < 152 { return (0, 0, 0) }
                if number < 158 { return (number, 1, number) }
                if number < 193 { return (0, 0, 0) }
                if number < 200 { return (number, 3, number - 192) }
                if number < 265 { return (number, 3, number - 200) }
                return (0, 0, 0)
            case 2:
                let sv = number < 64 ? number : number - 64
                return (64 + sv, 6, sv)
            case 3:
                var sv = 0
                if number < 100 {
                    sv = number
                } else if number > 100 && number < 200 {
                    sv = number - 100
                } else if number > 300 && number < 400 {
                    sv = number - 300
                }
                return (300 + sv, 2, sv)
            case 4:
                var sv = 0
                if number < 100 {
                    sv = number
                } else if number > 200 && number < 300 {
                    sv = number - 200
                } else if number > 400 && number < 500 {
                    sv = number - 400
                }
                return (400 + sv, 3, sv)
            case 5:
                let sv = number < 100 ? number : number - 192
                return (192 + sv, 5, sv)
            case 6:
                return (number + 500, 7, number)
            default:
                return (0, 0, 0)
            }
        }
        if number <= 32 {
            switch (talker0, talker1) {
            case (0x47, 0x41): return (300 + number, 2, number) // GA
            case (0x47, 0x42), (0x42, 0x44), (0x50, 0x51): return (400 + number, 3, number) // GB, BD, PQ
            case (0x47, 0x49): return (500 + number, 7, number) // GI
            case (0x47, 0x4C): return (64 + number, 6, number) // GL
            case (0x47, 0x51), (0x51, 0x5A): return (192 + number, 5, number) // GQ, QZ
            default: return (number, 0, number)
            }
        }
        if number <= 64 { return (number, 1, number + 87) }
        if number <= 96 { return (number, 6, number - 64) }
        if number < 120 { return (0, 0, 0) }
        if number <= 158 { return (number, 1, number) }
        if number < 173 { return (0, 0, 0) }
        if number <= 182 { return (number, 4, number - 172) }
        if number < 193 { return (0, 0, 0) }
        if number <= 197 { return (number, 5, number - 192) }
        if number < 201 { return (0, 0, 0) }
        if number <= 237 { return (number + 200, 3, number - 200) }
        if number < 301 { return (0, 0, 0) }
        if number <= 356 { return (number, 2, number - 300) }
        if number < 401 { return (0, 0, 0) }
        if number <= 437 { return (number, 3, number - 400) }
        return (0, 0, 0)
    }

    /// VTG, course and speed over ground (§8.3.90).
    mutating func decodeVTG(_ s: NMEASentence) -> GNSSChange {
        guard !s[1].isEmpty, !s[5].isEmpty else { return .online }
        if s.count > 9 && !s[9].isEmpty {
            let m = s[9].first
            if m == 0x45 || m == 0x4E { return .online } // estimated or not valid
        }
        var mask = GNSSChange.online
        newdata.track = s[1].doubleOrNaN
        mask.insert(.track)
        if !s[3].isEmpty {
            newdata.magneticTrack = s[3].doubleOrNaN
            mask.insert(.magneticTrack)
        }
        newdata.speed = s[5].doubleOrNaN * Self.knotsToMps
        mask.insert(.speed)
        return mask
    }

    /// ZDA, time and date (§8.3.92): the four-digit year also sets the century. Not a cycle marker.
    mutating func decodeZDA(_ s: NMEASentence) -> GNSSChange {
        guard !s[1].isEmpty, !s[2].isEmpty, !s[3].isEmpty, !s[4].isEmpty else { return .online }
        guard mergeTimeOfDay(s[1]) else { return .online }
        let year = s[4].int, month = s[3].int, day = s[2].int
        guard (1900...2200).contains(year), (1...12).contains(month), (1...31).contains(day) else { return .online }
        let newCentury = year - year % 100
        if newCentury > century { century = newCentury }
        dateYear = year - 1900
        dateMonth0 = month - 1
        dateDay = day
        return .time
    }

    /// GBS, fault detection (§8.3.35): the receiver's own 1-σ errors of the fix with the same time stamp.
    mutating func decodeGBS(_ s: NMEASentence) -> GNSSChange {
        registerFractionalTime(s[1])
        let f = s[1]
        guard let h = f.twoDigits(at: 0), let m = f.twoDigits(at: 2), let sec = f.twoDigits(at: 4),
            h == dateHour, m == dateMinute, sec == dateSecond
        else { return .online }
        newdata.epv = s[4].doubleOrNaN
        return [.horizontalError, .verticalError]
    }

    /// HDT, true heading (§8.3.53): gpsd's ATT `heading`.
    mutating func decodeHDT(_ s: NMEASentence) -> GNSSChange {
        guard let h = s[1].double, (0...360).contains(h) else { return .online }
        attitudeHeadingDeg = h
        return [.online, .attitude]
    }

    /// HDG, magnetic sensor heading (§8.3.52): gpsd's TPV `magtrack`.
    mutating func decodeHDG(_ s: NMEASentence) -> GNSSChange {
        guard let h = s[1].double, (0...360).contains(h) else { return .online }
        newdata.magneticTrack = h
        return [.online, .magneticTrack]
    }

    /// SiRF's estimated position errors: time stamp, HDOP, EHPE and EVPE (m).
    mutating func decodePSRFEPE(_ s: NMEASentence) -> GNSSChange {
        var mask = GNSSChange.status
        if stamp(s[1]) { mask.insert(.time) }
        guard s[2].first == 0x41 else { return mask }
        if let h = s[3].double { dop.hdop = h; mask.insert(.dop) }
        if let e = s[4].double { newdata.eph = e; mask.insert(.horizontalError) }
        if let e = s[5].double { newdata.epv = e; mask.insert(.verticalError) }
        if let e = s[6].double { newdata.eps = e }
        if let e = s[7].double { newdata.epd = e }
        return mask
    }

    /// Skytraq's `$PSTI` family: 030 (recommended minimum 3D data), 032/035/036 (RTK baseline and attitude):
    /// their time stamps take part in the cycle detection.
    mutating func decodePSTI(_ s: NMEASentence) -> GNSSChange {
        var mask = GNSSChange.online
        switch s[1].int {
        case 30:
            guard s.count == 16 else { return .online }
            if s[3].first == 0x56 || s[13].first == 0x4E {
                newdata.status = statusUnknown
                newdata.mode = 1
                return mask.union([.mode, .status])
            }
            guard s[3].first == 0x41 else { return mask }
            if !s[2].isEmpty, !s[12].isEmpty, mergeTimeOfDay(s[2]), mergeDate(s[12]) {
                mask.insert(.time)
                registerFractionalTime(s[2])
            }
            if latitudeLongitude(s, 4) {
                newdata.mode = 2
                mask.insert(.latLon)
                if !s[8].isEmpty {
                    newdata.altMSL = s[8].doubleOrNaN
                    mask.insert(.altitude)
                    newdata.mode = 3
                }
                mask.insert(.mode)
            }
            newdata.velN = s[10].double ?? 0
            newdata.velE = s[9].double ?? 0
            newdata.velD = -(s[11].double ?? 0)
            newdata.status = Self.status(faaMode: s[13].first)
            return mask.union([.velocityNED, .status])
        case 32 where s[4].first != 0x41:
            return mask
        case 32, 35, 36:
            if !s[2].isEmpty, !s[3].isEmpty, mergeTimeOfDay(s[2]), mergeDate(s[3]) {
                mask.insert(.time)
                registerFractionalTime(s[2])
            }
            return mask
        default:
            return mask
        }
    }
}
