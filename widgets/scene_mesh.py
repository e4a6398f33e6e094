"""Triangles with per-vertex colours whose updates keep their shader program.

vispy's ``MeshVisual.set_data`` hands its program new shader functions and a new colour
buffer every time, so each update of the boxes (3D detections move every frame) generated
the program again: ~4 ms of Python on the GUI thread a frame, and a GLSL compile on the render
thread. Here the first update goes through vispy's; later ones with the same layout (3D
vertices, RGBA per vertex) only refill the two buffers.
"""

from __future__ import annotations

import numpy as np
from vispy.gloo import VertexBuffer
from vispy.scene.visuals import create_visual_node
from vispy.visuals import MeshVisual


class SteadyMeshVisual(MeshVisual):
    def __init__(self) -> None:
        self._colors: VertexBuffer | None = None
        super().__init__()

    def _update_data(self) -> bool | None:
        data = self.mesh_data
        vertices = data.get_vertices(indexed="faces")
        steady = data.has_vertex_color() and vertices is not None and vertices.shape[-1] == 3
        if not steady or self._colors is None:
            if super()._update_data() is False:
                return False
            if steady:
                self._colors = VertexBuffer(
                    data.get_vertex_colors(indexed="faces").astype(np.float32))
                self.shared_program.vert["base_color"] = self._colors
            else:
                self._colors = None
            return None
        self._vertices.set_data(vertices, convert=True)
        self._colors.set_data(data.get_vertex_colors(indexed="faces").astype(np.float32))
        self._data_changed = False
        self.events.data_updated()
        return None


SteadyMesh = create_visual_node(SteadyMeshVisual)
