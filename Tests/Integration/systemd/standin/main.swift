// A stand-in for `lodestone serve` in Tests/Integration/systemd-vm.sh until the real daemon lands: the same contract
// with systemd, through LodestoneSockets' own SystemdNotifier and SystemdSocketActivation (compiled into this binary
// with swiftc, no package). It takes the sockets of lodestone.socket, says READY=1, steps a pretend engine every
// 100 ms, pings the watchdog at half of WatchdogSec= only while that engine makes progress, stops stepping after
// LODESTONE_TEST_STALL_ENGINE_AFTER_S seconds, answers gpsd's ?WATCH with VERSION/DEVICES/WATCH and a TPV a second,
// says STOPPING=1 and exits 0 on SIGTERM, RELOADING=1 then READY=1 on SIGHUP.
// One thread, no signal handlers: SIGTERM and SIGHUP are blocked and collected with sigtimedwait(2) between polls.
import Glibc

func log(_ priority: Int, _ text: String) {
    let line = (SystemdJournalStream.standardErrorIsJournal() ? "<\(priority)>" : "") + "lodestone-standin: " + text + "\n"
    SystemdJournalStream.write(Array(line.utf8))
}

func monotonicS() -> Double { Double(SystemdNotifier.monotonicNowUs()) / 1e6 }

func send(_ fd: Int32, _ text: String) -> Bool {
    let bytes = Array((text + "\n").utf8)
    return bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
}

guard CommandLine.arguments.dropFirst().first == "serve" else {
    log(3, "usage: lodestone serve [options]   (the systemd-vm stand-in serves only)")
    exit(2)
}
var blocked = sigset_t()
sigemptyset(&blocked)
sigaddset(&blocked, SIGTERM)
sigaddset(&blocked, SIGHUP)
sigaddset(&blocked, SIGINT)
sigprocmask(SIG_BLOCK, &blocked, nil)

let notifier = SystemdNotifier.fromEnvironment()
let listeners: [SystemdListeningSocket]
do {
    listeners = try SystemdSocketActivation.listeningSockets()
} catch {
    log(3, error.description)
    notifier?.failure(errno: EINVAL, status: error.description)
    exit(1)
}
guard !listeners.isEmpty else {
    log(3, "no sockets passed: the stand-in runs only under lodestone.socket")
    exit(1)
}
for listener in listeners {
    _ = fcntl(listener.fd, F_SETFL, fcntl(listener.fd, F_GETFL) | O_NONBLOCK)
    log(6, "listening on \(listener)")
}
let stallAfterS = getenv("LODESTONE_TEST_STALL_ENGINE_AFTER_S").flatMap { Double(String(cString: $0)) }
let pingIntervalS = notifier?.watchdogPingIntervalS
let leaked = SystemdEnvironment.current(SystemdSocketActivation.environmentNames).keys.sorted()
log(
    6,
    "notify socket \(notifier.map { $0.address.description } ?? "none"), watchdog \(notifier?.watchdogIntervalS ?? 0) s, "
        + "stall after \(stallAfterS.map { "\($0) s" } ?? "never"), LISTEN_* left: \(leaked)")
notifier?.ready(status: "Serving \(listeners.count) sockets (stand-in)")

struct Client {
    var fd: Int32
    var watching = false
    var input: [UInt8] = []
}
var clients: [Client] = []
let startS = monotonicS()
var lastStepS = startS
var lastPingS = startS
var lastTPVS = startS
var steps = 0
var stepsAtLastPing = 0
var stallLogged = false

mainLoop: while true {
    var fds = listeners.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
    fds += clients.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
    _ = poll(&fds, nfds_t(fds.count), 100)
    let nowS = monotonicS()

    var info = siginfo_t()
    var zero = timespec(tv_sec: 0, tv_nsec: 0)
    while case let signal = sigtimedwait(&blocked, &info, &zero), signal > 0 {
        if signal == SIGHUP {
            log(5, "SIGHUP: reloading")
            notifier?.reloading()
            notifier?.ready(status: "Reloaded (stand-in)")
        } else {
            log(5, "signal \(signal): stopping")
            notifier?.stopping(status: "Stopping")
            break mainLoop
        }
    }

    // The pretend engine: one step every 100 ms until the test asks it to hang.
    if let stallAfterS, nowS - startS >= stallAfterS {
        if !stallLogged { log(4, "engine stalled on purpose (LODESTONE_TEST_STALL_ENGINE_AFTER_S)"); stallLogged = true }
    } else if nowS - lastStepS >= 0.1 {
        steps += 1
        lastStepS = nowS
    }
    if let pingIntervalS, nowS - lastPingS >= pingIntervalS, steps > stepsAtLastPing {
        notifier?.watchdog()
        lastPingS = nowS
        stepsAtLastPing = steps
    }

    var closed: Set<Int32> = []
    for index in clients.indices where fds[listeners.count + index].revents != 0 {
        var buffer = [UInt8](repeating: 0, count: 512)
        let n = recv(clients[index].fd, &buffer, buffer.count, 0)
        guard n > 0 else {
            closed.insert(clients[index].fd)
            continue
        }
        clients[index].input += buffer[0..<n]
        if String(decoding: clients[index].input, as: UTF8.self).contains("?WATCH="), !clients[index].watching {
            clients[index].watching = true
            _ = send(clients[index].fd, #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"lodestone","activated":"1"}]}"#)
            _ = send(clients[index].fd, #"{"class":"WATCH","enable":true,"json":true}"#)
        }
    }
    for (index, listener) in listeners.enumerated() where fds[index].revents & Int16(POLLIN) != 0 {
        let fd = accept(listener.fd, nil, nil)
        guard fd >= 0 else { continue }
        log(6, "client on \(listener.name ?? "?")")
        _ = send(fd, #"{"class":"VERSION","release":"3.25","rev":"lodestone-standin","proto_major":3,"proto_minor":15}"#)
        clients.append(Client(fd: fd))
    }
    if nowS - lastTPVS >= 1 {
        lastTPVS = nowS
        for client in clients where client.watching {
            let tpv = #"{"class":"TPV","device":"lodestone","mode":3,"lat":52.52,"lon":13.405,"alt":34.0}"#
            if !send(client.fd, tpv) { closed.insert(client.fd) }
        }
    }
    for fd in closed { close(fd) }
    clients.removeAll { closed.contains($0.fd) }
}
for client in clients { close(client.fd) }
log(6, "stopped after \(steps) engine steps")
exit(0)
