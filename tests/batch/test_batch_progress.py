"""A batch's progress on a terminal: tqdm's bar, or a plain line rewritten in place without it;
off a terminal, nothing."""

from __future__ import annotations

import concurrent.futures as cf
import io
import re
import sys

import pytest

from cvcclock._extras import install_hint
from cvcclock.batch import FailedRun, simulate_many
from cvcclock.batch._progress import _line, reporter
from support.batch_scenarios import CloseCall, Flaky


class FakeTerminal(io.StringIO):
    """A stdout that says it is a terminal and keeps what was written."""

    def isatty(self):
        return True


def on_a_terminal(monkeypatch):
    """Point stdout at a fake terminal, from inside the test: pytest's capture sets stdout
    again between a fixture's set-up and the test's call."""
    screen = FakeTerminal()
    monkeypatch.setattr(sys, "stdout", screen)
    return screen


@pytest.fixture
def no_tqdm(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)      # import tqdm raises ImportError


def run(scenario, seeds):
    with cf.ThreadPoolExecutor(1) as threads:
        return list(simulate_many(scenario, seeds, executor=threads))


def test_without_tqdm_a_terminal_shows_a_plain_line_updated_in_place(monkeypatch, no_tqdm):
    terminal = on_a_terminal(monkeypatch)
    results = run(Flaky(), range(8))
    failed = sum(isinstance(r, FailedRun) for r in results)
    text = terminal.getvalue()
    assert text.startswith("\r") and text.endswith("\n") and text.count("\n") == 1
    states = [s.rstrip() for s in text.rstrip("\n").split("\r")[1:]]
    assert states[0].startswith("simulate_many: 0/8 runs, 0 failed, 0.0 runs/s, ? left")
    assert states[-1].startswith(f"simulate_many: 8/8 runs, {failed} failed, ")
    assert states[-1].endswith(" runs/s, 0s left")
    assert failed == 2


def test_with_tqdm_a_terminal_shows_its_bar(monkeypatch):
    pytest.importorskip("tqdm")
    terminal = on_a_terminal(monkeypatch)
    run(Flaky(), range(8))
    text = terminal.getvalue()
    assert "simulate_many" in text and "8/8" in text and "failed=2" in text
    assert "runs/s," not in text                     # not the plain line


def test_off_a_terminal_progress_is_silent_with_or_without_tqdm(capsys, monkeypatch):
    run(CloseCall(), range(3))
    monkeypatch.setitem(sys.modules, "tqdm", None)
    run(CloseCall(), range(3))
    assert capsys.readouterr().out == ""


def test_the_line_counts_rate_and_time_left_from_its_first_report_and_covers_longer_ones():
    screen = io.StringIO()
    now = iter([100.0, 102.0, 104.0, 1000.0])
    report = _line(screen, clock=lambda: next(now))
    report(10, 1010, 0)            # 10 runs from a results file: not in the rate
    report(14, 1010, 1)
    report(18, 1010, 1)
    report(1010, 1010, 3)
    report.close()
    states = screen.getvalue().split("\r")[1:]
    assert [s.rstrip() for s in states] == [
        "simulate_many: 10/1010 runs, 0 failed, 0.0 runs/s, ? left",
        "simulate_many: 14/1010 runs, 1 failed, 2.0 runs/s, 8:18 left",
        "simulate_many: 18/1010 runs, 1 failed, 2.0 runs/s, 8:16 left",
        "simulate_many: 1010/1010 runs, 3 failed, 1.1 runs/s, 0s left",
    ]
    # each state is padded to cover the one before it
    assert all(len(b.rstrip("\n")) >= len(a.rstrip()) for a, b in zip(states[:-1], states[1:],
                                                                    strict=True))
    assert screen.getvalue().endswith("\n")


def test_a_tqdm_bar_asked_for_without_tqdm_says_how_to_install_it(no_tqdm):
    message = f"progress=True draws a tqdm bar: pip install tqdm, or {install_hint('dask')}"
    with pytest.raises(ImportError, match=re.escape(message)):
        reporter(True)
