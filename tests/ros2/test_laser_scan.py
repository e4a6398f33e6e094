"""A ROS 2 LaserScan said again as a foxglove.LaserScan: its rays where ROS puts them."""

from __future__ import annotations

import math

import numpy as np

from app.codec.decode import decode, encoding_for
from app.convert.registry import get_converter
from app.ros2.cdr import RosTypes
from app.ros2.translate import translate, translation_for


def test_rays_out_of_range_or_nan_are_no_return_and_the_others_are_kept() -> None:
    types = RosTypes()
    new = types.message
    header = new("std_msgs/msg/Header", stamp=new("builtin_interfaces/msg/Time", sec=3,
                                                  nanosec=0), frame_id="laser")
    ranges = np.array([0.05, 0.1, 3.25, math.nan, 10.0, 20.0, math.inf], np.float32)
    scan = new("sensor_msgs/msg/LaserScan", header=header, angle_min=-0.3,
               angle_max=0.3, angle_increment=0.1, time_increment=0.0, scan_time=0.1,
               range_min=0.1, range_max=10.0, ranges=ranges,
               intensities=np.arange(7, dtype=np.float32))
    ros_type = "sensor_msgs/msg/LaserScan"
    translation = translation_for(ros_type, "/scan", types)
    assert translation is not None
    ((payload, _),) = translate(translation, ros_type,
                                types.decode(ros_type, types.encode(ros_type, scan)), "r")
    root = decode(encoding_for(translation.type_name), payload).root
    tenth = float(np.float32(0.1))  # the range_min ray, as float32 says it
    assert list(root.ranges) == [math.inf, tenth, 3.25, math.inf, 10.0, math.inf, math.inf]
    assert list(root.intensities) == [0, 1, 2, 3, 4, 5, 6]
    assert root.startAngle == float(np.float32(-0.3))
    points = get_converter("foxglove.laser_scan")(decode(encoding_for(translation.type_name),
                                                         payload))
    assert len(points) == 3  # the rays that returned
