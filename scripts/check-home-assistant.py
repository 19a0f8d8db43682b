#!/usr/bin/env python3
"""Validates Home Assistant MQTT discovery messages with Home Assistant's own code (scripts/check-home-assistant).

Usage: check-home-assistant.py schema DISCOVERY_FILE
       check-home-assistant.py entities HA_LOG BOARD_NODE COMPONENT/OBJECT[?]…

`schema`: each line `topic payload` (mosquitto_sub -v) on `<prefix>/<component>/<node>/<object>/config` is read as
Home Assistant's discovery does (homeassistant.components.mqtt.discovery: JSON, abbreviations expanded, the platform
set), then validated against the component's DISCOVERY_SCHEMA (what discovery applies; it silently removes unknown
keys, so a key it removed is reported as an error too) and its PLATFORM_SCHEMA_MODERN (the same keys, no extras).

`entities`: reads Home Assistant's debug log (homeassistant.core at debug logs each state_changed event) and checks that
every `component.node_object` entity got a state, the device tracker a latitude and longitude, the sensors a value
(an entity written `component/object?` may stay `unknown`: the simulated board has no battery, so its BATTERY messages
carry no level_percent), and that rendering Lodestone's value templates logged no warning (a key the payload lacks).
"""
import json
import re
import sys


def schema(path):
    import voluptuous as vol
    from homeassistant.components.mqtt import abbreviations
    from homeassistant.components.mqtt import device_tracker as mqtt_device_tracker
    from homeassistant.components.mqtt import sensor as mqtt_sensor

    platforms = {"sensor": mqtt_sensor, "device_tracker": mqtt_device_tracker}
    failures = 0
    checked = 0
    for line in open(path):
        topic, _, payload = line.rstrip("\n").partition(" ")
        parts = topic.split("/")
        if len(parts) != 5 or parts[-1] != "config":
            print(f"FAIL {topic}: not <prefix>/<component>/<node>/<object>/config")
            failures += 1
            continue
        component = parts[1]
        module = platforms.get(component)
        if module is None:
            print(f"FAIL {topic}: component {component} is not one this check knows")
            failures += 1
            continue
        config = json.loads(payload)
        # What discovery does before the schema (mqtt/discovery.py): expand the abbreviated keys, the device's too.
        for key in list(config):
            if key in abbreviations.ABBREVIATIONS:
                config[abbreviations.ABBREVIATIONS[key]] = config.pop(key)
        if isinstance(config.get("device"), dict):
            device = config["device"]
            for key in list(device):
                if key in abbreviations.DEVICE_ABBREVIATIONS:
                    device[abbreviations.DEVICE_ABBREVIATIONS[key]] = device.pop(key)
        checked += 1
        problems = []
        try:
            validated = module.DISCOVERY_SCHEMA(dict(config))
            dropped = sorted(set(config) - set(validated))
            if dropped:
                problems.append(f"DISCOVERY_SCHEMA removed unknown keys {dropped}")
            if isinstance(config.get("device"), dict):
                dropped = sorted(set(config["device"]) - set(validated.get("device", {})))
                if dropped:
                    problems.append(f"DISCOVERY_SCHEMA removed unknown device keys {dropped}")
        except vol.Invalid as e:
            problems.append(f"DISCOVERY_SCHEMA: {e}")
        try:
            module.PLATFORM_SCHEMA_MODERN(dict(config))
        except vol.Invalid as e:
            problems.append(f"PLATFORM_SCHEMA_MODERN: {e}")
        if problems:
            failures += 1
            print(f"FAIL {topic}: " + "; ".join(problems))
        else:
            print(f"ok   {topic} ({component}, {len(config)} keys)")
    if checked == 0:
        print("FAIL no discovery message to check")
        return 1
    print(f"schema: {checked - failures} of {checked} discovery messages valid")
    return 1 if failures else 0


def entities(log_path, node, wanted):
    text = open(log_path, errors="replace").read()
    failures = 0
    warnings = [l for l in text.splitlines() if "Template variable warning" in l and "value_json" in l]
    if warnings:
        print(f"FAIL {len(warnings)} template warnings, e.g. {warnings[0][-200:]}")
        failures += 1
    for item in wanted:
        may_be_unknown = item.endswith("?")
        component, obj = item.rstrip("?").split("/")
        entity = f"{component}.{node}_{obj}"
        # homeassistant.core debug: "Bus:Handling <Event state_changed[L]: entity_id=…, old_state=…, new_state=<state …>>"
        states = re.findall(r"entity_id=" + re.escape(entity) + r", old_state=.*?, new_state=<state (.*?)>", text)
        values = [s.split("=", 1)[1].split(";")[0] if "=" in s else "" for s in states]
        real = [s for s, v in zip(states, values) if v not in ("unavailable", "unknown", "")]
        if not states:
            print(f"FAIL {entity}: Home Assistant never created it (no state_changed)")
            failures += 1
        elif not real and may_be_unknown:
            print(f"ok   {entity}: created, {len(states)} states, no value (allowed): {states[-1][:160]}")
        elif not real:
            print(f"FAIL {entity}: created, but never a value: {states[-1][:200]}")
            failures += 1
        elif component == "device_tracker" and not ("latitude=" in real[-1] and "longitude=" in real[-1]):
            print(f"FAIL {entity}: no latitude/longitude: {real[-1][:300]}")
            failures += 1
        else:
            print(f"ok   {entity}: {len(real)} states, last {real[-1][:160]}")
    return 1 if failures else 0


if __name__ == "__main__":
    if sys.argv[1] == "schema":
        sys.exit(schema(sys.argv[2]))
    sys.exit(entities(sys.argv[2], sys.argv[3], sys.argv[4:]))
