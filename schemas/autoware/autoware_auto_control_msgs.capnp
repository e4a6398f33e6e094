@0xc3210326cab89535;

# autoware_auto_control_msgs.proto of the autoware seed (004), translated by PROTOCOL.md's rule.

using BuiltinInterfaces = import "builtin_interfaces.capnp";

struct AckermannControlCommand {
  stamp @0 :BuiltinInterfaces.Time;
  lateral @1 :AckermannLateralCommand;
  longitudinal @2 :LongitudinalCommand;
}

struct AckermannLateralCommand {
  stamp @0 :BuiltinInterfaces.Time;
  steeringTireAngle @1 :Float32;
  steeringTireRotationRate @2 :Float32;
}

struct LongitudinalCommand {
  stamp @0 :BuiltinInterfaces.Time;
  speed @1 :Float32;
  acceleration @2 :Float32;
  jerk @3 :Float32;
}
