"""Every event class the agent defines, found by looking at `hermeslite.agent.events` itself."""

from __future__ import annotations

import dataclasses
from typing import get_args

from hermeslite.agent import events as ev


def defined_events() -> set[type]:
    """The dataclasses defined in agent/events.py: what a front end may be sent."""
    return {
        obj
        for obj in vars(ev).values()
        if isinstance(obj, type) and dataclasses.is_dataclass(obj) and obj.__module__ == ev.__name__
    }


def union_events() -> set[type]:
    """The members of `Event`, the type subscribers are declared to take."""
    return set(get_args(ev.Event))
