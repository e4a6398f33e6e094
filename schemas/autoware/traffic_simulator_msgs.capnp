@0xb17430702fbd0aad;

# traffic_simulator_msgs.proto of the autoware seed (004), translated by PROTOCOL.md's rule.

using AutowareAutoControlMsgs = import "autoware_auto_control_msgs.capnp";
using AutowareAutoVehicleMsgs = import "autoware_auto_vehicle_msgs.capnp";
using GeometryMsgs = import "geometry_msgs.capnp";

# Protobuf definition of traffic_simulator_msgs/msg/ActionStatus type in ROS 2.
struct ActionStatus {
  currentAction @0 :Text;
  twist @1 :GeometryMsgs.Twist;
  accel @2 :GeometryMsgs.Accel;
  linearJerk @3 :Float64;
}

# Protobuf definition of traffic_simulator_msgs/msg/Axle type in ROS 2.
struct Axle {
  maxSteering @0 :Float64;
  wheelDiameter @1 :Float64;
  trackWidth @2 :Float64;
  positionX @3 :Float64;
  positionZ @4 :Float64;
}

# Protobuf definition of traffic_simulator_msgs/msg/Axles type in ROS 2.
struct Axles {
  frontAxle @0 :Axle;
  rearAxle @1 :Axle;
}

# Protobuf definition of traffic_simulator_msgs/msg/BoundingBox type in ROS 2.
struct BoundingBox {
  center @0 :GeometryMsgs.Point;
  dimensions @1 :GeometryMsgs.Vector3;
}

# Protobuf definition of traffic_simulator_msgs/msg/EntityStatus type in ROS 2.
struct EntityStatus {
  type @0 :EntityType;
  subtype @1 :EntitySubtype;
  time @2 :Float64;
  name @3 :Text;
  boundingBox @4 :BoundingBox;
  actionStatus @5 :ActionStatus;
  pose @6 :GeometryMsgs.Pose;
  laneletPose @7 :LaneletPose;
  laneletPoseValid @8 :Bool;
}

# Protobuf definition of traffic_simulator_msgs/msg/EntitySubtype type in ROS 2.
struct EntitySubtype {
  value @0 :EntitySubtype.Enum;

  enum Enum {
    unknown @0;
    car @1;
    truck @2;
    bus @3;
    trailer @4;
    motorcycle @5;
    bicycle @6;
    pedestrian @7;
  }
}

struct EntityType {
  type @0 :EntityType.Enum;

  enum Enum {
    ego @0;
    vehicle @1;
    pedestrian @2;
    miscObject @3;
  }
}

# Protobuf definition of traffic_simulator_msgs/msg/LaneletPose type in ROS 2.
struct LaneletPose {
  laneletId @0 :Int64;
  s @1 :Float64;
  offset @2 :Float64;
  rpy @3 :GeometryMsgs.Vector3;
}

struct MiscObjectParameters {
  name @0 :Text;
  boundingBox @1 :BoundingBox;
}

# Protobuf definition of traffic_simulator_msgs/msg/PedestrianParameters type in ROS 2.
struct PedestrianParameters {
  name @0 :Text;
  boundingBox @1 :BoundingBox;
}

# Protobuf definition of traffic_simulator_msgs/msg/Performance type in ROS 2.
struct Performance {
  maxSpeed @0 :Float64;
  maxAcceleration @1 :Float64;
  maxAccelerationRate @2 :Float64;
  maxDeceleration @3 :Float64;
  maxDecelerationRate @4 :Float64;
}

# Protobuf definition of traffic_simulator_msgs/msg/Polyline type in ROS 2.
struct Polyline {
  vertices @0 :List(Vertex);
}

# Protobuf definition of traffic_simulator_msgs/msg/PolylineTrajectory type in ROS 2.
struct PolylineTrajectory {
  initialDistanceOffset @0 :Float64;
  dynamicConstraintsIgnorable @1 :Bool;
  baseTime @2 :Float64;
  closed @3 :Bool;
  shape @4 :Polyline;
}

# Protobuf definition of traffic_simulator_msgs/msg/Property type in ROS 2.
struct Property {}

struct VehicleCommand {
  ackermannControlCommand @0 :AutowareAutoControlMsgs.AckermannControlCommand;
  gearCommand @1 :AutowareAutoVehicleMsgs.GearCommand;
}

# Protobuf definition of traffic_simulator_msgs/msg/VehicleParameters type in ROS 2.
struct VehicleParameters {
  name @0 :Text;
  performance @1 :Performance;
  boundingBox @2 :BoundingBox;
  axles @3 :Axles;
  property @4 :Property;
}

# Protobuf definition of traffic_simulator_msgs/msg/Vertex type in ROS 2.
struct Vertex {
  time @0 :Float64;
  position @1 :GeometryMsgs.Pose;
}

# Protobuf definition of traffic_simulator_msgs/msg/Waypoints type in ROS 2.
struct Waypoints {
  waypoints @0 :List(GeometryMsgs.Point);
}
