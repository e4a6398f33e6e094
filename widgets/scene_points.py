"""A lean point-cloud visual: square ``GL_POINTS`` of a fixed pixel size, coloured in the
shader (height or value through a turbo-like colormap, per-point RGB, or one flat colour).

BASELINES.md ("Point clouds under llvmpipe"): a bare program drawing ``GL_POINTS`` is about
twice as fast as vispy's ``Markers``, so clouds never go through ``Markers``. The buffers are
made once and refilled only when the caller hands over a new array; style changes are
uniforms and never touch the points.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from vispy import gloo
from vispy.scene.visuals import create_visual_node
from vispy.visuals import Visual
from vispy.visuals.shaders.expression import TextExpression

WHITE = float(255 + 255 * 256 + 255 * 65536)


def pack_rgb(rgb: np.ndarray) -> np.ndarray:
    """(N, 3+) uint8 -> (N, 1) float32 holding r + 256 g + 65536 b exactly (< 2**24): gloo
    binds every attribute as float, so bytes travel packed, 4 bytes a point, and the shader
    unpacks them."""
    rgb = np.asarray(rgb)
    padded = np.zeros((len(rgb), 4), np.uint8)
    padded[:, :3] = rgb[:, :3]
    return padded.view("<u4").astype(np.float32)

# One matrix takes a point to clip space (the whole visual -> render chain, folded on the CPU
# each draw: a bare program's cost, where vispy's chain is ~3 mat4 and 5 scale-translates a
# point). The colour is one expression per mode, put in as text: no branch runs per point.
VERTEX_SHADER = """
uniform mat4 u_mvp;        // visual -> clip
uniform vec4 u_zrow;       // visual -> world z (the height mode)
uniform vec4 u_color;
uniform float u_size;
uniform vec2 u_range;      // colormap input: (lo, 1 / (hi - lo))
attribute vec3 a_position;
// $value and $rgb are per-point attributes when the cloud has them, else uniforms;
// $rgb holds r + 256 g + 65536 b, exact in a float (gloo binds no byte attributes)
varying vec4 v_color;

// Polynomial approximation of Google's turbo colormap (Ruofei Du, Apache 2.0).
vec3 turbo(float x) {
    const vec4 kr4 = vec4(0.13572138, 4.61539260, -42.66032258, 132.13108234);
    const vec4 kg4 = vec4(0.09140261, 2.19418839, 4.84296658, -14.18503333);
    const vec4 kb4 = vec4(0.10667330, 12.64194608, -60.58204836, 110.36276771);
    const vec2 kr2 = vec2(-152.94239396, 59.28637943);
    const vec2 kg2 = vec2(4.27729857, 2.82956604);
    const vec2 kb2 = vec2(-89.90310912, 27.34824973);
    x = clamp(x, 0.0, 1.0);
    vec4 v4 = vec4(1.0, x, x * x, x * x * x);
    vec2 v2 = v4.zw * v4.z;
    return vec3(dot(v4, kr4) + dot(v2, kr2), dot(v4, kg4) + dot(v2, kg2),
                dot(v4, kb4) + dot(v2, kb2));
}

vec3 unpack_rgb(float code) {
    float g_b = floor(code / 256.0);
    return vec3(code - 256.0 * g_b, mod(g_b, 256.0), floor(g_b / 256.0)) / 255.0;
}

void main() {
    vec4 p = vec4(a_position, 1.0);
    gl_Position = u_mvp * p;
    gl_PointSize = u_size;
    float value = $value;
    float code = $rgb;
    v_color = $color;
}
"""

COLOR_EXPRESSIONS = {
    "height": "vec4(turbo((dot(u_zrow, p) - u_range.x) * u_range.y), u_color.a)",
    "value": "vec4(turbo((value - u_range.x) * u_range.y), u_color.a)",
    "rgb": "vec4(unpack_rgb(code), u_color.a)",
    "flat": "u_color",
}

# Flat points read the uniform here, so the linker drops the varying (~10 % of a frame
# under llvmpipe, where every varying is interpolated per fragment).
FRAGMENT_SHADER = """
uniform vec4 u_color;
varying vec4 v_color;
void main() {
    gl_FragColor = $fragment_color;
}
"""


class PointsVisual(Visual):
    """Square points of ``size`` px; ``set_data`` uploads, everything else is a uniform.

    ``uploads`` counts buffer uploads (one per buffer refilled)."""

    def __init__(self) -> None:
        Visual.__init__(self, vcode=VERTEX_SHADER, fcode=FRAGMENT_SHADER)
        self._draw_mode = "points"
        self._count = 0
        self.uploads = 0
        self._positions = gloo.VertexBuffer(np.zeros((1, 3), np.float32))
        self._values: gloo.VertexBuffer | None = None
        self._rgb: gloo.VertexBuffer | None = None
        self.shared_program["a_position"] = self._positions
        self.shared_program.vert["value"] = 0.0  # a uniform until values arrive
        self.shared_program.vert["rgb"] = WHITE
        self._mode = ""
        self.set_style("flat", (1.0, 1.0, 1.0, 1.0), 2.0, (0.0, 1.0))
        self.set_gl_state(depth_test=True, blend=False)
        self.freeze()

    @property
    def count(self) -> int:
        return self._count

    def set_style(self, mode: str, color: tuple[float, ...], size: float,
                  value_range: tuple[float, float]) -> None:
        rgba = tuple(float(c) for c in color) + (1.0,) * (4 - len(color))
        if mode != self._mode:  # a new expression: the program is rebuilt on the next draw
            self.shared_program.vert["color"] = TextExpression(COLOR_EXPRESSIONS[mode])
            self.shared_program.frag["fragment_color"] = TextExpression(
                "u_color" if mode == "flat" else "v_color")
            self._mode = mode
        self.shared_program["u_color"] = rgba[:4]
        self.shared_program["u_size"] = max(1.0, float(size))
        lo, hi = float(value_range[0]), float(value_range[1])
        self.shared_program["u_range"] = (lo, 1.0 / (hi - lo) if hi != lo else 0.0)
        translucent = rgba[3] < 1.0
        self.set_gl_state(depth_test=True, blend=translucent,
                          blend_func=("src_alpha", "one_minus_src_alpha"))
        self.update()

    def set_data(self, xyz: np.ndarray, values: np.ndarray | None = None,
                 rgb: np.ndarray | None = None) -> None:
        """Uploads the points (and values / colours when given); copies only what is not
        already contiguous float32 (uint8 for colours)."""
        xyz = np.asarray(xyz)
        n = len(xyz)
        self._count = n
        if n == 0:
            self.update()
            return  # nothing drawn; the old buffers stay for the next cloud
        self._positions.set_data(np.ascontiguousarray(xyz[:, :3], dtype=np.float32))
        self.uploads += 1
        if values is not None and len(values) == n:
            if self._values is None:
                self._values = gloo.VertexBuffer(np.zeros(1, np.float32))
            self._values.set_data(np.ascontiguousarray(values, dtype=np.float32).reshape(n, 1))
            self.shared_program.vert["value"] = self._values
            self.uploads += 1
        else:
            self.shared_program.vert["value"] = 0.0
        if rgb is not None and len(rgb) == n:
            if self._rgb is None:
                self._rgb = gloo.VertexBuffer(np.zeros((1, 1), np.float32))
            self._rgb.set_data(pack_rgb(rgb))
            self.shared_program.vert["rgb"] = self._rgb
            self.uploads += 1
        else:
            self.shared_program.vert["rgb"] = WHITE
        self.update()

    def _prepare_transforms(self, view: Any) -> None:
        pass  # folded into u_mvp by _prepare_draw

    def _prepare_draw(self, view: Any) -> bool:
        if self._count == 0:
            return False
        # Every transform between here and the framebuffer is linear in homogeneous
        # coordinates (matrix, scale-translate, perspective), so the chain is one matrix:
        # mapping the basis gives its rows in gloo's (transposed) layout.
        view.view_program["u_mvp"] = _matrix_of(view.get_transform("visual", "render"))
        if self._mode == "height":
            view.view_program["u_zrow"] = _matrix_of(view.get_transform("visual", "scene"))[:, 2]
        return True

    def _compute_bounds(self, axis: int, view: Any) -> tuple[float, float] | None:
        return None


def _matrix_of(transform: Any) -> np.ndarray:
    """The 4x4 matrix of a linear (homogeneous) transform, transposed: row i = map(e_i)."""
    return np.asarray(transform.map(_BASIS), dtype=np.float32).reshape(4, 4)


_BASIS = np.eye(4)

Points = create_visual_node(PointsVisual)
