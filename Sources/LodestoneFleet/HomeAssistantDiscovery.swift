import LodestoneWire

/// Home Assistant's MQTT discovery (https://www.home-assistant.io/integrations/mqtt/#mqtt-discovery): retained config
/// messages on `<discovery_prefix>/<component>/<node_id>/<object_id>/config` that make the board appear as one device
/// with a `device_tracker` (device_tracker.mqtt: GPS coordinates through `json_attributes_topic`, whose JSON must hold
/// `latitude`, `longitude` and optionally `gps_accuracy`; `state_topic` is optional then) and sensors (sensor.mqtt:
/// `state_topic` + `value_template`) for heading, activity, steps, altitude and battery — each only when its class is
/// published. Every entity shares the board's availability: `lodestone/<board>/status`, `online`/`offline`.
public enum HomeAssistantDiscovery {
    /// One discovery config (the keys Home Assistant documents; `nil` ones are left out).
    struct Config: Encodable {
        var name: String?
        var uniqueID: String
        var objectID: String
        var stateTopic: String?
        var valueTemplate: String?
        var jsonAttributesTopic: String?
        var jsonAttributesTemplate: String?
        var sourceType: String?
        var unitOfMeasurement: String?
        var deviceClass: String?
        var stateClass: String?
        var icon: String?
        var availabilityTopic: String
        var payloadAvailable = "online"
        var payloadNotAvailable = "offline"
        var qos = 1
        var device: Device
        enum CodingKeys: String, CodingKey {
            case name, uniqueID = "unique_id", objectID = "object_id", stateTopic = "state_topic"
            case valueTemplate = "value_template", jsonAttributesTopic = "json_attributes_topic"
            case jsonAttributesTemplate = "json_attributes_template", sourceType = "source_type"
            case unitOfMeasurement = "unit_of_measurement", deviceClass = "device_class", stateClass = "state_class", icon
            case availabilityTopic = "availability_topic", payloadAvailable = "payload_available"
            case payloadNotAvailable = "payload_not_available", qos, device
        }
    }
    struct Device: Encodable {
        var identifiers: [String]
        var name: String
        var manufacturer = "Lodestone"
        var model: String
        var swVersion: String?
        enum CodingKeys: String, CodingKey { case identifiers, name, manufacturer, model, swVersion = "sw_version" }
    }

    /// The retained discovery messages for the board: (topic, payload) pairs.
    /// - Parameters:
    ///   - boardName: the board file's name (the device's model).
    ///   - release: Lodestone's release (the device's software version).
    public static func messages(_ c: FleetConfiguration, boardName: String, release: String?) -> [(
        topic: String, payload: String
    )] {
        let id = c.boardID
        let node = "lodestone_" + String(id.map { $0 == "-" ? "_" : $0 })
        let device = Device(identifiers: [node], name: "Lodestone \(id)", model: boardName, swVersion: release)
        let status = c.topic("status")
        func config(_ object: String, _ fill: (inout Config) -> Void) -> Config {
            var k = Config(
                uniqueID: "\(node)_\(object)", objectID: "\(node)_\(object)", availabilityTopic: status, device: device)
            fill(&k)
            return k
        }
        var out: [(String, Config)] = []
        let classes = c.publish.classes
        if classes.contains(.location) {
            out.append(
                (
                    "device_tracker",
                    config("location") {
                        $0.name = "Location"
                        $0.jsonAttributesTopic = c.topic("location")
                        // Lodestone's LOCATION keys (lat_deg, lon_deg, h_acc_m) as the attributes device_tracker reads.
                        $0.jsonAttributesTemplate =
                            #"{{ {"latitude": value_json.lat_deg, "longitude": value_json.lon_deg, "gps_accuracy": value_json.h_acc_m} | tojson }}"#
                        $0.sourceType = "gps"
                    }
                ))
        }
        if classes.contains(.heading) {
            out.append(
                (
                    "sensor",
                    config("heading") {
                        $0.name = "Heading"
                        $0.stateTopic = c.topic("heading")
                        $0.valueTemplate =
                            "{{ value_json.true_deg if value_json.true_deg is defined else value_json.magnetic_deg }}"
                        $0.unitOfMeasurement = "°"
                        $0.stateClass = "measurement"
                        $0.icon = "mdi:compass"
                    }
                ))
        }
        if classes.contains(.activity) {
            out.append(
                (
                    "sensor",
                    config("activity") {
                        $0.name = "Activity"
                        $0.stateTopic = c.topic("activity")
                        $0.valueTemplate = "{{ value_json.activity }}"
                        $0.icon = "mdi:run"
                    }
                ))
        }
        if classes.contains(.pedometer) {
            out.append(
                (
                    "sensor",
                    config("steps") {
                        $0.name = "Steps"
                        $0.stateTopic = c.topic("pedometer")
                        $0.valueTemplate = "{{ value_json.steps }}"
                        $0.unitOfMeasurement = "steps"
                        $0.stateClass = "total_increasing"
                        $0.icon = "mdi:walk"
                    }
                ))
        }
        if classes.contains(.altitude) {
            out.append(
                (
                    "sensor",
                    config("altitude") {
                        $0.name = "Altitude"
                        $0.stateTopic = c.topic("altitude")
                        $0.valueTemplate =
                            "{{ value_json.altitude_m if value_json.altitude_m is defined else value_json.relative_altitude_m }}"
                        $0.unitOfMeasurement = "m"
                        $0.deviceClass = "distance"
                        $0.stateClass = "measurement"
                    }
                ))
        }
        if classes.contains(.battery) {
            out.append(
                (
                    "sensor",
                    config("battery") {
                        $0.name = "Battery"
                        $0.stateTopic = c.topic("battery")
                        // A board without a battery (or not knowing its charge) omits level_percent: "None" is Home
                        // Assistant's unknown, where a missing key would log a template warning at each message
                        // (found by scripts/check-home-assistant with Home Assistant 2024.3.3).
                        $0.valueTemplate =
                            "{{ value_json.level_percent if value_json.level_percent is defined else None }}"
                        $0.unitOfMeasurement = "%"
                        $0.deviceClass = "battery"
                        $0.stateClass = "measurement"
                    }
                ))
        }
        return out.map { component, k in ("\(c.discoveryPrefix)/\(component)/\(node)/\(k.objectID)/config", Wire.line(k)) }
    }
}
