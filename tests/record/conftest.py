"""Fixtures of the recording tests: real fleet samples and files written from them."""

from __future__ import annotations

from typing import Any

import pytest

from tests.record.fleet import FleetSample, fleet_samples

T0 = 1_700_000_000.0  # unix seconds of the first sample
SKEW_S = 0.004  # the source stamp is this much older than the receipt


@pytest.fixture(scope="session")
def fleet() -> list[FleetSample]:
    """Three seconds of the simulated fleet (catalogs, clouds with attachments, images,
    every family)."""
    return fleet_samples(3.0)


def offer_all(target: Any, samples: list[FleetSample], t0: float = T0) -> list[bool]:
    """Offers every sample to a Recorder or BlackBox at T0 + its time."""
    return [target.offer(s.key, s.encoding, s.payload, s.attachment, t0 + s.at_s,
                         t0 + s.at_s - SKEW_S) for s in samples]


def ns(seconds: float) -> int:
    return int(seconds * 1e9)
