import LodestoneStore
import LodestoneWire
import LodestoneLog

/// The board's side of the fleet link: every message goes to the on-disk outbound queue first, and leaves it only when
/// the broker acknowledged it (QoS 1, PUBACK). While connected, up to `maxInflight` queued messages are in flight,
/// oldest first; after a reconnection (or a restart of the daemon) sending starts again at the queue's head, so the
/// broker sees every message in order. A message whose PUBACK was lost with the connection is sent again (MQTT's QoS 1
/// is at least once): its `seq` lets a subscriber drop the repeat.
///
/// Reconnection backs off exponentially (`reconnectInitialS` doubling to `reconnectMaximumS`), each wait jittered at
/// random down to half so that a fleet whose broker restarts does not come back all in the same second.
public actor FleetPublisher {
    /// What the link did so far (the daemon's log, the tests).
    public struct Counters: Sendable, Hashable {
        /// A connection is up (CONNACK accepted).
        public var connected = false
        /// Connections accepted, and attempts that failed or were refused.
        public var connections = 0
        public var failedAttempts = 0
        /// Messages appended to the queue, and acknowledged by the broker (removed from it).
        public var enqueued = 0
        public var acknowledged = 0
        /// Messages in the queue now, and dropped from it (oldest first, full) since its file was made.
        public var queued = 0
        public var dropped = 0
    }

    public let configuration: FleetConfiguration
    let queue: OutboundQueue
    let logger: Logger
    private var connection: MosquittoConnection?
    private var isConnected = false
    /// The messages in flight on this connection: message id → sequence number.
    private var inflight: [Int32: Int64] = [:]
    /// The last sequence number sent on this connection (0: none yet).
    private var lastSentSeq: Int64 = 0
    private var counters = Counters()
    /// Dropped count last published on `…/queue` (0 at start).
    private var reportedDropped: Int
    /// Retained messages published at each connection, outside the queue (status, discovery): topic → payload.
    private var retainedOnConnect: [(topic: String, payload: String)] = []
    /// Called with each message on the command topic.
    private var commandHandler: (@Sendable (String) async -> Void)?
    /// `requestStop()` was called: send nothing new, wait for the acknowledgements in flight, then disconnect.
    private var stopping = false

    /// Opens the outbound queue `queuePath` (creating it).
    /// - Throws: `FleetError` naming the file.
    public init(configuration: FleetConfiguration, queuePath: String, logger: Logger) throws(FleetError) {
        self.configuration = configuration; self.logger = logger
        do {
            queue = try OutboundQueue(path: queuePath, capacity: configuration.queueCapacity)
            counters.queued = try queue.count()
            counters.dropped = try queue.dropped()
        } catch { throw FleetError("the fleet's outbound queue: \(error)") }
        // Reported (retained) at the first connection after each start: drops before a restart are not forgotten.
        reportedDropped = 0
    }

    /// What the link did so far.
    public var status: Counters { counters }

    /// Sets what is published, retained, at each connection (besides `…/status` online).
    public func setRetainedOnConnect(_ messages: [(topic: String, payload: String)]) { retainedOnConnect = messages }

    /// The link's state stored in the queue's file under `name` (`nil`: none).
    /// - Throws: `FleetError` naming the file.
    public func state(_ name: String) throws(FleetError) -> String? {
        do { return try queue.state(name) } catch { throw FleetError("\(queue.path): \(error)") }
    }

    /// Stores (`nil`: deletes) the link's state `name` in the queue's file, fsync'd before it returns.
    /// - Throws: `FleetError` naming the file.
    public func setState(_ name: String, _ value: String?) throws(FleetError) {
        do { try queue.setState(name, value) } catch { throw FleetError("\(queue.path): \(error)") }
    }

    /// Sets the handler of the command topic's messages.
    public func setCommandHandler(_ handler: @escaping @Sendable (String) async -> Void) { commandHandler = handler }

    /// Queues `message` for `topic` (`lodestone/<board>/<suffix>`), its payload the message's JSON with `seq` added.
    /// Returns the message's sequence number, or `nil` when the queue could not be written (logged).
    @discardableResult
    public func enqueue<M: Encodable & Sendable>(_ suffix: String, _ message: M, retain: Bool = false) -> Int64? {
        let topic = configuration.topic(suffix)
        do {
            let r = try queue.append(topic: topic, retain: retain) { seq in Wire.line(Sequenced(seq: seq, message: message)) }
            counters.enqueued += 1
            counters.queued += 1 - r.dropped
            if r.dropped > 0 {
                counters.dropped += r.dropped
                // Once per hundred, so that a long outage does not fill the journal.
                if counters.dropped % 100 == r.dropped % 100 || r.dropped >= 100 {
                    logger.warning(
                        "fleet: the outbound queue is full (\(configuration.queueCapacity) messages): \(counters.dropped) oldest dropped so far"
                    )
                }
            }
            pump()
            return r.seq
        } catch {
            logger.error("fleet: cannot queue a message for \(topic): \(error)")
            return nil
        }
    }

    /// Asks `run()` to end: it waits (at most 2 s) for the broker to acknowledge what is in flight — so that a clean
    /// stop leaves on disk only what was never sent — then publishes `offline` and disconnects. A `run()` waiting to
    /// reconnect ends at its task's cancellation.
    public func requestStop() {
        stopping = true
        connection?.inject(.stop)
    }

    /// Connects and reconnects until the task is cancelled or `requestStop()`; then publishes `offline` and disconnects.
    public func run() async {
        var failures = 0
        let statusTopic = configuration.topic("status")
        while !Task.isCancelled && !stopping {
            let c: MosquittoConnection
            do { c = try MosquittoConnection(configuration: configuration, will: (statusTopic, "offline")) } catch {
                logger.error("fleet: \(error)")
                failures += 1
                counters.failedAttempts += 1
                await backOff(failures)
                continue
            }
            connection = c
            lastSentSeq = 0
            inflight.removeAll()
            let wasConnected = await serve(c)
            let cancelled = Task.isCancelled || stopping
            if cancelled && isConnected {
                // A clean stop: the will is not published on DISCONNECT, so say offline ourselves.
                _ = try? c.publish(topic: statusTopic, payload: "offline", retain: true)
            }
            c.close(graceful: cancelled && isConnected)
            connection = nil
            isConnected = false
            counters.connected = false
            inflight.removeAll()
            if cancelled { break }
            if wasConnected { failures = 0 }
            failures += 1
            counters.failedAttempts += wasConnected ? 0 : 1
            await backOff(failures)
        }
    }

    /// Handles one connection's events until it ends; true when it was accepted.
    private func serve(_ c: MosquittoConnection) async -> Bool {
        // A connection attempt that neither succeeds nor fails (a silent firewall) is given up after 15 s.
        let timeout = Task { [weak c] in
            try? await Task.sleep(for: .seconds(15))
            if !Task.isCancelled { c?.inject(.disconnected(code: -1)) }
        }
        defer { timeout.cancel() }
        var accepted = false
        for await event in c.events {
            switch event {
            case .connected(let code, let reason):
                guard code == 0 else {
                    logger.error("fleet: \(configuration.broker) refused the connection: \(reason)")
                    return false
                }
                timeout.cancel()
                accepted = true
                isConnected = true
                counters.connected = true
                counters.connections += 1
                logger.notice(
                    "fleet: connected to \(configuration.broker) as \(configuration.boardID); \(counters.queued) messages queued")
                do {
                    _ = try c.publish(topic: configuration.topic("status"), payload: "online", retain: true)
                    for m in retainedOnConnect { _ = try c.publish(topic: m.topic, payload: m.payload, retain: true) }
                    try c.subscribe(configuration.topic("command"))
                } catch {
                    logger.warning("fleet: \(error)")
                }
                // The drops so far, retained, before the backlog (not through the full queue, where it would drop one more).
                if counters.dropped > reportedDropped {
                    let report = Wire.line(QueueReport(dropped: counters.dropped, capacity: configuration.queueCapacity))
                    if (try? c.publish(topic: configuration.topic("queue"), payload: report, retain: true)) != nil {
                        // Reported (retained) at the first connection after each start: drops before a restart are not forgotten.
                        reportedDropped = 0
                    }
                }
                pump()
            case .disconnected(let code):
                if stopping {
                    logger.info("fleet: \(inflight.count) messages still unacknowledged at the stop; they stay queued")
                } else if accepted {
                    logger.warning(
                        "fleet: lost \(configuration.broker) (\(code == -1 ? "timed out" : MosquittoConnection.describe(code))); queueing"
                    )
                } else {
                    logger.info(
                        "fleet: cannot connect to \(configuration.broker): \(code == -1 ? "timed out" : MosquittoConnection.describe(code))"
                    )
                }
                return accepted
            case .acknowledged(let mid):
                guard let seq = inflight.removeValue(forKey: mid) else { continue }
                do {
                    try queue.remove(seq)
                    counters.acknowledged += 1
                    counters.queued -= 1
                } catch {
                    logger.error("fleet: cannot remove acknowledged message \(seq) from the queue: \(error)")
                }
                pump()
            case .message(let topic, let payload):
                guard !stopping, topic == configuration.topic("command"), let handler = commandHandler else { continue }
                await handler(String(decoding: payload, as: UTF8.self))
            case .stop:
                if inflight.isEmpty || !accepted { return accepted }
                Task { [weak c] in
                    try? await Task.sleep(for: .seconds(2))
                    c?.inject(.disconnected(code: 0))
                }
            }
            if stopping && accepted && inflight.isEmpty { return true }
        }
        return accepted
    }

    /// Sends queued messages, oldest first, while fewer than `maxInflight` are unacknowledged.
    private func pump() {
        guard isConnected, !stopping, let c = connection else { return }
        while inflight.count < configuration.maxInflight {
            let batch: [OutboundQueue.Entry]
            do { batch = try queue.pending(after: lastSentSeq, limit: configuration.maxInflight - inflight.count) } catch {
                logger.error("fleet: cannot read the outbound queue: \(error)")
                return
            }
            if batch.isEmpty { return }
            for e in batch {
                do {
                    let mid = try c.publish(topic: e.topic, payload: e.payload, retain: e.retain)
                    inflight[mid] = e.seq
                    lastSentSeq = e.seq
                } catch {
                    // The connection is going: its disconnection event follows, and the next one starts from the head.
                    logger.info("fleet: \(error)")
                    return
                }
            }
        }
    }

    /// Waits before the `failures`-th retry: `reconnectInitialS · 2^(failures−1)`, at most `reconnectMaximumS`,
    /// times a random factor in [0.5, 1].
    private func backOff(_ failures: Int) async {
        let s = Self.backOffS(
            failures: failures, initialS: configuration.reconnectInitialS, maximumS: configuration.reconnectMaximumS,
            jitter: Double.random(in: 0...1))
        try? await Task.sleep(for: .milliseconds(Int64(s * 1000)))
    }

    /// The wait before the `failures`-th retry (≥ 1), s, for `jitter` in [0, 1] (0: half the full wait, 1: all of it).
    public static func backOffS(failures: Int, initialS: Double, maximumS: Double, jitter: Double) -> Double {
        let exponent = Double(min(max(failures - 1, 0), 30))
        let full = min(maximumS, initialS * (exponent == 0 ? 1 : pow2(exponent)))
        return full * (0.5 + 0.5 * min(max(jitter, 0), 1))
    }

    private static func pow2(_ e: Double) -> Double {
        var r = 1.0
        for _ in 0..<Int(e) { r *= 2 }
        return r
    }
}

/// A wire message with the outbound queue's sequence number added as `seq` (the same JSON object).
struct Sequenced<M: Encodable>: Encodable {
    var seq: Int64
    var message: M
    enum Key: String, CodingKey { case seq }
    func encode(to encoder: any Encoder) throws {
        try message.encode(to: encoder)
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(seq, forKey: .seq)
    }
}

/// `lodestone/<board>/queue`, retained: at a connection, when the queue has dropped messages (its oldest, being full)
/// since the last report.
struct QueueReport: Encodable {
    var `class` = "QUEUE"
    /// Messages dropped (oldest first, the queue being full) since the queue's file was made.
    var dropped: Int
    /// The queue's bound, messages.
    var capacity: Int
}
