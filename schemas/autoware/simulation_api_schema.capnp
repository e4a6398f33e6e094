@0x9d4b3e9a8aa37cd9;

# simulation_api_schema.proto of the autoware seed (004), translated by PROTOCOL.md's rule.

using BuiltinInterfaces = import "builtin_interfaces.capnp";
using GeometryMsgs = import "geometry_msgs.capnp";
using TrafficSimulatorMsgs = import "traffic_simulator_msgs.capnp";

# Requests attaching detection sensor to the target entity.
struct AttachDetectionSensorRequest {
  configuration @0 :DetectionSensorConfiguration;
}

# Response of attaching detection sensor to the target entity.
struct AttachDetectionSensorResponse {
  result @0 :Result;
}

# Requests attaching a imu sensor to the target entity.
struct AttachImuSensorRequest {
  configuration @0 :ImuSensorConfiguration;
}

# Requests attaching a imu sensor to the target entity.
struct AttachImuSensorResponse {
  result @0 :Result;
}

# Requests attaching a lidar sensor to the target entity.
struct AttachLidarSensorRequest {
  configuration @0 :LidarConfiguration;
}

# Response of attaching a lidar sensor to the target entity.
struct AttachLidarSensorResponse {
  result @0 :Result;
}

# Requests attaching detection sensor to the target entity.
struct AttachOccupancyGridSensorRequest {
  configuration @0 :OccupancyGridSensorConfiguration;
}

# Response of attaching occupancy grid sensor to the target entity.
struct AttachOccupancyGridSensorResponse {
  result @0 :Result;
}

# Requests attaching a traffic light detector emulator.
struct AttachPseudoTrafficLightDetectorRequest {
  configuration @0 :PseudoTrafficLightDetectorConfiguration;
}

# Response of attaching a traffic light detector emulator.
struct AttachPseudoTrafficLightDetectorResponse {
  result @0 :Result;
}

# Requests despawning entity.
struct DespawnEntityRequest {
  name @0 :Text;
}

# Response of despawning entity.
struct DespawnEntityResponse {
  result @0 :Result;
}

# Parameter configuration of the detection sensor
struct DetectionSensorConfiguration {
  entity @0 :Text;
  updateDuration @1 :Float64;
  range @2 :Float64;
  architectureType @3 :Text;
  detectAllObjectsInRange @4 :Bool;
  posNoiseStddev @5 :Float64;
  randomSeed @6 :Int32;
  probabilityOfLost @7 :Float64;
  objectRecognitionDelay @8 :Float64;
  objectRecognitionGroundTruthDelay @9 :Float64;
}

# Entity status passed over the protobuf interface
struct EntityStatus {
  type @0 :TrafficSimulatorMsgs.EntityType;
  subtype @1 :TrafficSimulatorMsgs.EntitySubtype;
  time @2 :Float64;
  name @3 :Text;
  actionStatus @4 :TrafficSimulatorMsgs.ActionStatus;
  pose @5 :GeometryMsgs.Pose;
}

# Parameter configuration of the imu sensor
struct ImuSensorConfiguration {
  entity @0 :Text;
  frameId @1 :Text;
  addGravity @2 :Bool;
  useSeed @3 :Bool;
  seed @4 :Int32;
  noiseStandardDeviationOrientation @5 :Float64;
  noiseStandardDeviationTwist @6 :Float64;
  noiseStandardDeviationAcceleration @7 :Float64;
}

# Requests initializing simulation.
struct InitializeRequest {
  realtimeFactor @0 :Float64;
  stepTime @1 :Float64;
  initializeTime @2 :Float64;
  initializeRosTime @3 :BuiltinInterfaces.Time;
  lanelet2MapPath @4 :Text;
}

# Result of initializing simulation.
struct InitializeResponse {
  result @0 :Result;
}

# Parameter configuration of the lidar sensor
struct LidarConfiguration {
  entity @0 :Text;
  horizontalResolution @1 :Float64;
  verticalAngles @2 :List(Float64);
  scanDuration @3 :Float64;
  architectureType @4 :Text;
  lidarSensorDelay @5 :Float64;
}

# Parameter configuration of the occupancy grid sensor
struct OccupancyGridSensorConfiguration {
  entity @0 :Text;
  updateDuration @1 :Float64;
  resolution @2 :Float64;
  width @3 :UInt32;
  height @4 :UInt32;
  architectureType @5 :Text;
  range @6 :Float64;
  filterByRange @7 :Bool;
}

# Parameter configuration of the traffic light detector emulator
struct PseudoTrafficLightDetectorConfiguration {
  architectureType @0 :Text;
}

# Result of the request
struct Result {
  success @0 :Bool;
  description @1 :Text;
}

# Universal message for Request
struct SimulationRequest {
  initialize @0 :InitializeRequest;
  updateFrame @1 :UpdateFrameRequest;
  spawnVehicleEntity @2 :SpawnVehicleEntityRequest;
  spawnPedestrianEntity @3 :SpawnPedestrianEntityRequest;
  spawnMiscObjectEntity @4 :SpawnMiscObjectEntityRequest;
  despawnEntity @5 :DespawnEntityRequest;
  updateEntityStatus @6 :UpdateEntityStatusRequest;
  attachLidarSensor @7 :AttachLidarSensorRequest;
  attachDetectionSensor @8 :AttachDetectionSensorRequest;
  attachOccupancyGridSensor @9 :AttachOccupancyGridSensorRequest;
  updateTrafficLights @10 :UpdateTrafficLightsRequest;
  attachPseudoTrafficLightDetector @11 :AttachPseudoTrafficLightDetectorRequest;
  updateStepTime @12 :UpdateStepTimeRequest;
  attachImuSensor @13 :AttachImuSensorRequest;
}

# Universal message for Response
struct SimulationResponse {
  initialize @0 :InitializeResponse;
  updateFrame @1 :UpdateFrameResponse;
  spawnVehicleEntity @2 :SpawnVehicleEntityResponse;
  spawnPedestrianEntity @3 :SpawnPedestrianEntityResponse;
  spawnMiscObjectEntity @4 :SpawnMiscObjectEntityResponse;
  despawnEntity @5 :DespawnEntityResponse;
  updateEntityStatus @6 :UpdateEntityStatusResponse;
  attachLidarSensor @7 :AttachLidarSensorResponse;
  attachDetectionSensor @8 :AttachDetectionSensorResponse;
  attachOccupancyGridSensor @9 :AttachOccupancyGridSensorResponse;
  updateTrafficLights @10 :UpdateTrafficLightsResponse;
  attachPseudoTrafficLightDetector @11 :AttachPseudoTrafficLightDetectorResponse;
  updateStepTime @12 :UpdateStepTimeResponse;
  attachImuSensor @13 :AttachImuSensorResponse;
}

# Requests spawning misc object entity
struct SpawnMiscObjectEntityRequest {
  parameters @0 :TrafficSimulatorMsgs.MiscObjectParameters;
  assetKey @1 :Text;
  pose @2 :GeometryMsgs.Pose;
}

# Response of spawning misc object entity
struct SpawnMiscObjectEntityResponse {
  result @0 :Result;
}

# Requests spawning pedestrian entity.
struct SpawnPedestrianEntityRequest {
  parameters @0 :TrafficSimulatorMsgs.PedestrianParameters;
  assetKey @1 :Text;
  pose @2 :GeometryMsgs.Pose;
}

# Response of spawning vehicle entity.
struct SpawnPedestrianEntityResponse {
  result @0 :Result;
}

# Requests spawning vehicle entity.
struct SpawnVehicleEntityRequest {
  parameters @0 :TrafficSimulatorMsgs.VehicleParameters;
  isEgo @1 :Bool;
  assetKey @2 :Text;
  pose @3 :GeometryMsgs.Pose;
  initialSpeed @4 :Float64;
}

# Response of spawning vehicle entity.
struct SpawnVehicleEntityResponse {
  result @0 :Result;
}

struct TrafficLight {
  color @0 :TrafficLight.Color;
  shape @1 :TrafficLight.Shape;
  status @2 :TrafficLight.Status;
  confidence @3 :Float32;

  enum Color {
    red @0;
    amber @1;
    green @2;
    white @3;
    unknownColor @4;
  }

  enum Shape {
    circle @0;
    leftArrow @1;
    rightArrow @2;
    upArrow @3;
    upLeftArrow @4;
    upRightArrow @5;
    downArrow @6;
    downLeftArrow @7;
    downRightArrow @8;
    cross @9;
    unknownShape @10;
  }

  enum Status {
    solidOff @0;
    solidOn @1;
    flashing @2;
    unknownStatus @3;
  }
}

struct TrafficSignal {
  id @0 :Int32;
  trafficLightStatus @1 :List(TrafficLight);
}

# Requests updating entity status.
struct UpdateEntityStatusRequest {
  status @0 :List(EntityStatus);
  npcLogicStarted @1 :Bool;
  overwriteEgoStatus @2 :Bool;
}

# Response of updating entity status.
struct UpdateEntityStatusResponse {
  result @0 :Result;
  status @1 :List(UpdatedEntityStatus);
}

# Requests updating simulation frame.
struct UpdateFrameRequest {
  currentSimulationTime @0 :Float64;
  currentScenarioTime @1 :Float64;
  currentRosTime @2 :BuiltinInterfaces.Time;
}

# Response of updating simulation frame.
struct UpdateFrameResponse {
  result @0 :Result;
}

# Requests updating simulation step time.
struct UpdateStepTimeRequest {
  simulationStepTime @0 :Float64;
}

# Response of updating simulation step time.
struct UpdateStepTimeResponse {
  result @0 :Result;
}

# Requests updating traffic lights in simulation.
struct UpdateTrafficLightsRequest {
  states @0 :List(TrafficSignal);
}

# Response of updating traffic lights in simulation.
struct UpdateTrafficLightsResponse {
  result @0 :Result;
}

# Updated entity status by the simulator.
struct UpdatedEntityStatus {
  name @0 :Text;
  actionStatus @1 :TrafficSimulatorMsgs.ActionStatus;
  pose @2 :GeometryMsgs.Pose;
}
