"""Cameras: images and video of every family decoded to display frames, and what is drawn
over them (2D detections, skeletons, annotations, projected 3D boxes). Qt-free."""
