@0xe93c5ede7bc2badc;

# Isaac SDK message catalogue (seed 000_fc6f2afadf2cf049.txt), as documented:
# names, field ordinals and enum numbers are the seed's own. Buffers referenced by
# dataBufferIndex travel in the zenoh attachment as transport.Buffers (PROTOCOL.md).

# ---- actor_group ----

# A message to request creation and destruction of actors in simulator
struct ActorGroupProto {
  # A request to spawn a new actor
  struct SpawnRequest {
    name @0 :Text;
    prefab @1 :Text;
    pose @2 :Pose3dProto;
  }
  spawnRequests @0 :List(SpawnRequest);
  destroyRequests @1 :List(Text);
}

# A message as response to ActorGroupProto, listing current actors in the scene.
struct ActorGroupStatusProto {
  actors @0 :List(Text);
  spawnedActors @1 :List(Text);
  destroyedActors @2 :List(Text);
}

# ---- alice ----

# Header for logging messages
struct LogMessageProto {
  acqtime @0 :Int64;
  pubtime @1 :Int64;
  contentsUuid @2 :UuidProto;
}

# An index containing all message channels in a log
struct MessageChannelIndexProto {
  struct MessageChannel {
    componentUuid @0 :UuidProto;
    tag @1 :Text;
    seriesUuid @2 :UuidProto;
  }
  channels @0 :List(MessageChannel);
}

# A message header which is sent together with the actual message.
struct MessageHeaderProto {
  uuid @0 :UuidProto;
  proto @1 :Int64;
  channel @2 :Text;
  acqtime @3 :Int64;
  pubtime @4 :Int64;
  messageLength @5 :UInt32;
  segmentLengths @6 :List(UInt32);
}

# Information about the pose relation between two coordinate frames.
struct PoseTreeEdgeProto {
  lhs @0 :Text;
  rhs @1 :Text;
  pose @2 :Pose3dProto;
}

# A small header for every package we send over a UDP socket.
struct UdpPackageHeaderProto {
  uuid @0 :UuidProto;
  messageLength @1 :UInt32;
  packageIndex @2 :UInt16;
}

# ---- audio_data ----

# Message containing input to the audio playback module
struct AudioDataProto {
  sampleRate @0 :UInt32;
  numChannels @1 :UInt8;
}

# ---- audio_file_playback ----

# Notifies the audio file loader module the file to play
struct AudioFilePlaybackProto {
  fileIndex @0 :UInt8;
}

# ---- basic ----

# A Boolean value that may represent any flag
struct BooleanProto {
  flag @0 :Bool;
}

# ---- camera ----

# deprecated: Use ImageProto instead. An image published by a color (or grayscale) camera
struct ColorCameraProto {
  image @0 :ImageProto;
  # The choices available for color space
  enum ColorSpace {
    grayscale @0;
    rgb @1;
    bgr @2;
    yuv @3;
    rgba @4;
  }
  colorSpace @1 :ColorSpace;
  pinhole @2 :PinholeProto;
  distortion @3 :DistortionProto;
}

# Distortion parameters for a camera image
struct DistortionProto {
  # The choices available for the distortion model
  enum DistortionModel {
    brown @0;
    fisheye @1;
  }
  model @0 :DistortionModel;
  coefficients @1 :VectorXdProto;
}

# Intrinsic camera parameters
struct CameraIntrinsicsProto {
  pinhole @0 :PinholeProto;
  distortion @1 :DistortionProto;
}

# deprecated: Use ImageProto instead. Depth information for an image
struct DepthCameraProto {
  depthImage @0 :ImageProto;
  minDepth @1 :Float32;
  maxDepth @2 :Float32;
  pinhole @3 :PinholeProto;
}

# Disparity information for an image
struct DisparityCameraProto {
  disparityImage @0 :ImageProto;
  minimumDisparity @1 :Float32;
  maximumDisparity @2 :Float32;
  cameraBaseline @3 :Float32;
  pinhole @4 :PinholeProto;
}

# Pinhole camera model parameters
struct PinholeProto {
  rows @0 :Int16;
  cols @1 :Int16;
  focal @2 :Vector2dProto;
  center @3 :Vector2dProto;
}

# deprecated: Use ImageProto instead. Pixel-wise class label and instance segmentations for an image
struct SegmentationCameraProto {
  # A label used to enumerate all labels in the `labels` field below
  struct Label {
    index @0 :UInt8;
    name @1 :Text;
  }
  labelImage @0 :ImageProto;
  labels @1 :List(Label);
  instanceImage @2 :ImageProto;
  pinhole @3 :PinholeProto;
}

# ---- chat_message ----

# A chat message
struct ChatMessageProto {
  user @0 :Text;
  channel @1 :Text;
  text @2 :Text;
}

# ---- collision ----

# A collision event information
struct CollisionProto {
  thisName @0 :Text;
  otherName @1 :Text;
  thisPose @2 :Pose3dProto;
  otherPose @3 :Pose3dProto;
  contactPoint @4 :Vector3dProto;
  contactNormal @5 :Vector3dProto;
  velocity @6 :Vector3dProto;
}

# ---- composite ----

# A type containing measurable quantities for a bag of entities.
struct CompositeProto {
  # Describes the unit or type which was used to measure a value.
  enum Measure {
    none @0;
    time @1;
    mass @2;
    position @3;
    speed @4;
    acceleration @5;
    rotation @6;
    angularSpeed @7;
    angularAcceleration @8;
    normal @9;
    color @10;
  }
  # Meta data for a value describing its semantic meaning
  struct Quantity {
    entity @0 :Text;
    elementType @1 :ElementType;
    measure @2 :Measure;
    dimensions @3 :VectorXiProto;
  }
  quantities @0 :List(Quantity);
  schemaHash @1 :Text;
  values @2 :TensorProto;
}

# ---- detections ----

# A message to contain the evaluation results of an object detection algorithm.
struct ConfusionMatrixProto {
  numSamples @0 :Int64;
  thresholds @1 :List(Float64);
  confusionMatrices @2 :TensorProto;
}

# A message containing detections made by sensor(s), in the 2D image space
struct Detections2Proto {
  predictions @0 :List(PredictionProto);
  boundingBoxes @1 :List(RectangleProto);
  poses @2 :List(Pose2dProto);
}

# A message containing detections made by sensor(s), in the 3D space
struct Detections3Proto {
  predictions @0 :List(PredictionProto);
  boundingBoxes @2 :List(BoxProto);
  poses @1 :List(Pose3dProto);
}

# A prediction gives a class name with a confidence level from 0 to 1
struct PredictionProto {
  label @0 :Text;
  confidence @1 :Float64;
}

# Defines a list of Skeleton2Proto messages.
struct Skeleton2ListProto {
  skeletons @0 :List(Skeleton2Proto);
}

# Defines a skeleton with 2D joint locations.
struct Skeleton2Proto {
  graph @0 :GraphProto;
  # Information about a joint in the skeleton
  struct Joint2Proto {
    position @0 :Vector2dProto;
    label @1 :PredictionProto;
  }
  joints @1 :List(Joint2Proto);
  label @2 :PredictionProto;
}

# ---- differential_base ----

# Describes how an entity is moving through space in a local diverging coordinate frame.
struct DifferentialState {
  positionX @0 :Float64;
  positionY @1 :Float64;
  heading @2 :Float64;
  speedX @3 :Float64;
  speedY @4 :Float64;
  angularSpeed @5 :Float64;
  timestamp @6 :Float64;
}

# A trajectory plan for a differential base consisting of a sequence of states
struct DifferentialTrajectoryPlanProto {
  states @0 :List(DifferentialState);
  planFrame @1 :Text;
}

# A status update which is sent continuously as a reply to receiving a goal message.
struct Goal2FeedbackProto {
  robotTGoal @0 :Pose2dProto;
  hasGoal @1 :Bool;
  hasArrived @2 :Bool;
  isStationary @3 :Bool;
}

# Describe a goal in a given referential frame
struct Goal2Proto {
  goal @0 :Pose2dProto;
  tolerance @1 :Float32;
  goalFrame @2 :Text;
  stopRobot @3 :Bool;
}

# A desired target waypoint
struct GoalWaypointProto {
  waypoint @0 :Text;
}

# Describes how an entity is moving through space in a local diverging coordinate frame.
struct Odometry2Proto {
  odomTRobot @0 :Pose2dProto;
  speed @1 :Vector2dProto;
  angularSpeed @2 :Float64;
  acceleration @3 :Vector2dProto;
  odometryFrame @4 :Text;
  robotFrame @5 :Text;
}

# Describes a plan in a given referential frame.
struct Plan2Proto {
  poses @0 :List(Pose2dProto);
  planFrame @1 :Text;
}

# ---- dynamixel_motors ----

# Commands commands for a set of dynamixel motors running for example as a dasy chain.
struct DynamixelMotorsProto {
  # Motor protos
  struct MotorProto {
    id @0 :Int64;
    position @1 :Int16;
    tick @2 :Int64;
    moving @3 :Bool;
  }
  motors @0 :List(MotorProto);
}

# ---- element_type ----

# The choices available as element type for data types such as images, tensors, or sample clouds
enum ElementType {
  unknown @11;
  uint8 @0;
  uint16 @1;
  uint32 @5;
  uint64 @6;
  int8 @7;
  int16 @8;
  int32 @9;
  int64 @10;
  float16 @4;
  float32 @2;
  float64 @3;
}

# ---- fiducial_list ----

# A fiducial: an object placed in the field of view of an imaging system as a point of reference
struct FiducialProto {
  # A fiducial can be of type (April Tag, QRCode, Barcode or ARTag)
  enum Type {
    apriltag @0;
    qrcode @1;
    barcode @2;
    artag @3;
  }
  type @0 :Type;
  id @1 :Text;
  cameraTTag @2 :Pose3dProto;
  keypoints @3 :List(Vector2dProto);
}

# A list of detected ficucials
struct FiducialListProto {
  fiducialList @0 :List(FiducialProto);
}

# ---- flatscan ----

# A 2D range scan which is essentially a flat version of the 3D RangeScanProto
struct FlatscanProto {
  angles @0 :List(Float32);
  ranges @1 :List(Float32);
  invalidRangeThreshold @2 :Float64;
  outOfRangeThreshold @3 :Float64;
  visibilities @4 :List(Float32);
}

# ---- geometry ----

# A box (cuboid-3) using 64-bit doubles
struct BoxProto {
  min @0 :Vector3dProto;
  max @1 :Vector3dProto;
}

# (deprecated) A message describing the location of the ground.
struct GroundPlaneProto {
  plane @0 :PlaneProto;
}

# A plane in three-dimensional space
struct PlaneProto {
  normal @0 :Vector3dProto;
  offset @1 :Float64;
}

# A polygon in 2d represented by a list of points.
struct Polygon2Proto {
  polygon @0 :List(Vector2dProto);
}

# A set of polygons represented by list of 2d polygons
struct Polygon2SoupProto {
  polygonSoup @0 :List(Polygon2Proto);
}

# A polyline in 2d represented by a list of points.
struct Polyline2dProto {
  line @0 :List(Vector2dProto);
}

# A rectangle using 64-bit doubles
struct RectangleProto {
  min @0 :Vector2dProto;
  max @1 :Vector2dProto;
}

# ---- graph ----

# A general graph
struct GraphProto {
  nodeCount @0 :Int32;
  # An edge in the graph connects two nodes.
  struct EdgeProto {
    source @0 :Int32;
    target @1 :Int32;
    cost @2 :Float32;
  }
  edges @1 :List(EdgeProto);
}

# A graph build from a 3d grid (row, col, orientation).
struct Pose2GridGraphProto {
  # Struct to hold the information relative to an edge.
  struct EdgeProto {
    source @0 :Int32;
    target @1 :Int32;
    cost @2 :Float32;
    level @3 :Int32;
  }
  # Information about a tile
  struct TileProto {
    position @0 :Vector2iProto;
    gridId @1 :List(Int32);
  }
  forwardWeights @0 :List(Float32);
  backwardWeights @1 :List(Float32);
  edges @2 :List(EdgeProto);
  tiles @3 :List(TileProto);
  cellSize @4 :Float32;
  tileLength @5 :Float32;
  orientationsGenerator @6 :Int32;
  worldTGrid @7 :Pose2fProto;
  regionOfInterest @8 :RectangleProto;
  flatmapHash @9 :UInt64;
  useSparseEdges @10 :Bool;
  sparseTranslationStride @11 :Int32;
  sparseAngleStride @12 :Int32;
  sparseAngleOffset @13 :Int32;
}

# ---- heatmap ----

# Describes the heatmap of probabilities for different units
struct HeatmapProto {
  heatmap @0 :ImageProto;
  frameName @1 :Text;
  gridCellSize @2 :Float32;
}

# ---- image ----

# An image produced for example by a camera
struct ImageProto {
  elementType @0 :ElementType;
  rows @1 :UInt16;
  cols @2 :UInt16;
  channels @3 :UInt16;
  dataBufferIndex @4 :UInt16;
}

# ---- imu ----

# Message published by an inertial measurement unit (IMU)
struct ImuProto {
  linearAccelerationX @0 :Float32;
  linearAccelerationY @1 :Float32;
  linearAccelerationZ @2 :Float32;
  angularVelocityX @3 :Float32;
  angularVelocityY @4 :Float32;
  angularVelocityZ @5 :Float32;
  angleYaw @6 :Float32;
  anglePitch @7 :Float32;
  angleRoll @8 :Float32;
}

# ---- joystick_state ----

# Messages published from a gamepad controller.
struct JoystickStateProto {
  axes @0 :List(Vector2dProto);
  buttons @1 :List(Bool);
}

# ---- json ----

# A proto transporting a JSON string encoded as a string
struct JsonProto {
  serialized @0 :Text;
}

# ---- label ----

# Mapping of label index to label name for segmentation images
struct LabelProto {
  # A label used to enumerate all labels in the `labels` field below
  struct Label {
    index @0 :UInt8;
    name @1 :Text;
  }
  labels @0 :List(Label);
}

# ---- led_strip ----

# A message to describe a desired state of a LED display strip
struct LedStripProto {
  enabled @0 :Bool;
  color @1 :Vector3ubProto;
  skip @2 :Int32;
  offset @3 :Int32;
}

# ---- map ----

# The information of a lattice coordinate system: it contains the name of frame registered in the PoseTree and the size of the cells.
struct LatticeProto {
  frame @0 :Text;
  cellSize @1 :Float64;
  dimensions @2 :Vector2iProto;
}

# ---- marker_list ----

# Representation of raw marker info tracked by a motion capture system
struct MarkerListProto {
  markers @0 :List(Marker);
  # A motion captured marker
  struct Marker {
    name @0 :Text;
    parent @1 :Text;
    worldTMarker @2 :Vector3dProto;
    occluded @3 :Bool;
  }
}

# ---- math ----

# A matrix with dimensions 3x3 using 64-bit floating points
struct Matrix3dProto {
  row1 @0 :Vector3dProto;
  row2 @1 :Vector3dProto;
  row3 @2 :Vector3dProto;
}

# A type containing mean and covariance for a Pose2
struct Pose2MeanAndCovariance {
  mean @0 :Pose2dProto;
  covariance @1 :Matrix3dProto;
}

# A list of samples of type Pose2
struct Pose2Samples {
  states @0 :List(Pose2dProto);
  weights @1 :List(Float64);
}

# A pose for 2-dimensional space with rotation and translation using 64-bit doubles
struct Pose2dProto {
  rotation @0 :SO2dProto;
  translation @1 :Vector2dProto;
}

# A pose for 2-dimensional space with rotation and translation using 32-bit floats
struct Pose2fProto {
  rotation @0 :SO2fProto;
  translation @1 :Vector2fProto;
}

# A pose for 3-dimensional space with rotation and translation using 64-bit doubles
struct Pose3dProto {
  rotation @0 :SO3dProto;
  translation @1 :Vector3dProto;
}

# A pose for 3-dimensional space with rotation and translation using 32-bit floats
struct Pose3fProto {
  rotation @0 :SO3fProto;
  translation @1 :Vector3fProto;
}

# A quaternion using 64-bit doubles for example to represent rotations
struct QuaterniondProto {
  w @0 :Float64;
  x @1 :Float64;
  y @2 :Float64;
  z @3 :Float64;
}

# A quaternion using 32-bit floats for example to represent rotations
struct QuaternionfProto {
  w @0 :Float32;
  x @1 :Float32;
  y @2 :Float32;
  z @3 :Float32;
}

# A rotation in 2-dimensional Euclidean space using 64-bit doubles
struct SO2dProto {
  q @0 :Vector2dProto;
}

# A rotation in 2-dimensional Euclidean space using 32-bit floats
struct SO2fProto {
  q @0 :Vector2fProto;
}

# A rotation in 3-dimensional Euclidean space using 64-bit doubles
struct SO3dProto {
  q @0 :QuaterniondProto;
}

# A rotation in 3-dimensional Euclidean space using 32-bit floats
struct SO3fProto {
  q @0 :QuaternionfProto;
}

# A 2-dimensional vector using 64-bit doubles
struct Vector2dProto {
  x @0 :Float64;
  y @1 :Float64;
}

# A 2-dimensional vector using 32-bit floats
struct Vector2fProto {
  x @0 :Float32;
  y @1 :Float32;
}

# A 2-dimensional vector using 32-bit integers
struct Vector2iProto {
  x @0 :Int32;
  y @1 :Int32;
}

# A 3-dimensional vector using 64-bit doubles
struct Vector3dProto {
  x @0 :Float64;
  y @1 :Float64;
  z @2 :Float64;
}

# A 3-dimensional vector using 32-bit floats
struct Vector3fProto {
  x @0 :Float32;
  y @1 :Float32;
  z @2 :Float32;
}

# A 3-dimensional vector using 32-bit integers
struct Vector3iProto {
  x @0 :Int32;
  y @1 :Int32;
  z @2 :Int32;
}

# A 3-dimensional vector using unsigned 8-bit integers
struct Vector3ubProto {
  x @0 :UInt8;
  y @1 :UInt8;
  z @2 :UInt8;
}

# A 4-dimensional vector using 64-bit doubles
struct Vector4dProto {
  x @0 :Float64;
  y @1 :Float64;
  z @2 :Float64;
  w @3 :Float64;
}

# A 4-dimensional vector using 32-bit floats
struct Vector4fProto {
  x @0 :Float32;
  y @1 :Float32;
  z @2 :Float32;
  w @3 :Float32;
}

# A 4-dimensional vector using 32-bit integers
struct Vector4iProto {
  x @0 :Int32;
  y @1 :Int32;
  z @2 :Int32;
  w @3 :Int32;
}

# A X-dimensional vector using 64-bit doubles
struct VectorXdProto {
  coefficients @0 :List(Float64);
}

# A X-dimensional vector using 32-bit floats
struct VectorXfProto {
  coefficients @0 :List(Float32);
}

# A X-dimensional vector using 32-bit integers
struct VectorXiProto {
  coefficients @0 :List(Int32);
}

# ---- mission ----

# A message which identifies the status of a mission started by a MissionProto message.
struct MissionStatusProto {
  uuid @0 :UuidProto;
  # An enum specifying the possible statuses of a mission
  enum MissionStatus {
    running @0;
    success @1;
    failure @2;
  }
  missionStatus @1 :MissionStatus;
}

# A message representing a mission to run by the application.
struct MissionProto {
  uuid @0 :UuidProto;
  config @1 :JsonProto;
}

# ---- obstacles ----

# A message containing all obstacles around the robot
struct ObstaclesProto {
  # A message containing the information about a spherical obstacle
  struct SphereObstacleProto {
    center @0 :Vector3dProto;
    radius @1 :Float64;
    frame @2 :Text;
    uuid @3 :UuidProto;
    time @4 :Float64;
  }
  # A distance map describes the distance to the closest obstacle for every pixel.
  struct DistanceMapProto {
    image @0 :ImageProto;
    robotTGridmap @1 :Pose2dProto;
    gridCellSize @2 :Float64;
    time @3 :Float64;
  }
  obstacles @0 :List(SphereObstacleProto);
  distanceMaps @1 :List(DistanceMapProto);
  robotFrame @2 :Text;
}

# ---- parking ----

# A list of parking spots detected by ParkNet.
struct ParkingSpotListProto {
  detections @0 :List(ParkingSpotProto);
}

# A parking spot detected by ParkNet.
struct ParkingSpotProto {
  confidence @0 :Float32;
  box @1 :Polyline2dProto;
  entryLineIndex @2 :Int32;
}

# ---- ping ----

# A generic message to ping another node with a private message.
struct PingProto {
  message @0 :Text;
}

# ---- point_cloud ----

# A message containing information about a set of points , also called "point cloud".
struct PointCloudProto {
  positions @0 :TensorProto;
  normals @1 :TensorProto;
  colors @2 :TensorProto;
  intensities @3 :TensorProto;
}

# ---- pose_tree ----

# Pose tree/kinematic tree: hierarchical kinematic representation
struct PoseTreeProto {
  name @0 :Text;
  nodes @1 :List(Node);
  edges @2 :List(Edge);
  # Each node in the tree holds its pose relative to its immediate parent and its pose relative to the root
  struct Node {
    name @0 :Text;
    parentIndex @1 :Int32;
    parentTNode @2 :Pose3dProto;
    worldTNode @3 :Pose3dProto;
  }
  # Each edge holds a parent name and child name
  struct Edge {
    parentName @0 :Text;
    childName @1 :Text;
  }
}

# ---- pwm_channel_set ----

# Set a duty cycle for a given PWM channel
struct PwmChannelSetDutyCycleProto {
  channel @0 :Int32;
  dutyCycle @1 :Float32;
  disable @2 :Bool;
}

# Set a pulse length for a given PWM channel
struct PwmChannelSetPulseLengthProto {
  channel @0 :Int32;
  pulseLength @1 :Float32;
}

# ---- range_scan ----

# A message about laser range scans published for example from a LIDAR sensor
struct RangeScanProto {
  ranges @0 :TensorProto;
  intensities @1 :TensorProto;
  theta @2 :List(Float32);
  phi @3 :List(Float32);
  rangeDenormalizer @4 :Float32;
  intensityDenormalizer @5 :Float32;
  deltaTime @6 :UInt16;
  invalidRangeThreshold @7 :Float64;
  outOfRangeThreshold @8 :Float64;
}

# ---- rigid_body_3_group ----

# A list of rigid bodies in a certain coordinate frame
struct RigidBody3GroupProto {
  bodies @0 :List(RigidBody3Proto);
  names @1 :List(Text);
  referenceFrame @2 :Text;
}

# A rigid body in 3D
struct RigidBody3Proto {
  refTBody @0 :Pose3dProto;
  linearVelocity @1 :Vector3dProto;
  angularVelocity @2 :Vector3dProto;
  linearAcceleration @3 :Vector3dProto;
  angularAcceleration @4 :Vector3dProto;
  scales @5 :Vector3dProto;
}

# ---- robot_state ----

# The robot state at that particular instance of time.
struct RobotStateProto {
  worldTRobot @0 :Pose2dProto;
  currentSpeed @1 :Vector3dProto;
  displacementSinceLastUpdate @2 :Vector3dProto;
}

# ---- segmentation_prediction ----

# Segmentation prediction proto stores the probability distribution over classes for each pixel in a three dimensional tensor.
struct SegmentationPredictionProto {
  classNames @0 :List(Text);
  prediction @1 :TensorProto;
}

# ---- state ----

# A message used to transport states of dynamic systems.
struct StateProto {
  pack @0 :TensorProto;
  schema @1 :Text;
  data @2 :List(Float64);
}

# ---- superpixels ----

# Labels for superpixels.
struct SuperpixelLabelsProto {
  labels @0 :List(Int32);
}

# A superpixel oversegmentation for an image.
struct SuperpixelsProto {
  # 2D superpixel data based on the color image
  struct Superpixel {
    pixel @0 :Vector2fProto;
    color @1 :Vector3fProto;
    count @2 :UInt32;
  }
  # Additional 3D surflet data for each superpixel defining the 3D shape of the superpixel
  struct Surflet {
    point @0 :Vector3fProto;
    normal @1 :Vector3fProto;
  }
  indices @0 :ImageProto;
  superpixels @1 :List(Superpixel);
  surflets @2 :List(Surflet);
}

# ---- tensor ----

# A n-dimensional tensor
struct TensorProto {
  elementType @0 :ElementType;
  sizes @1 :List(Int32);
  scanlineStride @2 :UInt32;
  dataBufferIndex @3 :UInt16;
}

# ---- trajectory ----

# A list of trajectories with three dimensions.
struct Vector3TrajectoryListProto {
  trajectories @0 :List(Vector3TrajectoryProto);
}

# A trajectory with three dimensions.
struct Vector3TrajectoryProto {
  states @0 :List(Vector3dProto);
  timestamps @1 :List(Float64);
  frame @2 :Text;
}

# ---- uuid ----

# A unique identifier following the UUID specifications
struct UuidProto {
  lower @0 :UInt64;
  upper @1 :UInt64;
}

# ---- voice_command_detection ----

# Message containing detected command id and list of timestamps of contributing keywords
struct VoiceCommandDetectionProto {
  commandId @0 :UInt8;
  timestamps @1 :List(UInt64);
}
