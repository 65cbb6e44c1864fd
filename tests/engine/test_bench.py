"""The benchmark runs under the long-running processes' collector settings and leaves none behind."""

from __future__ import annotations

import gc

from bench.scheduling import run
from kubesim import gc_tuning


def test_the_bench_times_under_the_long_running_settings_and_restores_the_process_ones():
    before = gc.get_threshold()
    result = run(10, 20)
    assert f"thresholds {gc_tuning.YOUNG_THRESHOLD}/" in result.gc_settings
    assert "start-up objects frozen" in result.gc_settings
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
    assert len(result.decisions) == 20 and result.placed == 20
    assert result.render_ms > 0


def test_the_bench_can_time_under_cpythons_defaults():
    result = run(10, 20, gc_tuned=False)
    assert result.gc_settings == gc_tuning.settings()
    assert "0 start-up objects frozen" in result.gc_settings


def test_tuning_freezes_what_start_up_built_and_raises_the_young_threshold():
    before = gc.get_threshold()
    try:
        described = gc_tuning.tune_for_long_running()
        assert gc.get_threshold() == (gc_tuning.YOUNG_THRESHOLD, *before[1:])
        assert gc.get_freeze_count() > 0
        assert described == gc_tuning.settings()
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
