"""The test helpers that keep the suite from failing on a loaded machine: give-up times that stretch
with the load, and server replies held until the test releases them."""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.request

import pytest

from tests.patience import patience
from tests.server import Reply, ScriptedServer


@pytest.mark.parametrize(
    ("load", "cores", "factor", "seconds"),
    [(0.3, 2, None, 10.0), (8.0, 2, None, 40.0), (8.0, 2, "3", 120.0), (1.0, 4, "2", 20.0)],
)
def test_the_give_up_time_stretches_with_the_load_per_core(monkeypatch, load, cores, factor, seconds):
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    if factor is None:
        monkeypatch.delenv("HERMESLITE_TEST_PATIENCE", raising=False)
    else:
        monkeypatch.setenv("HERMESLITE_TEST_PATIENCE", factor)
    assert patience(10) == seconds


def ask(server: ScriptedServer, answers: list[str]) -> None:
    body = json.dumps({"model": "test-model", "messages": [{"role": "user", "content": "hi"}]}).encode()
    request = urllib.request.Request(
        f"{server.base_url}/chat/completions", data=body, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=patience(30)) as response:
        answers.append(json.load(response)["choices"][0]["message"]["content"])


def test_a_held_reply_is_sent_only_once_its_gate_is_set():
    gate = threading.Event()
    answers: list[str] = []
    with ScriptedServer() as server:
        server.enqueue(Reply.held(gate, Reply.text("released")))
        client = threading.Thread(target=ask, args=(server, answers))
        client.start()
        started = time.monotonic()
        while not server.requests:  # until the request has arrived: from then on it is held
            assert time.monotonic() - started < patience(30), "the request never arrived"
            client.join(0.02)
        client.join(0.5)
        assert client.is_alive() and answers == []
        gate.set()
        client.join(patience(30))
    assert answers == ["released"]
