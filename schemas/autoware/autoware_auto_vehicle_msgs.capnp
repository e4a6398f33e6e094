@0xe363bf7c57ba3299;

# autoware_auto_vehicle_msgs.proto of the autoware seed (004), translated by PROTOCOL.md's rule.

using BuiltinInterfaces = import "builtin_interfaces.capnp";

struct GearCommand {
  stamp @0 :BuiltinInterfaces.Time;
  command @1 :GearCommandConstants;
}

enum GearCommandConstants {
  none @0;
  neutral @1;
  drive @2;
  drive2 @3;
  drive3 @4;
  drive4 @5;
  drive5 @6;
  drive6 @7;
  drive7 @8;
  drive8 @9;
  drive9 @10;
  drive10 @11;
  drive11 @12;
  drive12 @13;
  drive13 @14;
  drive14 @15;
  drive15 @16;
  drive16 @17;
  drive17 @18;
  drive18 @19;
  reverse @20;
  reverse2 @21;
  park @22;
  low @23;
  low2 @24;
}
