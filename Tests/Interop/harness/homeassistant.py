"""A headless Home Assistant on loopback: the only file of its own written by hand is
`configuration.yaml` (no `default_config:`, which would scan the network); onboarding,
the user, a long-lived token and the MQTT integration all go through its HTTP and
websocket APIs, as the frontend would do them."""

import asyncio
import os
import time

import aiohttp

from harness.ha_client import HAClient, HAError

CLIENT_ID = "http://127.0.0.1/"  # onboarding's OAuth client id: any URL
# Integrations onboarding's core_config step adds (2026.2: text-to-speech, weather, radio,
# lists); all but the list reach the internet, none is wanted here. The suite skips that
# step; these are removed should they appear anyway.
ONBOARDING_EXTRAS = ("google_translate", "met", "radio_browser", "shopping_list")


class HomeAssistant:
    def __init__(self, hass_binary, processes, directory, port):
        self.hass_binary = hass_binary
        self.processes = processes
        self.config_directory = os.path.join(directory, "homeassistant")
        self.port = port
        self.base_url = f"http://127.0.0.1:{port}"
        self.token = None
        self.client = None
        self.starts = []
        os.makedirs(self.config_directory, exist_ok=True)

    @property
    def log_path(self):
        return os.path.join(self.config_directory, "home-assistant.log")

    def write_configuration(self):
        database = os.path.join(self.config_directory, "home-assistant_v2.db")
        with open(os.path.join(self.config_directory, "configuration.yaml"), "w") as config:
            config.write(
                "homeassistant:\n"
                "  name: youll-devices interop\n"
                "  latitude: 52.37\n  longitude: 4.89\n  elevation: 0\n"
                "  unit_system: metric\n  time_zone: UTC\n  country: NL\n  currency: EUR\n"
                "http:\n"
                "  server_host: 127.0.0.1\n"
                f"  server_port: {self.port}\n"
                "api:\n"
                "config:\n"
                "onboarding:\n"
                "websocket_api:\n"
                "history:\n"
                "recorder:\n"
                f"  db_url: sqlite:///{database}\n"
                "  commit_interval: 0\n"
                "logger:\n"
                "  default: info\n"
                "  logs:\n"
                "    homeassistant.components.mqtt: debug\n"
            )

    def environment(self):
        env = dict(os.environ)
        # Nothing of the user's, and no proxy that could send it elsewhere.
        for key in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
            env.pop(key, None)
        env["NO_PROXY"] = "127.0.0.1,localhost"
        return env

    async def start(self, timeout=None):
        """Starts `hass` and waits until its core is running. The first start in a new
        virtual environment also installs the frontend and integration packages from PyPI
        into it (about 40 s on an idle machine), so the first wait is longer."""
        if timeout is None:
            timeout = 600.0 if not self.starts else 180.0
        if not self.starts:
            self.write_configuration()
        self.starts.append(time.time())
        await self.processes.start(
            "homeassistant",
            [self.hass_binary, "--config", self.config_directory, "--log-no-color"],
            env=self.environment(),
        )
        deadline = time.monotonic() + timeout
        async with aiohttp.ClientSession() as session:
            while time.monotonic() < deadline:
                child = self.processes.children.get("homeassistant")
                if child is None or not child.running:
                    raise HAError(f"Home Assistant exited while starting; its log ends:\n{self._log_tail()}")
                if await self._running(session):
                    return
                await asyncio.sleep(0.5)
        raise HAError(f"Home Assistant was not running after {timeout:.0f} s; its log ends:\n{self._log_tail()}")

    async def _running(self, session):
        try:
            if self.token is None:
                # Before onboarding: the onboarding API answers once HTTP is up; the core
                # is running shortly after, and the first onboarding call waits for it.
                async with session.get(self.base_url + "/api/onboarding", timeout=aiohttp.ClientTimeout(total=5)) as r:
                    return r.status == 200
            headers = {"Authorization": f"Bearer {self.token}"}
            async with session.get(
                self.base_url + "/api/config", headers=headers, timeout=aiohttp.ClientTimeout(total=5)
            ) as response:
                return response.status == 200 and (await response.json()).get("state") == "RUNNING"
        except (aiohttp.ClientError, asyncio.TimeoutError, ValueError):
            return False

    def _log_tail(self, lines=30):
        try:
            with open(self.log_path, errors="replace") as log:
                return "".join(log.readlines()[-lines:])
        except OSError:
            return "(no log)"

    async def stop(self):
        if self.client is not None:
            await self.client.close()
            self.client = None
        return await self.processes.stop("homeassistant", timeout=90)

    # -- onboarding and the MQTT integration -------------------------------------------------

    async def onboard(self):
        """Creates the owner, takes a long-lived token and finishes onboarding."""
        async with aiohttp.ClientSession() as session:
            user = await _post_json(
                session,
                self.base_url + "/api/onboarding/users",
                {"client_id": CLIENT_ID, "name": "Interop", "username": "interop", "password": "interop-pass-1", "language": "en"},
            )
            async with session.post(
                self.base_url + "/auth/token",
                data={"grant_type": "authorization_code", "code": user["auth_code"], "client_id": CLIENT_ID},
            ) as response:
                if response.status != 200:
                    raise HAError(f"/auth/token: HTTP {response.status}: {(await response.text())[:300]}")
                access = (await response.json())["access_token"]
            headers = {"Authorization": f"Bearer {access}"}
            # Not the core_config step: all it does (2026.2) is start google_translate, met,
            # radio_browser and shopping_list, which would reach for the internet before
            # they could be removed. The API does not need it done.
            for step, payload in (
                ("analytics", {}),
                ("integration", {"client_id": CLIENT_ID, "redirect_uri": CLIENT_ID + "?auth_callback=1"}),
            ):
                await _post_json(session, f"{self.base_url}/api/onboarding/{step}", payload, headers)
        client = HAClient(self.base_url, access)
        try:
            await client.connect_websocket()
            self.token = await client.ws_call(
                "auth/long_lived_access_token", client_name="youll-devices interop", lifespan=30
            )
        finally:
            await client.close()

    async def connect(self):
        """A client with the long-lived token and an open websocket."""
        self.client = HAClient(self.base_url, self.token)
        await self.client.connect_websocket()
        return self.client

    async def add_mqtt(self, broker_port):
        """The MQTT integration through its own config flow, then the onboarding extras
        removed. Returns the MQTT config entry's id."""
        client = self.client
        flow = await client.rest("POST", "/api/config/config_entries/flow", {"handler": "mqtt", "show_advanced_options": False})
        for _ in range(4):
            if flow.get("type") == "create_entry":
                break
            if flow.get("type") == "menu":
                options = flow.get("menu_options") or []
                choice = "broker" if "broker" in options else options[0]
                flow = await client.rest("POST", f"/api/config/config_entries/flow/{flow['flow_id']}", {"next_step_id": choice})
                continue
            if flow.get("type") != "form":
                raise HAError(f"MQTT config flow: unexpected step {flow}")
            flow = await client.rest(
                "POST", f"/api/config/config_entries/flow/{flow['flow_id']}", {"broker": "127.0.0.1", "port": broker_port}
            )
        if flow.get("type") != "create_entry":
            raise HAError(f"MQTT config flow did not create an entry: {flow}")
        entry_id = flow["result"]["entry_id"]
        await self.remove_onboarding_extras()
        return entry_id

    async def config_entries(self):
        return await self.client.rest("GET", "/api/config/config_entries/entry")

    async def remove_onboarding_extras(self):
        """Deletes any entry onboarding created (`source: onboarding`, or one of the
        known extras), should a later Home Assistant add one in another step; returns
        their domains. The suite checks afterwards that only MQTT is left."""
        removed = set()
        for entry in await self.config_entries():
            if entry.get("source") == "onboarding" or entry["domain"] in ONBOARDING_EXTRAS:
                await self.client.rest("DELETE", f"/api/config/config_entries/entry/{entry['entry_id']}")
                removed.add(entry["domain"])
        return removed

    async def wait_entry_loaded(self, domain, timeout=60.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            entries = [e for e in await self.config_entries() if e["domain"] == domain]
            if entries and all(e["state"] == "loaded" for e in entries):
                return True
            await asyncio.sleep(0.5)
        return False


async def _post_json(session, url, payload, headers=None):
    async with session.post(url, json=payload, headers=headers) as response:
        text = await response.text()
        if response.status != 200:
            raise HAError(f"POST {url}: HTTP {response.status}: {text[:300]}")
        return await response.json() if response.content_type == "application/json" else text
