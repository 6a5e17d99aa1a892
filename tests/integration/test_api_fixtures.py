"""Helpers for the API tests: a real uvicorn on 127.0.0.1 and fresh tenants with keys.

Imported by the ``test_api*`` modules; it holds no tests itself.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import uvicorn
from neo4j import Driver

from hmem import Config, Memory
from hmem.api import create_app
from hmem.api.auth import stored_user_id
from hmem.graph.apikeys import KeyStore


class LiveServer:
    """``hmem.api`` served by uvicorn on a free loopback port, in a thread."""

    def __init__(self, config: Config) -> None:
        self.app = create_app(config)
        self._server = uvicorn.Server(
            uvicorn.Config(
                self.app,
                host="127.0.0.1",
                port=0,
                log_config=None,
                access_log=False,
                lifespan="on",
            )
        )
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self.url = ""

    def start(self) -> LiveServer:
        self._thread.start()
        # startup warms the search path (embedder, plans, spaCy): minutes on a busy box
        deadline = time.monotonic() + 300
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        port = self._server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=15)


@contextmanager
def live_server(config: Config) -> Iterator[LiveServer]:
    server = LiveServer(config).start()
    try:
        yield server
    finally:
        server.stop()


@dataclass
class Tenant:
    """A fresh tenant with an all-users key; ``users`` are erased when it goes."""

    name: str
    key: str
    keys: KeyStore
    memory: Memory
    users: set[str] = field(default_factory=set)

    def user(self, prefix: str = "u") -> str:
        uid = f"{prefix}-{uuid.uuid4().hex[:10]}"
        self.users.add(uid)
        return uid

    def stored(self, user_id: str) -> str:
        return stored_user_id(self.name, user_id)

    def key_for(self, *user_ids: str) -> str:
        return self.keys.create(self.name, user_ids=list(user_ids), name="test").key


@contextmanager
def fresh_tenant(driver: Driver, memory: Memory, prefix: str = "t") -> Iterator[Tenant]:
    keys = KeyStore(driver)
    keys.ensure_schema()
    name = f"{prefix}-{uuid.uuid4().hex[:10]}"
    tenant = Tenant(name=name, key=keys.create(name, name="test").key, keys=keys, memory=memory)
    try:
        yield tenant
    finally:
        for uid in tenant.users:
            memory.erase_user(tenant.stored(uid))
        keys.delete_tenant(name)
