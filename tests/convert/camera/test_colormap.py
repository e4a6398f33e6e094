"""The colour map's range: robust when automatic, exact when fixed, never a crash."""

from __future__ import annotations

import numpy as np
import pytest

from app.convert.camera.colormap import auto_range, colorize, grey_scaled
from app.convert.registry import ConversionError


def test_automatic_range_ignores_outliers_and_invalid_pixels() -> None:
    depth = np.random.default_rng(0).uniform(1.0, 3.0, (200, 300)).astype(np.float32)
    depth[::10] = 0.0  # no reading
    depth[5, ::3] = np.nan
    depth[7, :4] = 1e9  # a few wild values
    lo, hi = auto_range(depth)
    assert 1.0 <= lo < 1.1 and 2.9 < hi <= 3.0


def test_an_image_without_valid_pixels_is_black() -> None:
    image, used = colorize(np.full((4, 5), np.nan, np.float32))
    assert used == (0.0, 1.0) and not image.any()


def test_a_flat_image_gets_a_non_empty_range() -> None:
    image, (lo, hi) = colorize(np.full((4, 5), 2.5, np.float32))
    assert lo == 2.5 and hi > lo and image.any()
    _, (lo, hi) = grey_scaled(np.full((3, 3), 700, np.uint16))
    assert (lo, hi) == (700.0, 701.0)


def test_colours_run_from_blue_to_red_through_the_range() -> None:
    image, _ = colorize(np.linspace(1.0, 2.0, 11).reshape(1, 11), (1.0, 2.0))
    red, blue = image[0, :, 0].astype(int), image[0, :, 2].astype(int)
    assert blue[0] > red[0] and red[-1] > blue[-1]
    assert len({tuple(pixel) for pixel in image[0]}) == 11  # each value its own colour


@pytest.mark.parametrize("bad", [(2.0, 1.0), (1.0, 1.0), (float("nan"), 1.0),
                                 (0.0, float("inf"))])
def test_a_bad_fixed_range_is_refused(bad: tuple[float, float]) -> None:
    with pytest.raises(ConversionError, match="is not an increasing pair"):
        colorize(np.ones((2, 2), np.float32), bad)
