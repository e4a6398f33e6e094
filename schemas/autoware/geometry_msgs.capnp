@0xa250380e74befa5c;

# geometry_msgs.proto of the autoware seed (004), translated by PROTOCOL.md's rule.

# Protobuf definition of geometry_msgs/msg/Accel type in ROS 2.
struct Accel {
  linear @0 :Vector3;
  angular @1 :Vector3;
}

# Protobuf definition of geometry_msgs/msg/Point type in ROS 2.
struct Point {
  x @0 :Float64;
  y @1 :Float64;
  z @2 :Float64;
}

# Protobuf definition of geometry_msgs/msg/Pose type in ROS 2.
struct Pose {
  position @0 :Point;
  orientation @1 :Quaternion;
}

# Protobuf definition of geometry_msgs/msg/Quaternion type in ROS 2.
struct Quaternion {
  x @0 :Float64;
  y @1 :Float64;
  z @2 :Float64;
  w @3 :Float64;
}

# Protobuf definition of geometry_msgs/msg/Twist type in ROS 2.
struct Twist {
  linear @0 :Vector3;
  angular @1 :Vector3;
}

# Protobuf definition of geometry_msgs/msg/Vector3 type in ROS 2.
struct Vector3 {
  x @0 :Float64;
  y @1 :Float64;
  z @2 :Float64;
}
