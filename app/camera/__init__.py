"""Cameras on the station: video streams, overlays in step with their images, 3D boxes
projected into a camera, the cameras a robot has. The pure image work is in
``app.convert.camera``."""
