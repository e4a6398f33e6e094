"""Which samples of keys nobody reads the station decodes only to check them: small ones,
each key at most every CHECK_PERIOD_S, and on a budget for the whole station, so a depot of
a thousand robots costs the checks of a few while every key still gets its turn."""

from __future__ import annotations

from app.station.lane import CHECK_MAX_BYTES, CHECK_PERIOD_S, HealthChecks


def test_the_budget_caps_checks_per_second_for_the_whole_station() -> None:
    checks = HealthChecks(per_s=10)
    start = 1000.0
    granted = sum(checks.due(f"fleet/r{n}/uplink", 100, start + n / 1000) for n in range(5000))
    assert 10 <= granted <= 10 + 5 * 10 + 1  # the first burst, then 10 a second


def test_a_quiet_spell_refills_it_but_never_past_one_seconds_worth() -> None:
    checks = HealthChecks(per_s=10)
    assert sum(checks.due(f"a{n}", 100, 5.0) for n in range(30)) <= 10
    assert sum(checks.due(f"b{n}", 100, 500.0) for n in range(30)) == 10


def test_an_arrival_older_than_the_last_ask_takes_nothing_back() -> None:
    checks = HealthChecks(per_s=2)
    n = 0
    while checks.due(f"k{n}", 100, 100.0):
        n += 1
    assert not checks.due("late", 100, 97.0)  # another lane's older arrival: no refill
    assert checks.due("next", 100, 100.5)


def test_each_key_at_most_every_period_and_big_samples_never() -> None:
    checks = HealthChecks()
    assert checks.due("k", 100, 10.0)
    assert not checks.due("k", 100, 10.0 + CHECK_PERIOD_S / 2)
    assert checks.due("k", 100, 10.0 + CHECK_PERIOD_S)
    assert not checks.due("cloud", CHECK_MAX_BYTES + 1, 20.0)
