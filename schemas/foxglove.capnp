@0xf78fb96cdb95c36b;

# Foxglove visualisation schemas (seed 003_65b1d342b53882aa.txt), translated by
# the PROTOCOL.md rule: fields @0.. in seed order, lowerCamelCase names,
# `time` and `duration` -> Time, fixed arrays -> List(T). Never renumber or retype a field.

struct Time {
  # Foxglove `time` (and `duration`): seconds + nanoseconds. Not in the seed; PROTOCOL.md.
  sec @0 :Int64;
  nsec @1 :UInt32;
}

enum LineType {
  # An enumeration indicating how input points should be interpreted to create lines
  lineStrip @0;
  lineLoop @1;
  lineList @2;
}

enum LogLevel {
  # Log level
  unknown @0;
  debug @1;
  info @2;
  warning @3;
  error @4;
  fatal @5;
}

enum NumericType {
  # Numeric type
  unknown @0;
  uint8 @1;
  int8 @2;
  uint16 @3;
  int16 @4;
  uint32 @5;
  int32 @6;
  float32 @7;
  float64 @8;
}

enum PointsAnnotationType {
  # Type of points annotation
  unknown @0;
  points @1;
  lineLoop @2;
  lineStrip @3;
  lineList @4;
}

enum PositionCovarianceType {
  # Type of position covariance
  unknown @0;
  approximated @1;
  diagonalKnown @2;
  known @3;
}

enum SceneEntityDeletionType {
  # An enumeration indicating which entities should match a SceneEntityDeletion command
  matchingId @0;
  all @1;
}

struct ArrowPrimitive {
  # A primitive representing an arrow
  pose @0 :Pose;
  shaftLength @1 :Float64;
  shaftDiameter @2 :Float64;
  headLength @3 :Float64;
  headDiameter @4 :Float64;
  color @5 :Color;
}

struct CameraCalibration {
  # Camera calibration parameters
  timestamp @0 :Time;
  frameId @1 :Text;
  width @2 :UInt32;
  height @3 :UInt32;
  distortionModel @4 :Text;
  d @5 :List(Float64);
  k @6 :List(Float64);
  r @7 :List(Float64);
  p @8 :List(Float64);
}

struct CircleAnnotation {
  # A circle annotation on a 2D image
  timestamp @0 :Time;
  position @1 :Point2;
  diameter @2 :Float64;
  thickness @3 :Float64;
  fillColor @4 :Color;
  outlineColor @5 :Color;
}

struct Color {
  # A color in RGBA format
  r @0 :Float64;
  g @1 :Float64;
  b @2 :Float64;
  a @3 :Float64;
}

struct CompressedImage {
  # A compressed image
  timestamp @0 :Time;
  frameId @1 :Text;
  data @2 :Data;
  format @3 :Text;
}

struct CompressedVideo {
  # A single frame of a compressed video bitstream
  timestamp @0 :Time;
  frameId @1 :Text;
  data @2 :Data;
  format @3 :Text;
}

struct CubePrimitive {
  # A primitive representing a cube or rectangular prism
  pose @0 :Pose;
  size @1 :Vector3;
  color @2 :Color;
}

struct CylinderPrimitive {
  # A primitive representing a cylinder, elliptic cylinder, or truncated cone
  pose @0 :Pose;
  size @1 :Vector3;
  bottomScale @2 :Float64;
  topScale @3 :Float64;
  color @4 :Color;
}

struct FrameTransform {
  # A transform between two reference frames in 3D space
  timestamp @0 :Time;
  parentFrameId @1 :Text;
  childFrameId @2 :Text;
  translation @3 :Vector3;
  rotation @4 :Quaternion;
}

struct FrameTransforms {
  # An array of FrameTransform messages
  transforms @0 :List(FrameTransform);
}

struct GeoJSON {
  # GeoJSON data for annotating maps
  geojson @0 :Text;
}

struct Grid {
  # A 2D grid of data
  timestamp @0 :Time;
  frameId @1 :Text;
  pose @2 :Pose;
  columnCount @3 :UInt32;
  cellSize @4 :Vector2;
  rowStride @5 :UInt32;
  cellStride @6 :UInt32;
  fields @7 :List(PackedElementField);
  data @8 :Data;
}

struct ImageAnnotations {
  # Array of annotations for a 2D image
  circles @0 :List(CircleAnnotation);
  points @1 :List(PointsAnnotation);
  texts @2 :List(TextAnnotation);
}

struct KeyValuePair {
  # A key with its associated value
  key @0 :Text;
  value @1 :Text;
}

struct LaserScan {
  # A single scan from a planar laser range-finder
  timestamp @0 :Time;
  frameId @1 :Text;
  pose @2 :Pose;
  startAngle @3 :Float64;
  endAngle @4 :Float64;
  ranges @5 :List(Float64);
  intensities @6 :List(Float64);
}

struct LinePrimitive {
  # A primitive representing a series of points connected by lines
  type @0 :LineType;
  pose @1 :Pose;
  thickness @2 :Float64;
  scaleInvariant @3 :Bool;
  points @4 :List(Point3);
  color @5 :Color;
  colors @6 :List(Color);
  indices @7 :List(UInt32);
}

struct LocationFix {
  # A navigation satellite fix for any Global Navigation Satellite System
  timestamp @0 :Time;
  frameId @1 :Text;
  latitude @2 :Float64;
  longitude @3 :Float64;
  altitude @4 :Float64;
  positionCovariance @5 :List(Float64);
  positionCovarianceType @6 :PositionCovarianceType;
}

struct Log {
  # A log message
  timestamp @0 :Time;
  level @1 :LogLevel;
  message @2 :Text;
  name @3 :Text;
  file @4 :Text;
  line @5 :UInt32;
}

struct ModelPrimitive {
  # A primitive representing a 3D model file loaded from an external URL or embedded data
  pose @0 :Pose;
  scale @1 :Vector3;
  color @2 :Color;
  overrideColor @3 :Bool;
  url @4 :Text;
  mediaType @5 :Text;
  data @6 :Data;
}

struct PackedElementField {
  # A field present within each element in a byte array of packed elements.
  name @0 :Text;
  offset @1 :UInt32;
  type @2 :NumericType;
}

struct Point2 {
  # A point representing a position in 2D space
  x @0 :Float64;
  y @1 :Float64;
}

struct Point3 {
  # A point representing a position in 3D space
  x @0 :Float64;
  y @1 :Float64;
  z @2 :Float64;
}

struct PointCloud {
  # A collection of N-dimensional points, which may contain additional fields with information like normals, intensity, etc.
  timestamp @0 :Time;
  frameId @1 :Text;
  pose @2 :Pose;
  pointStride @3 :UInt32;
  fields @4 :List(PackedElementField);
  data @5 :Data;
}

struct PointsAnnotation {
  # An array of points on a 2D image
  timestamp @0 :Time;
  type @1 :PointsAnnotationType;
  points @2 :List(Point2);
  outlineColor @3 :Color;
  outlineColors @4 :List(Color);
  fillColor @5 :Color;
  thickness @6 :Float64;
}

struct Pose {
  # A position and orientation for an object or reference frame in 3D space
  position @0 :Vector3;
  orientation @1 :Quaternion;
}

struct PoseInFrame {
  # A timestamped pose for an object or reference frame in 3D space
  timestamp @0 :Time;
  frameId @1 :Text;
  pose @2 :Pose;
}

struct PosesInFrame {
  # An array of timestamped poses for an object or reference frame in 3D space
  timestamp @0 :Time;
  frameId @1 :Text;
  poses @2 :List(Pose);
}

struct Quaternion {
  # A quaternion representing a rotation in 3D space
  x @0 :Float64;
  y @1 :Float64;
  z @2 :Float64;
  w @3 :Float64;
}

struct RawImage {
  # A raw image
  timestamp @0 :Time;
  frameId @1 :Text;
  width @2 :UInt32;
  height @3 :UInt32;
  encoding @4 :Text;
  step @5 :UInt32;
  data @6 :Data;
}

struct SceneEntity {
  # A visual element in a 3D scene.
  timestamp @0 :Time;
  frameId @1 :Text;
  id @2 :Text;
  lifetime @3 :Time;
  frameLocked @4 :Bool;
  metadata @5 :List(KeyValuePair);
  arrows @6 :List(ArrowPrimitive);
  cubes @7 :List(CubePrimitive);
  spheres @8 :List(SpherePrimitive);
  cylinders @9 :List(CylinderPrimitive);
  lines @10 :List(LinePrimitive);
  triangles @11 :List(TriangleListPrimitive);
  texts @12 :List(TextPrimitive);
  models @13 :List(ModelPrimitive);
}

struct SceneEntityDeletion {
  # Command to remove previously published entities
  timestamp @0 :Time;
  type @1 :SceneEntityDeletionType;
  id @2 :Text;
}

struct SceneUpdate {
  # An update to the entities displayed in a 3D scene
  deletions @0 :List(SceneEntityDeletion);
  entities @1 :List(SceneEntity);
}

struct SpherePrimitive {
  # A primitive representing a sphere or ellipsoid
  pose @0 :Pose;
  size @1 :Vector3;
  color @2 :Color;
}

struct TextAnnotation {
  # A text label on a 2D image
  timestamp @0 :Time;
  position @1 :Point2;
  text @2 :Text;
  fontSize @3 :Float64;
  textColor @4 :Color;
  backgroundColor @5 :Color;
}

struct TextPrimitive {
  # A primitive representing a text label
  pose @0 :Pose;
  billboard @1 :Bool;
  fontSize @2 :Float64;
  scaleInvariant @3 :Bool;
  color @4 :Color;
  text @5 :Text;
}

struct TriangleListPrimitive {
  # A primitive representing a set of triangles or a surface tiled by triangles
  pose @0 :Pose;
  points @1 :List(Point3);
  color @2 :Color;
  colors @3 :List(Color);
  indices @4 :List(UInt32);
}

struct Vector2 {
  # A vector in 2D space that represents a direction only
  x @0 :Float64;
  y @1 :Float64;
}

struct Vector3 {
  # A vector in 3D space that represents a direction only
  x @0 :Float64;
  y @1 :Float64;
  z @2 :Float64;
}
