"""What Home Assistant should show for a device, read from its profile in `devices/*.yaml`
and the README's "Home Assistant" section — not from the gateway's own fixtures, so the
suite checks the documented contract rather than the code against itself."""

import glob
import os
import re

import yaml


class _CoreSchemaLoader(yaml.SafeLoader):
    """YAML 1.2's core schema, as the gateway's parser (Yams) reads profiles: only
    true/false are booleans, so a timer label `off` stays the string "off"."""


_CoreSchemaLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_CoreSchemaLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


class Profile:
    def __init__(self, document, path):
        self.path = path
        self.id = document["id"]
        self.name = document.get("name", self.id)
        self.manufacturer = document.get("manufacturer") or "Tuya"
        self.model = document.get("model")
        self.category = document.get("category")
        self.product_ids = [str(p) for p in document.get("product_ids") or []]
        self.transports = document.get("transports") or ["mqtt"]
        self.data_points = {dp["code"]: dp for dp in document.get("data_points") or []}
        self.capabilities = document.get("capabilities") or {}
        self.scenes = list((document.get("scenes") or {}).keys())
        self.maintenance = document.get("maintenance") or []

    @property
    def is_light(self):
        return self.category == "dj"

    def data_point(self, capability):
        """The data point a capability is bound to, when the profile declares it."""
        binding = self.capabilities.get(capability)
        if isinstance(binding, dict):
            binding = binding.get("dp")
        return self.data_points.get(binding) if binding is not None else None

    def writable_values(self, capability):
        dp = self.data_point(capability)
        if dp is None or dp.get("access") == "ro":
            return None
        return [str(v) for v in dp.get("values") or []] or None

    def timed_maintenance_rule(self):
        """The first maintenance rule with a time trigger (so it has a next due date), or
        the first rule, or None."""
        rules = self.maintenance
        timed = [r for r in rules if any("days" in t for t in r.get("triggers") or [])]
        return (timed or rules or [None])[0]

    def labels(self, capability):
        """(value, label) pairs of an enum, labels when the profile gives one per value."""
        dp = self.data_point(capability)
        values = [str(v) for v in dp.get("values") or []]
        labels = [str(label) for label in dp.get("labels") or []]
        return list(zip(values, labels)) if len(labels) == len(values) else [(v, v) for v in values]


class ExpectedEntity:
    """One entity Home Assistant should have: its domain, unique id and the attributes
    (exact values) its state should carry."""

    def __init__(self, key, domain, unique_id, attributes=None, enabled=True, follows_device=True):
        self.key = key
        self.domain = domain
        self.unique_id = unique_id
        self.attributes = attributes or {}
        self.enabled = enabled
        # False for the maintenance entities: they follow the bridge only.
        self.follows_device = follows_device


def load_profiles(directory):
    profiles = {}
    for path in sorted(glob.glob(os.path.join(directory, "*.yaml"))):
        with open(path) as file:
            document = yaml.load(file, Loader=_CoreSchemaLoader)
        if isinstance(document, dict) and "id" in document:
            profiles[document["id"]] = Profile(document, path)
    return profiles


def profile_for_product(profiles, product_id):
    return next((p for p in profiles.values() if product_id in p.product_ids), None)


def expected_entities(profile, device_id, base="youll"):
    prefix = f"{base}_{device_id}_"
    if profile.is_light:
        entities = [_light(profile, prefix)]
    else:
        entities = _diffuser(profile, prefix)
    return entities + _maintenance(profile, prefix)


def bridge_entities(base="youll"):
    """The gateway's own entities. No "Permit pairing" button: `bridge.auth` is on by default
    and Home Assistant cannot sign the `permit_join` request it would send."""
    return [
        ExpectedEntity("connection", "binary_sensor", f"{base}_bridge_connection", follows_device=False),
    ]


def _light(profile, prefix):
    modes = []
    attributes = {}
    temperature = profile.capabilities.get("color_temp")
    if isinstance(temperature, dict) and profile.data_point("color_temp") is not None:
        modes.append("color_temp")
        attributes["min_color_temp_kelvin"] = temperature["kelvin_min"]
        attributes["max_color_temp_kelvin"] = temperature["kelvin_max"]
    if profile.data_point("colour") is not None:
        modes.append("hs")
    if not modes:
        modes = ["brightness" if profile.data_point("brightness") is not None else "onoff"]
    attributes["supported_color_modes"] = sorted(modes)
    if profile.data_point("scene") is not None and profile.scenes:
        attributes["effect_list"] = profile.scenes
    return ExpectedEntity("light", "light", prefix + "light", attributes)


def _diffuser(profile, prefix):
    entities = []
    if profile.data_point("mist") is not None:
        attributes = {}
        modes = profile.writable_values("mist_mode")
        if modes:
            attributes["preset_modes"] = modes
        entities.append(ExpectedEntity("mist", "fan", prefix + "mist", attributes))
    if profile.data_point("led_power") is not None:
        if profile.data_point("led_colour") is not None:
            modes = ["hs"]
        elif profile.data_point("led_brightness") is not None:
            modes = ["brightness"]
        else:
            modes = ["onoff"]
        entities.append(ExpectedEntity("led", "light", prefix + "led", {"supported_color_modes": modes}))
    if profile.writable_values("timer"):
        options = [label for _, label in profile.labels("timer")]
        entities.append(ExpectedEntity("timer", "select", prefix + "timer", {"options": options}))
    if profile.data_point("minutes_left") is not None:
        entities.append(
            ExpectedEntity("minutes_left", "sensor", prefix + "minutes_left", {"device_class": "duration"})
        )
    if profile.data_point("fault") is not None:
        entities.append(ExpectedEntity("problem", "binary_sensor", prefix + "problem", {"device_class": "problem"}))
    return entities


def _maintenance(profile, prefix):
    entities = []
    for rule in profile.maintenance:
        key = "maintenance_" + rule["type"].replace("-", "_")
        entities += [
            ExpectedEntity(key + "_remaining", "sensor", prefix + key + "_remaining", follows_device=False),
            ExpectedEntity(
                key + "_next_due", "sensor", prefix + key + "_next_due", {"device_class": "timestamp"}, follows_device=False
            ),
            ExpectedEntity(key + "_done", "button", prefix + key + "_done", enabled=False, follows_device=False),
        ]
    return entities
