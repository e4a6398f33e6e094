"""The station-wide budget of decodes done only to check keys nobody reads: a depot of a
thousand robots costs the checks of a few, and every key still gets its turn."""

from __future__ import annotations

from app.station.lane import CheckBudget


def test_the_budget_caps_checks_per_second_for_the_whole_station() -> None:
    budget = CheckBudget(per_s=10)
    start = 1000.0
    granted = sum(budget.take(start + n / 1000) for n in range(5000))  # 1000 asks a second
    assert 10 <= granted <= 10 + 5 * 10 + 1  # the first burst, then 10 a second


def test_a_quiet_spell_refills_it_but_never_past_one_seconds_worth() -> None:
    budget = CheckBudget(per_s=10)
    assert sum(budget.take(5.0) for _ in range(30)) <= 10
    assert sum(budget.take(500.0) for _ in range(30)) == 10


def test_an_arrival_older_than_the_last_ask_takes_nothing_back() -> None:
    budget = CheckBudget(per_s=2)
    now = 100.0
    while budget.take(now):
        pass
    assert not budget.take(now - 3.0)  # another lane's older arrival: no refill
    assert budget.take(now + 0.5)
