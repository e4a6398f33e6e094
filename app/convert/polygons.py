"""Polygons with holes -> triangles: the keep-out volumes' geometry.

``triangulate`` ear-clips a polygon after joining each hole to the outline by a two-way
bridge (counter-clockwise triangles, indices into the exterior's points then each hole's);
``extruded_polygon`` stands it between two heights as a closed volume: caps from the
triangulation (left out above :data:`MAX_CAP_VERTICES`) and a wall along every ring.
Plain 2D geometry on numpy arrays, nothing of any schema.
"""

from __future__ import annotations

import numpy as np

MAX_CAP_VERTICES = 1000  # larger keep-out polygons get walls and outline, no caps (~0.25 s)


def _signed_area(ring: np.ndarray) -> float:
    x, y = ring[:, 0], ring[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))


def _cross(o: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    return float((a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]))


def _crosses_any(p: np.ndarray, q: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> bool:
    """True when segment p-q properly crosses any of the segments starts[i]-ends[i]
    (touching at an end does not count)."""

    def side(o: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return (a[..., 0] - o[..., 0]) * (b[..., 1] - o[..., 1]) - \
            (a[..., 1] - o[..., 1]) * (b[..., 0] - o[..., 0])

    d1, d2 = side(starts, ends, p), side(starts, ends, q)
    d3, d4 = side(p, q, starts), side(p, q, ends)
    proper = ((d1 > 0) != (d2 > 0)) & ((d3 > 0) != (d4 > 0))
    proper &= (d1 != 0) & (d2 != 0) & (d3 != 0) & (d4 != 0)
    return bool(proper.any())


def _bridge_holes(outer: list[np.ndarray], holes: list[np.ndarray]) -> list[np.ndarray]:
    """One ring: each hole joined to the outer ring by a visible two-way bridge."""
    holes = sorted(holes, key=lambda h: -float(h[:, 0].max()))
    for n, hole in enumerate(holes):
        m = int(np.argmax(hole[:, 0]))
        mp = hole[m]
        rings = [np.array(outer), *holes[n:]]
        starts = np.concatenate(rings)
        ends = np.concatenate([np.roll(ring, -1, axis=0) for ring in rings])
        ring = np.array(outer)
        order = np.argsort(np.sum((ring - mp) ** 2, axis=1), kind="stable")
        chosen = None
        for i in order:
            if not _crosses_any(mp, ring[i], starts, ends):
                chosen = int(i)
                break
        if chosen is None:
            continue  # no visible vertex (a hole crossing the outline): leave it out of caps
        cycle = [hole[(m + k) % len(hole)] for k in range(len(hole))]
        outer = outer[: chosen + 1] + cycle + [mp, outer[chosen]] + outer[chosen + 1 :]
    return outer


def triangulate(exterior: np.ndarray, holes: list[np.ndarray]) -> list[tuple[int, int, int]]:
    """Ear-clipping triangulation of a polygon with holes; indices into the points of
    ``exterior`` then each hole, in order. Counter-clockwise triangles."""
    rings = [exterior if _signed_area(exterior) > 0 else exterior[::-1]]
    offsets, index_of = [0], []
    for hole in holes:
        rings.append(hole if _signed_area(hole) < 0 else hole[::-1])
    for ring, original in zip(rings, [exterior, *holes], strict=True):
        start = offsets[-1]
        reversed_ = ring is not original
        index_of.append([start + (len(ring) - 1 - k if reversed_ else k)
                         for k in range(len(ring))])
        offsets.append(start + len(ring))
    key: dict[tuple[float, float], int] = {}
    for ring, indices in zip(rings, index_of, strict=True):
        for point, index in zip(ring, indices, strict=True):
            key.setdefault((float(point[0]), float(point[1])), index)
    merged = _bridge_holes(list(rings[0]), list(rings[1:]))
    ids = np.array([key[(float(p[0]), float(p[1]))] for p in merged])
    coords = np.array(merged, dtype=np.float64).reshape(-1, 2)
    triangles: list[tuple[int, int, int]] = []
    remaining = list(range(len(ids)))
    k, misses = 0, 0
    while len(remaining) > 3 and misses <= len(remaining):
        count = len(remaining)
        k %= count
        i0, i1, i2 = remaining[k - 1], remaining[k], remaining[(k + 1) % count]
        a, b, c = coords[i0], coords[i1], coords[i2]
        turn = _cross(a, b, c)
        if turn == 0:  # collinear, or a bridge's doubled point: drop it
            remaining.pop(k)
            misses = 0
            continue
        if turn > 0 and not _any_inside(coords[remaining], ids[remaining], (a, b, c),
                                        (ids[i0], ids[i1], ids[i2])):
            triangles.append((int(ids[i0]), int(ids[i1]), int(ids[i2])))
            remaining.pop(k)
            misses = 0
            continue
        k += 1
        misses += 1  # a full round without an ear: self-intersecting input, keep what we have
    if len(remaining) == 3:
        i0, i1, i2 = remaining
        if _cross(coords[i0], coords[i1], coords[i2]) > 0:
            triangles.append((int(ids[i0]), int(ids[i1]), int(ids[i2])))
    return triangles


def _any_inside(points: np.ndarray, ids: np.ndarray, corners: tuple[np.ndarray, ...],
                corner_ids: tuple[int, ...]) -> bool:
    """Whether any point other than the corners lies in (or on) the triangle."""
    a, b, c = corners
    x, y = points[:, 0], points[:, 1]

    def side(o: np.ndarray, e: np.ndarray) -> np.ndarray:
        return (e[0] - o[0]) * (y - o[1]) - (e[1] - o[1]) * (x - o[0])

    inside = (side(a, b) >= 0) & (side(b, c) >= 0) & (side(c, a) >= 0)
    inside &= (ids != corner_ids[0]) & (ids != corner_ids[1]) & (ids != corner_ids[2])
    return bool(inside.any())


def extruded_polygon(exterior: np.ndarray, holes: list[np.ndarray], z_min: float,
                     z_max: float) -> tuple[np.ndarray, np.ndarray]:
    """(points (N, 3), indices (K,) uint32) of the triangles of a polygon extruded from
    ``z_min`` to ``z_max``: bottom and top caps and a wall along every ring."""
    flat = np.concatenate([exterior, *holes]) if holes else exterior
    n = len(flat)
    points = np.concatenate([np.column_stack([flat, np.full(n, z_min)]),
                             np.column_stack([flat, np.full(n, z_max)])])
    indices: list[int] = []
    if n <= MAX_CAP_VERTICES:
        for a, b, c in triangulate(exterior, holes):
            indices += [a, c, b]  # bottom, facing down
            indices += [n + a, n + b, n + c]  # top, facing up
    start = 0
    for ring in (exterior, *holes):
        count = len(ring)
        for k in range(count):
            i, j = start + k, start + (k + 1) % count
            indices += [i, j, n + j, i, n + j, n + i]
        start += count
    return points, np.array(indices, dtype=np.uint32)
