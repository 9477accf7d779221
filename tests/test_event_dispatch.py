"""The headless printer's dispatch is checked: every event class is handled or explicitly ignored."""

from __future__ import annotations

import io

import pytest

from hermeslite.agent import events as ev
from hermeslite.headless import HeadlessPrinter
from tests.event_classes import defined_events, union_events


def test_every_event_class_is_a_member_of_the_event_type():
    assert union_events() == defined_events()


def test_the_headless_printer_lists_every_event_class():
    printer = HeadlessPrinter(io.StringIO(), io.StringIO())
    assert set(printer.handlers) == defined_events()


def test_an_event_the_printer_does_not_know_is_an_error_not_silence():
    class Renamed(ev.Notice):
        pass

    printer = HeadlessPrinter(io.StringIO(), io.StringIO())
    with pytest.raises(KeyError):
        printer(Renamed("a notice under another class name"))


def test_the_printer_routes_by_class():
    out, err = io.StringIO(), io.StringIO()
    printer = HeadlessPrinter(out, err)
    printer(ev.TextDelta("the reply"))
    printer(ev.Notice("read this once"))
    printer(ev.ReplyComplete("the reply"))  # ignored: the text came as deltas
    assert out.getvalue() == "the reply\n"
    assert err.getvalue() == "note: read this once\n"
