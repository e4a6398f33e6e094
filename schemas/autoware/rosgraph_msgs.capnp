@0xb8c67027fbf7f99f;

# rosgraph_msgs.proto of the autoware seed (004), translated by PROTOCOL.md's rule.

using BuiltinInterfaces = import "builtin_interfaces.capnp";

# Protobuf definition of the rosgraph_msgs/msg/Clock type in ROS 2.
struct Clock {
  clock @0 :BuiltinInterfaces.Time;
}
