@0xdfd90d73997ec40e;

# std_msgs.proto of the autoware seed (004), translated by PROTOCOL.md's rule.
# The seed gives this package's only message no heading; its prose names it Header.

using BuiltinInterfaces = import "builtin_interfaces.capnp";

# Protobuf definition of std_msgs::msgs::Header type in ROS 2.
struct Header {
  stamp @0 :BuiltinInterfaces.Time;
  frameId @1 :Text;
}
