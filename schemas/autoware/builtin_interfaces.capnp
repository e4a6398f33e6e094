@0x81038ec1f5a011ff;

# builtin_interfaces.proto of the autoware seed (004), translated by PROTOCOL.md's rule.

# Protobuf definition of builtin_interface/msg/Duration type in ROS 2.
struct Duration {
  sec @0 :Int32;
  nanosec @1 :UInt32;
}

# Protobuf definition of builtin_interface/msg/Time type in ROS 2.
struct Time {
  sec @0 :Int32;
  nanosec @1 :UInt32;
}
