@0xa24d5c8e31f07b96;
# Fleet family (seed 002): robot-to-cloud fleet protocol common types, as documented
# in the seed's capnp (names and ordinals verbatim), plus the table-only enums numbered
# by PROTOCOL.md ("Fleet enums documented only as tables"), then the Uplink / Command
# envelopes of PROTOCOL.md "Keys".

# ---------------------------------------------------------------------------
# Geometric primitives
# ---------------------------------------------------------------------------

# Planar point (local frame).
struct Point2 {
  x @0 :Float64;
  y @1 :Float64;
}

# Geographic point, decimal degrees.
struct GeoPoint2 {
  lon @0 :Float64;  # decimal degrees
  lat @1 :Float64;  # decimal degrees
}

# 3D point (local frame).
struct Point3 {
  x @0 :Float64;
  y @1 :Float64;
  z @2 :Float64;
}

# Quaternion.
struct Quat {
  qx @0 :Float64;
  qy @1 :Float64;
  qz @2 :Float64;
  qw @3 :Float64;
}

# Geodetic pose: where the robot (or a target) is, in world coordinates.
struct Pose {
  latDeg @0 :Float64;      # decimal degrees
  lonDeg @1 :Float64;      # decimal degrees
  altitudeM @2 :Float64;   # HAE: meters above ellipsoid
  headingDeg @3 :Float64;  # 0 = north, clockwise
}

# Local-frame pose: position + orientation quaternion.
struct Pose3 {
  x @0 :Float64;
  y @1 :Float64;
  z @2 :Float64;
  qx @3 :Float64;
  qy @4 :Float64;
  qz @5 :Float64;
  qw @6 :Float64;
}

# Body-frame velocity.
struct VelTwist {
  linearMps @0 :Float32;   # m/s
  angularRps @1 :Float32;  # rad/s
}

# Course-over-ground velocity vector (used for tracked objects).
struct Trajectory {
  speedMps @0 :Float64;         # m/s
  courseDeg @1 :Float64;        # degrees, 0 = north (direction of travel)
  verticalRateMps @2 :Float64;  # m/s, positive = ascending
}

# ---------------------------------------------------------------------------
# Values and settings
# ---------------------------------------------------------------------------

# Tagged scalar used for settings and sensor readings.
struct Value {
  union {
    string @0 :Text;
    int @1 :Int32;
    number @2 :Float64;
    bool @3 :Bool;
    enum @4 :Text;  # the selected option, as a bare string
  }
}

# UI <-> Robot: user changing a setting (always a patch).
struct SettingUpdate {
  key @0 :Text;
  value @1 :Value;
}

# ---------------------------------------------------------------------------
# Asset identity, spatial features
# ---------------------------------------------------------------------------

# Identity of a reusable spatial asset (shape or route).
struct AssetIdentity {
  id @0 :Text;     # persistent id of the shape or route
  name @1 :Text;   # display/debug only
  rev @2 :UInt32;  # 0 = not provided
  hash @3 :Text;   # empty = not provided
}

# Union of geometry types.
struct ShapeData {
  union {
    point @0 :GeoPoint2;
    multiPoint @1 :List(GeoPoint2);
    lineString @2 :List(GeoPoint2);
    multiLineString @3 :List(List(GeoPoint2));
    polygon @4 :PolygonData;
    multiPolygon @5 :List(PolygonData);
  }
}

# Polygon with exterior ring and holes.
struct PolygonData {
  exterior @0 :List(GeoPoint2);
  holes @1 :List(List(GeoPoint2));
}

# User-defined / server-to-robot spatial area.
struct Shape {
  identity @0 :AssetIdentity;
  data @1 :ShapeData;
  areaType @2 :LayerRole;
  scope @3 :ScopeType;
  minZM @4 :Float64;  # m, optional height rule
  maxZM @5 :Float64;  # m, optional height rule
  levelId @6 :Int32;  # for multi-storey sites
}

# Union of route types.
struct RouteData {
  union {
    waypoint @0 :Pose;
    multiWaypoint @1 :List(Pose);
    path @2 :List(Pose);
    multiPath @3 :List(List(Pose));
  }
}

# Route of waypoints / paths.
struct Route {
  identity @0 :AssetIdentity;
  data @1 :RouteData;
  areaType @2 :LayerRole;
  scope @3 :ScopeType;
  featureType @4 :Text;
  hasFeatureType @5 :Bool;
}

# A Shape or Route, used inline in MissionCommand and FeatureOp.
struct SpatialFeature {
  union {
    shape @0 :Shape;
    route @1 :Route;
  }
}

# Robot-reported spatial area (uses ReportedLayerRole, has expiry).
struct ReportedShape {
  identity @0 :AssetIdentity;
  data @1 :ShapeData;
  areaType @2 :ReportedLayerRole;
  scope @3 :ScopeType;
  expireTimeMs @4 :Int64;  # unix ms
  minZM @5 :Float64;       # m
  maxZM @6 :Float64;       # m
  levelId @7 :Int32;       # for multi-storey sites
}

# Persistent zone (geometry + active rules) sent from fleet to robot ("Field rule").
struct SpatialDirective {
  directiveId @0 :Text;    # UUID, given by fleet manager
  name @1 :Text;           # display name
  startTimeMs @2 :Int64;   # unix ms
  expireTimeMs @3 :Int64;  # unix ms
  hasExpireTimeMs @4 :Bool;
  zoneParameters @5 :List(SettingUpdate);
  capabilities @6 :List(Text);  # services/features to apply in or on this zone
  spatial @7 :SpatialFeature;
}

# Tracked entity in the world (time fields in unix ms).
struct Object {
  id @0 :Text;
  name @1 :Text;
  unixTimeMs @2 :Int64;
  expiresUnixTimeMs @3 :Int64;
  scope @4 :ScopeType;
  objectType @5 :ObjectType;
  location @6 :Pose;
  trajectory @7 :Trajectory;
  radiusM @8 :Float64;  # m
}

# ---------------------------------------------------------------------------
# Operation wrappers (upsert / delete)
# ---------------------------------------------------------------------------

# Server -> robot: a bare spatial primitive (Shape or Route).
struct FeatureOp {
  union {
    upsert @0 :SpatialFeature;
    delete @1 :Text;  # id to delete
  }
}

# Server -> robot: a SpatialDirective.
struct SpatialDirectiveOp {
  union {
    upsert @0 :SpatialDirective;
    delete @1 :Text;  # id to delete
  }
}

# Both directions: a tracked Object.
struct ObjectOp {
  union {
    upsert @0 :Object;
    delete @1 :Text;  # id to delete
  }
}

# Robot -> server: a reported shape.
struct ReportedShapeOp {
  union {
    upsert @0 :ReportedShape;
    delete @1 :Text;  # id to delete
  }
}

# ---------------------------------------------------------------------------
# Enumerations (table-only enums numbered in table row order, PROTOCOL.md)
# ---------------------------------------------------------------------------

# How a message is propagated through the fleet.
enum ScopeType { robot @0; fleet @1; world @2; user @3; }

# Active operating mode (e-stop and faults are reported separately).
enum RobotMode { manual @0; auto @1; teleop @2; idle @3; }

# Lifecycle state of a mission run.
enum MissionStatus {
  unknown @0; ready @1; starting @2; running @3; paused @4;
  blocked @5; aborted @6; complete @7; error @8;
}

# GNSS fix status.
enum GpsFixType {
  unknown @0; invalid @1; gps @2; dgps @3; sbas @4; floatRtk @5; fixedRtk @6; pps @7;
}

# Origin of the GPS fix.
enum GpsSource { real @0; simulated @1; estimated @2; }

# Severity of a Fault.
enum FaultSeverity { info @0; minor @1; major @2; critical @3; }

# Level of a RobotMessage.
enum MessageLevel { info @0; warn @1; error @2; }

# Battery state (seed capnp).
enum PowerSupplyStatus { unknown @0; charging @1; discharging @2; notCharging @3; full @4; }

# Battery health (seed capnp).
enum PowerSupplyHealth {
  unknown @0; good @1; overheat @2; dead @3; overvoltage @4;
  unspecifiedFailure @5; cold @6; watchdogTimerExpire @7; safetyTimerExpire @8;
}

# Battery chemistry (seed capnp).
enum PowerSupplyTechnology { unknown @0; niMH @1; liIon @2; liPo @3; liFe @4; niCd @5; liMn @6; }

# Kind of tracked object (grouped table, row order).
enum ObjectType {
  person @0; animal @1; vehicle @2; robot @3; structure @4; equipment @5;
  obstacle @6; debris @7; hazard @8; marker @9; pointOfInterest @10; unknown @11;
}

# Intent (0-8, server -> robot) + state (10-16, robot -> server) roles of a Shape/Route.
enum LayerRole {
  allowedArea @0; preferred @1; keepout @2; softExclusion @3; workArea @4;
  target @5; queue @6; controlZone @7; triggerZone @8;
  unused9 @9;  # placeholder, never sent (PROTOCOL.md)
  coverage @10; occupied @11; reserved @12; consumed @13; hazard @14;
  blocked @15; plannedPath @16;
}

# State-only subset of LayerRole used by ReportedShape; its own numbering.
enum ReportedLayerRole {
  coverage @0; occupied @1; reserved @2; consumed @3; hazard @4; blocked @5; plannedPath @6;
}

# When a MissionCapability fires / is active during a mission step.
enum CapabilityTiming {
  immediateTrigger @0; atTargetTrigger @1; duringStep @2; duringFeature @3; finalTrigger @4;
}

# Who is responsible for a trigger / schedule.
enum TriggerSource { server @0; agent @1; robot @2; }

# How a value is entered/displayed.
enum ValueType { string @0; int @1; number @2; bool @3; enum @4; }

# How to display a control (and what message it sends).
enum CapabilityType {
  trigger @0;      # button, one-shot
  setBool @1;      # two linked buttons (on / off)
  missionType @2;  # no button; a mission type the robot can do
}

# Confirmation styling for a control.
enum DangerLevel {
  normal @0;    # regular styling
  warning @1;   # yellow, requires confirmation
  critical @2;  # red, may require typing "CONFIRM"
}

# How to render a sensor reading.
enum DisplayHint {
  none @0; onOff @1; gauge @2; text @3; online @4; warningLight @5;
  temperature @6; progress @7;
}

# Minimum role required to use a service.
enum Role { viewer @0; operator @1; admin @2; owner @3; }

# ===========================================================================
# Envelopes (PROTOCOL.md "Keys"; not in the seed's common-types page)
# ===========================================================================

# Robot -> app envelope, key fleet/<robotId>/uplink/<segment>.
struct Uplink {
  robotId @0 :Text;
  unixTimeMs @1 :Int64;  # unix ms
  union {
    status @2 :StatusTelemetry;
    motion @3 :MotionTelemetry;
    battery @4 :BatteryStatus;
    fault @5 :Fault;
    mission @6 :MissionFeedback;
    object @7 :ObjectOp;
    reportedShape @8 :ReportedShapeOp;
    capabilities @9 :UiCapabilities;
    message @10 :RobotMessage;
  }
}

# Robot operating state.
struct StatusTelemetry {
  mode @0 :RobotMode;
  estop @1 :Bool;
  estopReason @2 :Text;
  uptimeS @3 :Float64;        # s
  lastCommandSeq @4 :UInt64;
  activeMissionId @5 :Text;
  hasActiveMission @6 :Bool;
}

# Robot position and velocity.
struct MotionTelemetry {
  pose @0 :Pose;
  hasPose @1 :Bool;
  localPose @2 :Pose3;
  hasLocalPose @3 :Bool;
  velocity @4 :VelTwist;
  gpsFixType @5 :GpsFixType;
  gpsSource @6 :GpsSource;
  localFrameId @7 :Text;
}

# Battery / power supply state.
struct BatteryStatus {
  percentage @0 :Float32;    # 0..100
  voltageV @1 :Float32;      # V
  currentA @2 :Float32;      # A, negative = discharging
  temperatureC @3 :Float32;  # degC
  status @4 :PowerSupplyStatus;
  health @5 :PowerSupplyHealth;
  technology @6 :PowerSupplyTechnology;
  runtimeRemainingS @7 :Float64;  # s
  hasRuntimeRemainingS @8 :Bool;
}

# A raised (or cleared) fault condition.
struct Fault {
  code @0 :Text;
  severity @1 :FaultSeverity;
  message @2 :Text;
  active @3 :Bool;
  source @4 :Text;
  raisedUnixTimeMs @5 :Int64;  # unix ms
}

# Progress of the current mission run.
struct MissionFeedback {
  missionId @0 :Text;
  name @1 :Text;
  status @2 :MissionStatus;
  stepIndex @3 :UInt32;
  stepCount @4 :UInt32;
  progress @5 :Float32;  # 0..1
  target @6 :Pose;
  hasTarget @7 :Bool;
  message @8 :Text;
}

# What the operator UI can show / control for this robot.
struct UiCapabilities {
  services @0 :List(ServiceCapability);
  sensors @1 :List(SensorCapability);
  settings @2 :List(SettingCapability);
}

# A callable robot service (button) in the UI.
struct ServiceCapability {
  name @0 :Text;
  label @1 :Text;
  type @2 :CapabilityType;
  dangerLevel @3 :DangerLevel;
  minRole @4 :Role;
  description @5 :Text;
  state @6 :Bool;
}

# A sensor reading shown in the UI.
struct SensorCapability {
  key @0 :Text;
  label @1 :Text;
  hint @2 :DisplayHint;
  value @3 :Value;
  unit @4 :Text;
  min @5 :Float64;
  max @6 :Float64;
}

# A robot setting editable in the UI (changed via SettingUpdate).
struct SettingCapability {
  key @0 :Text;
  label @1 :Text;
  valueType @2 :ValueType;
  value @3 :Value;
  options @4 :List(Text);
  min @5 :Float64;
  max @6 :Float64;
  minRole @7 :Role;
  description @8 :Text;
}

# Free-text message from the robot to the operator.
struct RobotMessage {
  level @0 :MessageLevel;
  text @1 :Text;
}

# App -> robot envelope, key fleet/<robotId>/command/<segment>.
struct Command {
  robotId @0 :Text;
  unixTimeMs @1 :Int64;  # unix ms
  seq @2 :UInt64;
  union {
    teleop @3 :VelTwist;
    goTo @4 :GoTo;
    estop @5 :EStop;
    mission @6 :MissionCommand;
    feature @7 :FeatureOp;
    spatialDirective @8 :SpatialDirectiveOp;
    object @9 :ObjectOp;
    setting @10 :SettingUpdate;
    service @11 :ServiceCall;
  }
  issuer @12 :Text;  # the sending station's id (schemas/README.md, "Command authority")
}

# Navigate to a geodetic or local target.
struct GoTo {
  union {
    pose @0 :Pose;
    pose3 @1 :Pose3;
  }
  speedMps @2 :Float32;  # m/s, 0 = robot default
}

# Engage (or, with engage = false, release) the emergency stop.
struct EStop {
  engage @0 :Bool;
  reason @1 :Text;
}

# One-shot mission order.
struct MissionCommand {
  missionId @0 :Text;
  name @1 :Text;
  action @2 :MissionAction;
  steps @3 :List(MissionStep);
}

# What a MissionCommand asks the robot to do.
enum MissionAction { start @0; pause @1; resume @2; abort @3; }

# One step of a mission: a feature plus capabilities to apply.
struct MissionStep {
  feature @0 :SpatialFeature;
  capabilities @1 :List(MissionCapability);
}

# A capability fired / active during a mission step.
struct MissionCapability {
  name @0 :Text;
  timing @1 :CapabilityTiming;
  source @2 :TriggerSource;
  value @3 :Value;
}

# Call a robot service by name.
struct ServiceCall {
  name @0 :Text;
  union {
    trigger @1 :Void;
    setBool @2 :Bool;
  }
}
