"""The 3D scene's model (Qt-free): frames, geodetic placement and layers of display models."""
