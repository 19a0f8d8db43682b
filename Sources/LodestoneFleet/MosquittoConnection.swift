import CMosquitto

/// libmosquitto's global state, initialised once per process (a global `let` is initialised once, thread-safely).
private let mosquittoLibrary: Int32 = mosquitto_lib_init()

/// What the library's network thread reports, in the order it happened.
enum MQTTEvent: Sendable {
    /// CONNACK: `code` 0 is accepted; otherwise the broker refused (bad credentials, …), `reason` says why.
    case connected(code: Int32, reason: String)
    /// The connection ended (`code` 0: we asked for it).
    case disconnected(code: Int32)
    /// The broker acknowledged (PUBACK) the message published with id `mid`.
    case acknowledged(mid: Int32)
    /// A message arrived on a subscribed topic.
    case message(topic: String, payload: [UInt8])
    /// The publisher is stopping (not from the library): finish what is in flight, then end.
    case stop
}

/// One MQTT connection attempt through libmosquitto: made, connected, used, and destroyed — never reconnected. The
/// publisher makes a new one for each attempt, so the library's own in-memory queue never resends a message behind the
/// outbound queue's back (the queue is the only record of what is unacknowledged).
///
/// `@unchecked Sendable`: the one mutable thing is the C handle. libmosquitto documents `mosquitto_publish`,
/// `mosquitto_subscribe` and `mosquitto_disconnect` as callable from any thread while `mosquitto_loop_start`'s thread
/// runs (it takes its own mutexes); `close()` stops that thread before `mosquitto_destroy`, and is called once, by the
/// publisher actor, after which nothing else is called.
final class MosquittoConnection: @unchecked Sendable {
    private let handle: OpaquePointer
    /// The event sink the C callbacks reach through the handle's user data; released in `close()`.
    private let sink: Unmanaged<EventSink>
    /// The same sink, held strongly for `inject` (which may race with `close()`: yielding to a finished stream is a no-op).
    private let sinkObject: EventSink
    let events: AsyncStream<MQTTEvent>

    final class EventSink: Sendable {
        let continuation: AsyncStream<MQTTEvent>.Continuation
        init(_ c: AsyncStream<MQTTEvent>.Continuation) { continuation = c }
    }

    /// Makes the client and starts connecting (asynchronously: `.connected` or `.disconnected` follows).
    /// - Parameter will: published by the broker if the connection ends without DISCONNECT (retained, QoS 1).
    /// - Throws: `FleetError` saying which setting libmosquitto refused, or that libmosquitto cannot be loaded.
    init(configuration c: FleetConfiguration, will: (topic: String, payload: String)) throws(FleetError) {
        // libmosquitto is loaded on first use: without it, mosquitto_strerror says which package to install.
        guard mosquittoLibrary == MOSQ_ERR_SUCCESS.rawValue else {
            throw FleetError(String(cString: mosquitto_strerror(mosquittoLibrary)))
        }
        let (stream, continuation) = AsyncStream<MQTTEvent>.makeStream()
        events = stream
        let object = EventSink(continuation)
        sinkObject = object
        let s = Unmanaged.passRetained(object)
        guard let m = mosquitto_new(c.clientID ?? "lodestone-\(c.boardID)", true, s.toOpaque()) else {
            s.release()
            throw FleetError("libmosquitto could not make a client (out of memory?)")
        }
        handle = m; sink = s
        func check(_ rc: Int32, _ what: String) throws(FleetError) {
            guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                mosquitto_destroy(m)
                s.release()
                throw FleetError("MQTT \(what): \(String(cString: mosquitto_strerror(rc)))")
            }
        }
        try check(mosquitto_int_option(m, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311), "protocol 3.1.1")
        try check(mosquitto_max_inflight_messages_set(m, UInt32(c.maxInflight)), "max inflight")
        // The library's own reconnect would resend its in-memory messages: push it beyond any connection's life.
        try check(mosquitto_reconnect_delay_set(m, 86_400, 86_400, false), "reconnect delay")
        if let user = c.broker.username ?? c.username {
            try check(mosquitto_username_pw_set(m, user, c.broker.password ?? c.password), "username and password")
        }
        if c.broker.tls {
            let ca = c.caFile
            try check(
                mosquitto_tls_set(m, ca, ca == nil ? "/etc/ssl/certs" : nil, c.certFile, c.keyFile, nil),
                "TLS files (ca_file \(ca ?? "/etc/ssl/certs"), cert_file \(c.certFile ?? "none"), key_file \(c.keyFile ?? "none"))"
            )
        }
        try check(
            mosquitto_will_set(m, will.topic, Int32(will.payload.utf8.count), will.payload, 1, true), "last will")
        mosquitto_connect_callback_set(m) { _, user, code in
            guard let user else { return }
            let s = Unmanaged<EventSink>.fromOpaque(user).takeUnretainedValue()
            s.continuation.yield(.connected(code: code, reason: String(cString: mosquitto_connack_string(code))))
        }
        mosquitto_disconnect_callback_set(m) { _, user, code in
            guard let user else { return }
            Unmanaged<EventSink>.fromOpaque(user).takeUnretainedValue().continuation.yield(.disconnected(code: code))
        }
        mosquitto_publish_callback_set(m) { _, user, mid in
            guard let user else { return }
            Unmanaged<EventSink>.fromOpaque(user).takeUnretainedValue().continuation.yield(.acknowledged(mid: mid))
        }
        mosquitto_message_callback_set(m) { _, user, message in
            guard let user, let message, let topic = message.pointee.topic else { return }
            let n = Int(message.pointee.payloadlen)
            let bytes: [UInt8] =
                n > 0 && message.pointee.payload != nil
                ? Array(UnsafeRawBufferPointer(start: message.pointee.payload, count: n)) : []
            Unmanaged<EventSink>.fromOpaque(user).takeUnretainedValue().continuation.yield(
                .message(topic: String(cString: topic), payload: bytes))
        }
        try check(mosquitto_loop_start(m), "network thread")
        let rc = mosquitto_connect_async(m, c.broker.host, Int32(c.broker.port), Int32(c.keepAliveS))
        if rc != MOSQ_ERR_SUCCESS.rawValue {
            // Refused at once (nothing listens, no route): reported as a disconnection, as a later failure would be.
            continuation.yield(.disconnected(code: rc))
        }
    }

    /// Publishes `payload` at QoS 1; returns the message id the acknowledgement will carry.
    /// - Throws: `FleetError` when libmosquitto refuses (no connection, payload too large).
    func publish(topic: String, payload: String, retain: Bool) throws(FleetError) -> Int32 {
        var mid: Int32 = 0
        let bytes = Array(payload.utf8)
        let rc = bytes.withUnsafeBytes { b in
            mosquitto_publish(handle, &mid, topic, Int32(b.count), b.baseAddress, 1, retain)
        }
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            throw FleetError("publish to \(topic): \(String(cString: mosquitto_strerror(rc)))")
        }
        return mid
    }

    /// Subscribes to `topic` at QoS 1.
    func subscribe(_ topic: String) throws(FleetError) {
        let rc = mosquitto_subscribe(handle, nil, topic, 1)
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            throw FleetError("subscribe to \(topic): \(String(cString: mosquitto_strerror(rc)))")
        }
    }

    /// Ends the connection: DISCONNECT when `graceful` (the broker then does not publish the last will), stops the
    /// network thread, frees the client and ends `events`. Called once.
    func close(graceful: Bool) {
        if graceful {
            mosquitto_disconnect(handle)
            // Let the thread send DISCONNECT before it stops.
            mosquitto_loop_stop(handle, false)
        } else {
            mosquitto_loop_stop(handle, true)
        }
        mosquitto_destroy(handle)
        sink.release()
        sinkObject.continuation.finish()
    }

    /// Reports `event` as if the network thread had (the publisher's connect timeout).
    func inject(_ event: MQTTEvent) { sinkObject.continuation.yield(event) }

    /// Why `code` ended a connection, in words.
    static func describe(_ code: Int32) -> String { String(cString: mosquitto_strerror(code)) }
}
