"""ROS 2 robots on rmw_zenoh: graph, keys and CDR."""
