"""The TUI router's dispatch is checked: every event class, and the app's own `Settled`, has a handler."""

from __future__ import annotations

from hermeslite.tui.feed import Settled
from hermeslite.tui.router import EventRouter
from tests.event_classes import defined_events


def test_the_router_lists_every_event_class_and_settled(make_app):
    router = EventRouter(make_app())
    assert set(router.handlers) == defined_events() | {Settled}
