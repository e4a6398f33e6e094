@0xcd16a0ef255a66af;
# bow family: the protobuf messages of seed 001_60c9e6930b4fc48b.txt, translated by
# PROTOCOL.md's rule (fields @0.. in seed order, names lowerCamelCase, nested A.B -> nested).
# Field rows split and translated by tests/schemas/seed_extract/bow.py (the manifest it checks against).

# ---- bow_data_audio.proto ----

# AudioSample contains a single packet of audio data from a single source
struct AudioSample {
  source @0 :Text;
  data @1 :Data;
  channels @2 :UInt32;
  sampleRate @3 :UInt64;
  numSamples @4 :UInt64;
  compression @5 :AudioSample.CompressionFormatEnum;
  transform @6 :Transform;
  designation @7 :StereoDesignationEnum;

  # CompressionFormatEnum lists available audio compression formats.
  enum CompressionFormatEnum {
    raw @0;
    speex @1;
  }
}

# AudioSamples contains multiple instances of audio data.
struct AudioSamples {
  samples @0 :List(AudioSample);
}

# ---- bow_data_common.proto ----

# Environment provides temperature, pressure and humidity readings.
struct Environment {
  source @0 :Text;
  type @1 :Environment.SensorTypeEnum;
  value @2 :Float32;
  transform @3 :Transform;

  enum SensorTypeEnum {
    temperature @0;
    pressure @1;
    humidity @2;
  }
}

# Float32Array is a container for an array of floating-point numbers.
struct Float32Array {
  data @0 :List(Float32);
}

# Int64Array is a container for an array of 64-bit integers.
struct Int64Array {
  data @0 :List(Int64);
}

# Quaternion contains the components of a normalised quaternion that can be used to describe a rotation.
struct Quaternion {
  quatX @0 :Float32;
  quatY @1 :Float32;
  quatZ @2 :Float32;
  quatW @3 :Float32;
}

# Transform captures a spatial point and orientation in Cartesian coordinates.
struct Transform {
  position @0 :Vector3;
  eulerAngles @1 :Vector3;
  linkName @2 :Text;
  part @3 :Text;
}

# Vector3 contains three components expected for a vector in 3D cartesian space
struct Vector3 {
  x @0 :Float32;
  y @1 :Float32;
  z @2 :Float32;
}

# The controller applied to a kinematic chain.
enum ControllerEnum {
  positionController @0;
  velocityController @1;
  torqueController @2;
}

enum ObjectiveStatusEnum {
  noObjective @0;
  planning @1;
  inProgress @2;
  collisionError @3;
  error @4;
  warning @5;
  finished @6;
}

# RelativeToEnum marks specific points on the robot for spatial reference.
enum RelativeToEnum {
  base @0;
  head @1;
  endEffector @2;
  endEffectorLeft @3;
  endEffectorRight @4;
  torso @5;
}

# StereoDesignationEnum identifies the camera's role as part of a stereo pair or a microphone's role as part of a binaural pair.
enum StereoDesignationEnum {
  none @0;
  left @1;
  right @2;
}

# ---- bow_data_exteroception.proto ----

# Compass provides the magnetic field along up to 3 axis
struct Compass {
  source @0 :Text;
  mag @1 :Vector3;
  transform @2 :Transform;
}

# Exteroception contains sensor reading related to awareness of the surrounding environment
struct ExteroceptionSample {
  lidar @0 :List(Lidar);
  range @1 :List(Range);
  imu @2 :List(IMU);
  gps @3 :GPS;
  compass @4 :Compass;
  env @5 :List(Environment);
  light @6 :List(Light);
}

# GPS captures geographic positioning data.
struct GPS {
  source @0 :Text;
  latitude @1 :Float32;
  longitude @2 :Float32;
  elevation @3 :Float32;
  time @4 :Text;
  transform @5 :Transform;
}

# IMU (Inertial Measurement Unit) captures the sensor data needed to determine an object's orientation, velocity, and gravitational forces.
struct IMU {
  source @0 :Text;
  gyro @1 :Vector3;
  acc @2 :Vector3;
  orientation @3 :Vector3;
  transform @4 :Transform;
  hasAcc @5 :Bool;
  hasGyro @6 :Bool;
}

# Lidar provides an array of range values representing the distances to objects at varying angles from a central point
struct Lidar {
  source @0 :Text;
  data @1 :List(Float32);
  dataShape @2 :List(UInt32);
  horizontalAngularResolution @3 :Float32;
  verticalAngularResolution @4 :Float32;
  horizontalStartAngle @5 :Float32;
  horizontalEndAngle @6 :Float32;
  verticalStartAngle @7 :Float32;
  verticalEndAngle @8 :Float32;
  scanDuration @9 :Int64;
  timeBetweenScans @10 :Int64;
  transform @11 :Transform;
  newDataFlag @12 :Bool;
}

# Light provides a measurement of light/brightness at the location of the sensor
struct Light {
  source @0 :Text;
  data @1 :Float32;
  min @2 :Float32;
  max @3 :Float32;
  unit @4 :Light.LightUnitEnum;
  transform @5 :Transform;

  enum LightUnitEnum {
    irradiance @0;
    illuminance @1;
    normalised @2;
  }
}

# Range provides a distance or (present/not present) signal representing the output of a range sensor
struct Range {
  source @0 :Text;
  data @1 :Float32;
  min @2 :Float32;
  max @3 :Float32;
  fov @4 :Float32;
  sensorType @5 :Range.SensorTypeEnum;
  operationType @6 :Range.OperationTypeEnum;
  transform @7 :Transform;

  # An enum defining physical mechanism used by the sensor
  enum OperationTypeEnum {
    ultrasound @0;
    infrared @1;
    mechanical @2;
    laser @3;
  }

  # An enum defining the type of range sensor
  enum SensorTypeEnum {
    distance @0;
    proximity @1;
  }
}

# ---- bow_data_interoception.proto ----

struct Battery {
  voltage @0 :Float32;
  current @1 :Float32;
  charge @2 :Float32;
  percentage @3 :Float32;
  present @4 :Bool;
  supplyStatus @5 :Battery.SupplyStatusEnum;

  enum SupplyStatusEnum {
    unknown @0;
    charging @1;
    discharging @2;
    notCharging @3;
    complete @4;
  }
}

# Interoception contains sensor readings related to the internal state of the robot
struct InteroceptionSample {
  env @0 :List(Environment);
  battery @1 :Battery;
  error @2 :List(Text);
}

# ---- bow_data_motor.proto ----

# An articulated assembly (arm, leg, gripper...) and its effectors.
struct BodyPart {
  name @0 :Text;
  type @1 :BodyPartTypeEnum;
  rootLink @2 :Text;
  effectors @3 :List(Effector);
  parent @4 :Text;
}

struct CustomOptimiser {
  optimiserMethod @0 :CustomOptimiser.OptimiserMethodEnum;
  iterations @1 :Int32;
  useEvolution @2 :Bool;

  enum OptimiserMethodEnum {
    boundedBfgs @0;
    bfgs @1;
    lbfgs @2;
    grad @3;
    cg @4;
    nm @5;
  }
}

struct Effector {
  effectorLinkName @0 :Text;
  endTransform @1 :Transform;
  rootTransform @2 :Transform;
  reach @3 :Float32;
  jointArray @4 :List(Joint);
  availableActions @5 :List(ActionEnum);
  workspace @6 :OctreeNode;
  objectives @7 :List(ObjectiveFeedback);
  isControllable @8 :Bool;
  type @9 :BodyPartTypeEnum;
}

struct GazeTarget {
  gazeVector @0 :Vector3;
  vectorType @1 :GazeTarget.TargetTypeEnum;

  enum TargetTypeEnum {
    absolute @0;
    relative @1;
  }
}

# Gripper command/configuration of a hand-like gripper (MotorSample.gripperObjective).
struct Gripper {
  gripperControlMode @0 :GripperModeEnum;
  handMapPercentage @1 :HandMapPercentage;
  handMapTransform @2 :HandMapTransform;
  jointArray @3 :List(Joint);
}

struct GripperStatus {
  gripperJointArray @0 :List(Joint);
  gripperOccupied @1 :Bool;
}

# Per-digit closure 0 (open) .. 1 (closed), in GripperModeEnum.percentageMode.
struct HandMapPercentage {
  thumb @0 :Float32;
  index @1 :Float32;
  middle @2 :Float32;
  ring @3 :Float32;
  pinky @4 :Float32;
  fingerAdduction @5 :Float32;
  thumbOpposition @6 :Float32;
}

struct HandMapTransform {
  customRef @0 :Transform;
  thumb @1 :Transform;
  index @2 :Transform;
  middle @3 :Transform;
  ring @4 :Transform;
  pinky @5 :Transform;
  targetObject @6 :Object;
}

struct IKOptimiser {
  preset @0 :IKOptimiser.OptimiserPreset;
  customSettings @1 :CustomOptimiser;

  enum OptimiserPreset {
    lowLatency @0;
    highAccuracy @1;
    balanced @2;
    custom @3;
  }
}

# One joint: read from proprioception, submitted in a MotorSample.
struct Joint {
  name @0 :Text;
  type @1 :Joint.JointTypeEnum;
  position @2 :Float32;
  velocity @3 :Float32;
  acceleration @4 :Float32;
  torque @5 :Float32;
  min @6 :Float32;
  max @7 :Float32;
  default @8 :Float32;
  temperature @9 :Float32;
  healthy @10 :Bool;
  mimic @11 :Bool;
  maxVelocity @12 :Float32;
  maxAcceleration @13 :Float32;
  maxTorque @14 :Float32;

  # JointTypeEnum designates the type of joint
  enum JointTypeEnum {
    fixed @0;
    linearPrismatic @1;
    revolute @2;
    continuous @3;
  }
}

# All the parts of a motor update in one message (locomotion velocity, objectives, gripper).
struct MotorSample {
  controlMode @0 :MotorSample.ControlModeEnum;
  locomotion @1 :VelocityTarget;
  objectives @2 :List(ObjectiveCommand);
  obstacles @3 :List(Object);
  rawJoints @4 :List(Joint);
  workspaceReceived @5 :Bool;
  ikSettings @6 :IKOptimiser;
  gazeTarget @7 :GazeTarget;
  gripperObjective @8 :Gripper;
  gaitSettings @9 :QuadGait;

  # ControlModeEnum specifies whether using direct joint control or other controller through objectives
  enum ControlModeEnum {
    useObjective @0;
    useDirectJoints @1;
  }
}

struct Object {
  name @0 :Text;
  origin @1 :Transform;
  endA @2 :Vector3;
  endB @3 :Vector3;
  radius @4 :Float32;
  ratioAB @5 :Float32;
}

struct ObjectiveCommand {
  targetEffector @0 :Text;
  targetBodyPart @1 :Text;
  controlMode @2 :ControllerEnum;
  poseTarget @3 :PoseTarget;
  velocityTarget @4 :VelocityTarget;
  torqueTarget @5 :TorqueTarget;
  enabled @6 :Bool;
  customName @7 :Text;
}

struct ObjectiveFeedback {
  status @0 :ObjectiveStatusEnum;
  controlType @1 :ControllerEnum;
  targetTransform @2 :Transform;
  currentTransform @3 :Transform;
  euclideanError @4 :Float32;
  positionError @5 :Vector3;
  orientationError @6 :Vector3;
  errorDescription @7 :Text;
}

# PositionTarget specifies a target spatial orientation and position for the tip of the end effector relative to a provided reference frame.
struct PoseTarget {
  action @0 :ActionEnum;
  targetType @1 :PoseTarget.TargetTypeEnum;
  targetScheduleType @2 :PoseTarget.SchedulerEnum;
  transform @3 :Transform;
  object @4 :Object;
  movementDurationMs @5 :Float32;
  targetAccuracy @6 :Float32;
  optimiserSettings @7 :IKOptimiser;

  enum SchedulerEnum {
    sequential @0;
    instantaneous @1;
  }

  enum TargetTypeEnum {
    transform @0;
    capsule @1;
  }
}

# ProprioceptionSample contains all the information regarding the kinematic state of the robot and relating to the robot's environment
struct ProprioceptionSample {
  parts @0 :List(BodyPart);
  effectors @1 :List(Effector);
  objects @2 :List(Object);
  rawJoints @3 :List(Joint);
  workspaceByteArray @4 :Data;
}

struct QuadGait {
  useCustomGait @0 :Bool;
  commonXTranslation @1 :Float32;
  swingHeight @2 :Float32;
  stanceDepth @3 :Float32;
  stanceDuration @4 :Float32;
  swingDuration @5 :Float32;
  nominalHeight @6 :Float32;
  gaitOrientation @7 :Vector3;
}

struct TorqueTarget {
  translationalTorque @0 :Vector3;
  rotationalTorque @1 :Vector3;
}

# Translational/rotational velocity target (MotorSample.locomotion, ObjectiveCommand).
struct VelocityTarget {
  translationalVelocity @0 :Vector3;
  rotationalVelocity @1 :Vector3;
}

# Documented without fields.
struct VelocityTargetStatus {}

# The action a PoseTarget carries out.
enum ActionEnum {
  goto @0;
  touch @1;
  point @2;
  lookAt @3;
  grasp @4;
}

enum BodyPartTypeEnum {
  root @0;
  limb @1;
  gripper @2;
  effector @3;
}

# GripperModeEnum specifies the type of control to be used by the gripper
enum GripperModeEnum {
  percentageMode @0;
  transformModeWrtWrist @1;
  transformModeWrtCapsule @2;
  transformModeWrtCustomRef @3;
  jointMode @4;
}

# ---- bow_data_octree.proto ----

# A node of the reachable-workspace octree of an effector.
struct OctreeNode {
  effectorLink @0 :Text;
  rootLink @1 :Text;
  center @2 :Point;
  minX @3 :Float32;
  maxX @4 :Float32;
  minY @5 :Float32;
  maxY @6 :Float32;
  minZ @7 :Float32;
  maxZ @8 :Float32;
  children @9 :List(OctreeNode);
  leaf @10 :Bool;
  depth @11 :Int32;
  maxDepth @12 :Int32;
  reachable @13 :Bool;
  validOctree @14 :Bool;
}

struct Point {
  x @0 :Float32;
  y @1 :Float32;
  z @2 :Float32;
}

struct Workspaces {
  workspaces @0 :List(OctreeNode);
}

# ---- bow_data.proto ----

# BlobSample provides flexible data type that can be used to define your own messages in a custom communication channel
struct BlobSample {
  bytesArray @0 :List(Data);
  intArray @1 :List(Int64);
  floatArray @2 :List(Float32);
  string @3 :Text;
  transform @4 :Transform;
}

# A recording: time-ordered samples of every kind, timestamps in Tstamp (ms).
struct Recording {
  imageSamples @0 :List(ImageSamples);
  audioSamples @1 :List(AudioSamples);
  proprioceptionSamples @2 :List(ProprioceptionSample);
  tactileSamples @3 :List(TactileSamples);
  motorSamples @4 :List(MotorSample);
  voiceSamples @5 :List(AudioSamples);
  speechSamples @6 :List(StringSample);
  exteroceptionSamples @7 :List(ExteroceptionSample);
  interoceptionSamples @8 :List(InteroceptionSample);
  octreeSamples @9 :List(OctreeNode);
  tstamp @10 :List(Int64);
}

# StringSample encapsulates a single string-based data sample.
struct StringSample {
  data @0 :Text;
}

# TimeSync enables the synchronization of clocks between devices.
struct TimeSync {
  tOrigin0 @0 :Int64;
  tReceiver @1 :Int64;
  tOrigin1 @2 :Int64;
  returnTrip @3 :Bool;
}

# ColorChannelOrder identifies the color order requested for the texture being memory mapped back the core as part of UpdateTexture.
enum ColorChannelOrder {
  rgba32 @0;
  bgra32 @1;
}

# ---- bow_data_tactile.proto ----

# TactileSample captures data about a single tactile interaction or sensor reading.
struct TactileSample {
  source @0 :Text;
  locationTag @1 :RelativeToEnum;
  data @2 :Data;
  dataShape @3 :List(UInt32);
  tactileType @4 :TactileSample.TactileTypeEnum;
  compression @5 :TactileSample.CompressionFormatEnum;
  classifiedTexture @6 :Text;
  floatData @7 :List(Float32);
  transform @8 :Transform;
  newDataFlag @9 :Bool;

  # CompressionFormatEnum lists available formats for tactile data compression.
  enum CompressionFormatEnum {
    raw @0;
  }

  # TactileTypeEnum enumerates the types of tactile interactions that can be captured.
  enum TactileTypeEnum {
    undefined @0;
    pressure @1;
    vibration @2;
    texture @3;
    forceFeedback @4;
    triaxial @5;
  }
}

# TactileSamples is a container for multiple instances of tactile data samples.
struct TactileSamples {
  samples @0 :List(TactileSample);
}

# ---- bow_data_vision.proto ----

# ImageSample contains various information related to a single image or frame.
struct ImageSample {
  source @0 :Text;
  data @1 :Data;
  dataShape @2 :List(UInt32);
  compression @3 :ImageSample.CompressionFormatEnum;
  imageType @4 :ImageSample.ImageTypeEnum;
  transform @5 :Transform;
  frameNumber @6 :UInt64;
  designation @7 :StereoDesignationEnum;
  hfov @8 :Float32;
  vfov @9 :Float32;
  newDataFlag @10 :Bool;
  min @11 :UInt32;
  max @12 :UInt32;

  # CompressionFormatEnum defines the compression currently in use for this image
  enum CompressionFormatEnum {
    h264 @0;
    vp8 @1;
    vp9 @2;
    jpg @3;
    raw @4;
    h265 @5;
  }

  # ImageTypeEnum defines the type of image or sensory data.
  enum ImageTypeEnum {
    rgb @0;
    depth @1;
    stereo @2;
    infrared @3;
  }
}

# ImageSamples holds an array of ImageSample objects, each capturing a specific image or frame at a given point in time and with a specific transform
struct ImageSamples {
  samples @0 :List(ImageSample);
}
