"""Cameras' pure work: images and video of every family decoded to display frames, and what
is drawn over them (2D detections, skeletons, annotations, projected 3D boxes). Qt-free, and
knows nothing of the station."""

# The modules whose converters (``camera.image``, ``camera.overlay``, ``camera.calibration``)
# the registry imports when one is asked for: not here, so importing the light ones (the
# model) does not load OpenCV.
CONVERTERS = ("images", "overlays", "projection")
