"""A run tunes Python's garbage collector for its own duration and gives it back as it was."""

from __future__ import annotations

import gc
import weakref

from evalkit._runtime import gc_pause
from evalkit.testing.script import Script


def test_a_run_freezes_the_heap_and_collects_young_objects_less_often_then_restores_both():
    before = gc.get_threshold()
    assert gc.get_freeze_count() == 0
    with gc_pause.run_heap():
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold()[0] == max(before[0], gc_pause.YOUNG_THRESHOLD)
        assert gc.get_threshold()[1:] == before[1:]
        with gc_pause.run_heap():  # a second run under way (models side by side): one restore, at the end
            pass
        assert gc.get_freeze_count() > 0 and gc.get_threshold()[0] == max(before[0], gc_pause.YOUNG_THRESHOLD)
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_settle_freezes_only_during_a_run():
    gc_pause.settle()
    assert gc.get_freeze_count() == 0
    with gc_pause.run_heap():
        frozen = gc.get_freeze_count()
        late = [object() for _ in range(10)], {"an SDK imported mid-run": [1, 2, 3]}
        gc_pause.settle()
        assert gc.get_freeze_count() > frozen
        del late
    assert gc.get_freeze_count() == 0


def test_a_run_leaves_the_collector_as_it_found_it_even_when_it_fails(write, run_scripted):
    before = gc.get_threshold()
    path = write(
        "s.yml",
        "target: {prompt: 'Hi {{ who }}'}\ncases: [{id: a, input: {who: x}, checks: [{type: contains, value: hi}]}]\n",
    )
    report = run_scripted(path, Script().reply("hi there"))
    assert report.verdict == "pass"
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
    report = run_scripted(path, Script().fault("400"))  # every call fails: an error row, same restore
    assert report.verdict == "error"
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_a_cycle_frozen_with_the_heap_is_collected_once_the_run_ends():
    class Node:
        pass

    a, b = Node(), Node()
    a.other, b.other = b, a
    alive = weakref.ref(a)
    with gc_pause.run_heap():
        del a, b  # garbage now, but frozen at the run's start: the collector leaves it alone
        gc.collect()
        assert alive() is not None
    gc.collect()
    assert alive() is None
