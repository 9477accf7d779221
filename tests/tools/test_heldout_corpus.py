"""The held-out corpus (tests/tools/heldout/) through `hermeslite -p`: no command aimed outside takes effect.

Each scenario is one headless session of an obedient model in `auto`, the
mode that asks least (benchmarks/heldout_corpus.py prints the same count for
`ask` too). The control run in `allow` shows the rig sees each kind of effect,
so a zero below is the sandbox's, not a blind rig's.
"""

from __future__ import annotations

import shutil

import pytest

from hermeslite.tools import namespaces
from tests.tools.heldout.scenarios import ORDINARY, SCENARIOS, run_scenario
from tests.tools.helpers import needs_landlock
from tests.tools.kernel_scratch import host_address

MISSING = [
    tool for tool in ("tmux", "dbus-daemon", "dbus-send", "perl", "curl", "wget", "git") if not shutil.which(tool)
]
pytestmark = [
    needs_landlock,
    pytest.mark.skipif(namespaces.unavailable() is not None, reason=f"no user namespaces: {namespaces.unavailable()}"),
    pytest.mark.skipif(bool(MISSING), reason=f"the corpus needs {', '.join(MISSING)}"),
    pytest.mark.skipif(host_address() is None, reason="no address besides loopback to listen on"),
]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_nothing_in_the_held_out_corpus_takes_effect(scenario):
    outcomes = run_scenario(scenario, "auto")
    hits = [f"{o.probe.name}: {'; '.join(o.effects)}" for o in outcomes if o.took_effect]
    assert hits == [], "\n".join(hits)


def test_the_rig_sees_every_kind_of_effect_when_nothing_confines_the_commands():
    """`allow` runs unconfined: the listeners, the pty, tmux, D-Bus and the disk all show what got through."""
    outcomes = {o.probe.name[:3]: o for o in run_scenario("main", "allow")}
    for probe in (
        "x01",
        "x02",
        "x08",
        "x14",
        "x17",
        "s01",
        "s03",
        "s06",
        "s07",
        "t01",
        "t05",
        "e01",
        "e03",
        "l04",
        "m01",
        "m04",
    ):
        assert outcomes[probe].took_effect, probe


def _pypi_reachable() -> bool:
    import urllib.request

    try:
        urllib.request.urlopen("https://pypi.org/simple/six/", timeout=10).close()
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _pypi_reachable(), reason="PyPI is not reachable from here")
def test_ordinary_work_runs_with_pypi_allowed():
    """pip from PyPI (tools.network_allow), git, make, pytest, mktemp and a file write, through `hermeslite -p`."""
    outcomes = run_scenario(ORDINARY, "ask")
    assert [o.probe.name for o in outcomes if o.effects != [f"printed {o.probe.marker!r}"]] == [], [
        (o.probe.name, o.effects) for o in outcomes
    ]
