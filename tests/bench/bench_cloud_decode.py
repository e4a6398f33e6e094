"""Decoding a 1M-point isaac cloud (bytes + attachment, as the bus holds them) to an (N, 3)
float32 numpy array, against one numpy copy of the same point bytes, same run."""

from __future__ import annotations

import numpy as np

from app.codec.buffers import encode_buffers, fill_tensor
from app.codec.decode import decode, encoding_for
from app.codec.registry import registry
from app.convert.isaac import point_cloud_to_numpy
from tests.bench.common import iterations, median, median_time, report

POINTS = 1_000_000
TARGET = 2.0


def cloud_sample(points: int) -> tuple[bytes, bytes, np.ndarray]:
    xyz = np.random.default_rng(0).normal(size=(points, 3)).astype(np.float32)
    msg = registry().struct("isaac.PointCloudProto").new_message()
    fill_tensor(msg.init("positions"), xyz, 0)
    return msg.to_bytes(), bytes(encode_buffers([xyz])), xyz


def run() -> list[str]:
    payload, attachment, xyz = cloud_sample(POINTS)
    raw = xyz.tobytes()
    encoding = encoding_for("isaac.PointCloudProto")
    decoded = point_cloud_to_numpy(decode(encoding, payload, attachment))
    assert decoded.shape == (POINTS, 3) and np.array_equal(decoded, xyz)
    repeats = iterations(30, 3)
    ours, baseline = [], []
    for _ in range(3):  # interleaved rounds, so load drifts hit both alike
        baseline.append(median_time(lambda: np.frombuffer(raw, np.float32).copy(), repeats))
        ours.append(median_time(lambda: point_cloud_to_numpy(decode(encoding, payload, attachment)),
                           repeats))
    return [report("isaac cloud 1M points -> numpy (decode / one numpy copy)",
                   median(ours), median(baseline), TARGET)]


if __name__ == "__main__":
    run()
