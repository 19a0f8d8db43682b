import Foundation
import LodestoneCore
import Testing

@testable import LodestoneDaemon

/// Requests in, replies out: the handshake gpsd 3.22 was recorded doing (`/work/shared/gpsd/README.md` §2) and the
/// edge cases checked against Debian 12's gpsd (`docs/gpsd.md`).
@Suite struct GPSDProtocolTests {
    static let version = #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"# + "\r\n"
    static let devices =
        #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"gnss","driver":"Lodestone","activated":"2026-06-01T11:59:00.000Z","flags":1}]}"#
        + "\r\n"
    static let watchOn =
        #"{"class":"WATCH","enable":true,"json":true,"nmea":false,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false}"#
        + "\r\n"
    static let watchOff =
        #"{"class":"WATCH","enable":false,"json":false,"nmea":false,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false}"#
        + "\r\n"

    func session() -> GPSDClientSession { GPSDClientSession(endpoint: GPSDTestData.endpoint) }

    @Test func bannerIsDebian12sVersionLine() {
        #expect(session().banner() == Self.version)
    }

    /// The gpspipe handshake of README §2: VERSION on connect, `?WATCH` answered by DEVICES then WATCH.
    @Test func libgpsWatchIsAnsweredWithDevicesThenWatch() {
        var s = session()
        let replies = s.receive(line: "?WATCH={\"enable\":true,\"json\":true};\n", nowUnixS: 0)
        #expect(replies == [Self.devices, Self.watchOn])
        #expect(s.streamsJSON && !s.wantsReceiverData)
    }

    /// The hand-typed session of README §2, request by request.
    @Test func handTypedSessionOfTheReadme() {
        var s = session()
        #expect(s.receive(line: "?VERSION;\n", nowUnixS: 0) == [Self.version])
        #expect(s.receive(line: "?DEVICES;\n", nowUnixS: 0) == [Self.devices])
        #expect(s.receive(line: "?WATCH={\"enable\":true,\"json\":true}\n", nowUnixS: 0) == [Self.devices, Self.watchOn])
        let tpv = GPSDReport.tpv(location: GPSDTestData.location(0), fix: GPSDTestData.fix(0), device: "gnss")
        let sky = GPSDReport.sky(fix: GPSDTestData.fix(0), device: "gnss", utcS: GPSDTestData.startUnixS)
        s.cache(tpv: tpv, sky: sky)
        let poll = s.receive(line: "?POLL;\n", nowUnixS: GPSDTestData.startUnixS + 1.25)
        let head = #"{"class":"POLL","time":"2026-06-01T12:00:01.250Z","active":1,"tpv":["#
        let expected: String = head + String(tpv.dropLast()) + #"],"sky":["# + String(sky.dropLast()) + "]}\r\n"
        #expect(poll == [expected])
        #expect(
            s.receive(line: "?FOO;\n", nowUnixS: 0) == [#"{"class":"ERROR","message":"Unrecognized request '?FOO;\n'"}"# + "\r\n"]
        )
        #expect(
            s.receive(line: "?WATCH={\"enable\":false}\n", nowUnixS: 0) == [
                Self.devices, Self.watchOn.replacingFirst("\"enable\":true", with: "\"enable\":false")
            ])
        #expect(!s.streamsJSON)
    }

    @Test(arguments: [
        ("?VERSION;?DEVICES;\n", ["VERSION", "DEVICES"]),
        ("?VERSION; ?DEVICES;\r\n", ["VERSION", "DEVICES"]),
        ("?VERSION;\t?WATCH;  ?POLL;\n", ["VERSION", "DEVICES", "WATCH", "POLL"]),
        ("?VERSION\n", ["VERSION"]),
        ("?POLL", ["POLL"]),
        ("?VERSION ?DEVICES\r\n", ["VERSION", "DEVICES"]),
        ("   ?VERSION;\n", ["VERSION"]),
        ("?WATCH={\"enable\":false} ?VERSION;\n", ["DEVICES", "WATCH", "VERSION"]),
        ("?WATCH={\"enable\":false};?VERSION;\n", ["DEVICES", "WATCH", "VERSION"]),
        ("?DEVICE;\n", ["DEVICE"]),
        ("?DEVICE={\"path\":\"gnss\"};\n", ["DEVICE"]),
        ("?VERSION;junk\n", ["VERSION", "ERROR"]),
        ("?WATCH={\"enable\":false}x\n", ["DEVICES", "WATCH", "ERROR"]),
        ("\n", []),
        ("\r\n", [])
    ])
    func severalCommandsOnOneLine(_ line: String, _ classes: [String]) {
        var s = session()
        #expect(s.receive(line: line, nowUnixS: 0).map(Self.className) == classes)
    }

    @Test(arguments: [
        ("?FOO;\n", "Unrecognized request '?FOO;\\n'"),
        ("?FOO;\r\n", "Unrecognized request '?FOO;\\r\\n'"),
        ("FOO\n", "Unrecognized request 'FOO\\n'"),
        ("?foo bar;\n", "Unrecognized request '?foo bar;\\n'"),
        ("?version;\n", "Unrecognized request '?version;\\n'"),
        ("?POLL={}\n", "Unrecognized request '?POLL={}\\n'"),
        ("?VERSION;junk\n", "Unrecognized request 'junk\\n'"),
        ("?VERSION;\"x\"\n", "Unrecognized request '\\\"x\\\"\\n'")
    ])
    func unrecognizedRequestsQuoteTheRestOfTheLine(_ line: String, _ message: String) {
        var s = session()
        let last = s.receive(line: line, nowUnixS: 0).last
        #expect(last == #"{"class":"ERROR","message":""# + message + "\"}\r\n")
    }

    @Test(arguments: [
        ("?WATCH={\"enable\":tru}\n", "Invalid WATCH: expected true"),
        ("?WATCH={\"enable\":true\n", "Invalid WATCH: the object is not closed"),
        ("?WATCH=\n", "Invalid WATCH: the JSON ends early"),
        ("?WATCH=[1]\n", "Invalid WATCH: expected a JSON object"),
        ("?WATCH={\"json\":1}\n", "Invalid WATCH: \"json\" must be true or false"),
        ("?WATCH={\"raw\":\"2\"}\n", "Invalid WATCH: \"raw\" must be an integer 0…255"),
        ("?WATCH={\"raw\":1.5}\n", "Invalid WATCH: \"raw\" must be an integer 0…255"),
        ("?WATCH={\"device\":3}\n", "Invalid WATCH: \"device\" must be a string")
    ])
    func invalidWatchIsAnErrorThenTheUnchangedPolicy(_ line: String, _ message: String) {
        var s = session()
        let replies = s.receive(line: line, nowUnixS: 0)
        #expect(replies == [#"{"class":"ERROR","message":""# + Self.escaped(message) + "\"}\r\n", Self.devices, Self.watchOff])
        #expect(s.watch == GPSDWatch())
    }

    @Test func watchOfAnotherDeviceIsGpsdsErrorAndChangesNothing() {
        var s = session()
        #expect(
            s.receive(line: "?WATCH={\"device\":\"/dev/ttyUSB9\"}\n", nowUnixS: 0) == [
                #"{"class":"ERROR","message":"No such device as /dev/ttyUSB9"}"# + "\r\n"
            ])
        #expect(s.watch == GPSDWatch())
        let replies = s.receive(line: "?WATCH={\"enable\":true,\"json\":true,\"device\":\"gnss\"}\n", nowUnixS: 0)
        #expect(replies.last == Self.watchOn.replacingFirst("}\r\n", with: ",\"device\":\"gnss\"}\r\n"))
        #expect(s.wantsReports(fromDevice: "gnss") && !s.wantsReports(fromDevice: "other"))
    }

    /// gpsd 3.22's `json_watch_read`, as observed: `enable` true when absent, json/nmea/raw kept, the rest reset.
    @Test func watchNormalisationFollowsGpsd() {
        var s = session()
        _ = s.receive(line: "?WATCH={\"enable\":true,\"json\":true,\"scaled\":true,\"foo\":1}\n", nowUnixS: 0)
        #expect(s.watch.enable && s.watch.json && s.watch.scaled)
        _ = s.receive(line: "?WATCH={\"enable\":false}\n", nowUnixS: 0)
        #expect(!s.watch.enable && s.watch.json && !s.watch.scaled)
        // gpsmon: no enable, raw 2 and pps.
        let r = s.receive(line: "?WATCH={\"raw\":2,\"pps\":true}\r\n", nowUnixS: 0)
        #expect(
            r.last
                == #"{"class":"WATCH","enable":true,"json":true,"nmea":false,"raw":2,"scaled":false,"timing":false,"split24":false,"pps":true}"#
                + "\r\n")
        #expect(s.wantsReceiverData)
        _ = s.receive(line: "?WATCH={}\n", nowUnixS: 0)
        #expect(s.watch.enable && s.watch.raw == 2 && !s.watch.pps)
        _ = s.receive(line: "?WATCH={\"enable\":false,\"json\":false,\"nmea\":true,\"raw\":0,\"remote\":\"x\"}\n", nowUnixS: 0)
        #expect(!s.watch.enable && s.watch.nmea && !s.wantsReceiverData)
        #expect(s.receive(line: "?WATCH;\n", nowUnixS: 0).count == 2)
    }

    @Test func pollBeforeWatchIsEmpty() {
        var s = session()
        s.cache(tpv: GPSDReport.tpv(location: GPSDTestData.location(0), fix: nil, device: "gnss"), sky: nil)
        #expect(
            s.receive(line: "?POLL;\n", nowUnixS: GPSDTestData.startUnixS) == [
                #"{"class":"POLL","time":"2026-06-01T12:00:00.000Z","active":0,"tpv":[],"sky":[]}"# + "\r\n"
            ])
    }

    @Test func deviceAnswersOurDeviceOrAnError() {
        var s = session()
        let device =
            #"{"class":"DEVICE","path":"gnss","driver":"Lodestone","activated":"2026-06-01T11:59:00.000Z","flags":1}"# + "\r\n"
        #expect(s.receive(line: "?DEVICE;\n", nowUnixS: 0) == [device])
        #expect(s.receive(line: "?DEVICE={\"path\":\"gnss\"}\n", nowUnixS: 0) == [device])
        #expect(
            s.receive(line: "?DEVICE={\"path\":\"/dev/ttyS0\"}\n", nowUnixS: 0) == [
                #"{"class":"ERROR","message":"Can't open /dev/ttyS0."}"# + "\r\n"
            ])
        #expect(s.receive(line: "?DEVICE={\"bps\":9600}\n", nowUnixS: 0).first?.contains("Can't change bps") == true)
        #expect(s.receive(line: "?DEVICE={\"bps\":\n", nowUnixS: 0).first?.contains("Invalid DEVICE") == true)
        var none = GPSDClientSession(endpoint: GPSDEndpoint(device: nil))
        #expect(none.receive(line: "?DEVICES;\n", nowUnixS: 0) == [#"{"class":"DEVICES","devices":[]}"# + "\r\n"])
        #expect(none.receive(line: "?DEVICE;\n", nowUnixS: 0) == [#"{"class":"ERROR","message":"No devices"}"# + "\r\n"])
    }

    /// A line over the limit is one ERROR; the reader never holds more than the limit and recovers at the next LF.
    @Test func overlongLinesAreBoundedAndAnsweredOnce() {
        var s = session()
        let limit = GPSDLineReader.maximumLineBytes
        var replies: [String] = []
        for _ in 0..<10 {
            replies += s.receive(bytes: Array(repeating: UInt8(ascii: "A"), count: limit / 2 + 7), nowUnixS: 0)
            #expect(s.isOverlong || replies.isEmpty)
        }
        #expect(replies.count == 1 && replies[0].contains("Request too long"))
        #expect(s.isOverlong)
        replies = s.receive(bytes: Array("tail\n?VERSION;\r\n".utf8), nowUnixS: 0)
        #expect(replies == [Self.version])
        #expect(!s.isOverlong)
        #expect(GPSDRequestParser.parse(String(repeating: "?", count: limit + 1)) == [.tooLong])
    }

    @Test func bytesSplitAnywhereGiveTheSameReplies() {
        let input = Array("?WATCH={\"enable\":true,\"json\":true};\n?VERSION;\r\n?POLL;\n".utf8)
        var whole = session()
        let expected = whole.receive(bytes: input, nowUnixS: 5)
        #expect(expected.count == 4)
        for cut in 1..<input.count {
            var s = session()
            let replies = s.receive(bytes: input[..<cut], nowUnixS: 5) + s.receive(bytes: input[cut...], nowUnixS: 5)
            #expect(replies == expected)
        }
    }

    static func className(_ line: String) -> String {
        guard let r = line.range(of: #"{"class":""#) else { return "" }
        return String(line[r.upperBound...].prefix { $0 != "\"" })
    }

    static func escaped(_ s: String) -> String {
        var t = ""
        JSONString.appendEscaped(s, to: &t)
        return t
    }
}

extension String {
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let r = range(of: target) else { return self }
        return replacingCharacters(in: r, with: replacement)
    }
}
