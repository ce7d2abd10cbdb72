"""Home Assistant's own APIs, as a user's tools reach them: REST (`/api/...`) and the
websocket (`/api/websocket`), with aiohttp from Home Assistant's virtual environment.

`States` keeps every entity's latest state from a `state_changed` subscription, with the
local time each change arrived, so a check can wait for a state without polling and can
measure a service call until the state shows its result."""

import asyncio
import itertools
import time

import aiohttp


class HAError(Exception):
    pass


class HAClient:
    def __init__(self, base_url, token):
        self.base_url = base_url
        self.token = token
        self.session = aiohttp.ClientSession(headers={"Authorization": f"Bearer {token}"})
        self.ws = None
        self._ids = itertools.count(1)
        self._pending = {}
        self._event_handlers = {}
        self._reader = None

    # -- REST -------------------------------------------------------------------------------

    async def rest(self, method, path, payload=None, timeout=30):
        async with self.session.request(
            method, self.base_url + path, json=payload, timeout=aiohttp.ClientTimeout(total=timeout)
        ) as response:
            text = await response.text()
            if response.status >= 400:
                raise HAError(f"{method} {path}: HTTP {response.status}: {text[:300]}")
            if response.content_type == "application/json":
                return await response.json()
            return text

    async def call_service(self, domain, service, data):
        return await self.rest("POST", f"/api/services/{domain}/{service}", data)

    async def states(self):
        return {s["entity_id"]: s for s in await self.rest("GET", "/api/states")}

    async def history(self, entity_ids, start_iso):
        """Every recorded state of `entity_ids` since `start_iso`: {entity_id: [state, …]}."""
        path = (
            f"/api/history/period/{start_iso}?filter_entity_id={','.join(entity_ids)}"
            "&no_attributes&significant_changes_only=0"
        )
        result = await self.rest("GET", path, timeout=60)
        history = {}
        for series in result:
            if series:
                history[series[0]["entity_id"]] = series
        return history

    # -- websocket --------------------------------------------------------------------------

    async def connect_websocket(self):
        self.ws = await self.session.ws_connect(self.base_url + "/api/websocket", heartbeat=30)
        hello = await self.ws.receive_json()
        if hello.get("type") != "auth_required":
            raise HAError(f"websocket: expected auth_required, got {hello}")
        await self.ws.send_json({"type": "auth", "access_token": self.token})
        answer = await self.ws.receive_json()
        if answer.get("type") != "auth_ok":
            raise HAError(f"websocket auth: {answer}")
        self._reader = asyncio.create_task(self._read())

    async def _read(self):
        try:
            async for message in self.ws:
                if message.type != aiohttp.WSMsgType.TEXT:
                    continue
                data = message.json()
                for item in data if isinstance(data, list) else [data]:
                    self._dispatch(item)
        finally:
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(HAError("websocket closed"))
            self._pending.clear()

    def _dispatch(self, item):
        if item.get("type") == "event":
            handler = self._event_handlers.get(item.get("id"))
            if handler is not None:
                handler(item["event"], time.time())
            return
        future = self._pending.pop(item.get("id"), None)
        if future is not None and not future.done():
            if item.get("success", True):
                future.set_result(item.get("result"))
            else:
                future.set_exception(HAError(f"{item.get('error')}"))

    async def ws_call(self, message_type, timeout=30, **fields):
        if self.ws is None or self.ws.closed:
            raise HAError("websocket not connected")
        message_id = next(self._ids)
        future = asyncio.get_running_loop().create_future()
        self._pending[message_id] = future
        await self.ws.send_json({"id": message_id, "type": message_type, **fields})
        return await asyncio.wait_for(future, timeout)

    async def subscribe_events(self, event_type, handler):
        message_id = next(self._ids)
        self._event_handlers[message_id] = handler
        future = asyncio.get_running_loop().create_future()
        self._pending[message_id] = future
        await self.ws.send_json({"id": message_id, "type": "subscribe_events", "event_type": event_type})
        await asyncio.wait_for(future, 30)

    async def device_registry(self):
        return await self.ws_call("config/device_registry/list")

    async def entity_registry(self):
        return await self.ws_call("config/entity_registry/list")

    async def close(self):
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            self._reader.cancel()
            try:
                await self._reader
            except (asyncio.CancelledError, Exception):  # noqa: BLE001 - closing anyway
                pass
        await self.session.close()


class States:
    """The latest state of every entity and the history of changes since `start()`."""

    def __init__(self, client):
        self.client = client
        self.current = {}
        self.changes = []  # (arrival time.time(), entity_id, new state dict or None)
        self._changed = asyncio.Condition()

    async def start(self):
        await self.client.subscribe_events("state_changed", self._on_event)
        for entity_id, state in (await self.client.states()).items():
            self.current.setdefault(entity_id, state)

    def _on_event(self, event, arrived):
        data = event.get("data", {})
        entity_id = data.get("entity_id")
        new_state = data.get("new_state")
        self.changes.append((arrived, entity_id, new_state))
        if new_state is None:
            self.current.pop(entity_id, None)
        else:
            self.current[entity_id] = new_state
        asyncio.get_running_loop().create_task(self._notify())

    async def _notify(self):
        async with self._changed:
            self._changed.notify_all()

    def state(self, entity_id):
        state = self.current.get(entity_id)
        return None if state is None else state["state"]

    def attributes(self, entity_id):
        state = self.current.get(entity_id)
        return {} if state is None else state.get("attributes", {})

    async def wait(self, predicate, timeout):
        """Waits until `predicate()` (over `current`) holds; True when it did in time."""
        deadline = time.monotonic() + timeout
        async with self._changed:
            while not predicate():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                try:
                    await asyncio.wait_for(self._changed.wait(), remaining)
                except asyncio.TimeoutError:
                    pass
        return True

    def sequence(self, entity_id, since):
        """The states `entity_id` went through since `since` (arrival times), in order."""
        return [
            (arrived, new_state["state"] if new_state else "<removed>")
            for arrived, changed, new_state in self.changes
            if changed == entity_id and arrived >= since
        ]
