@0xef210ec9397adb1e;
# Transport-level structs shared by every family (see PROTOCOL.md).

# Isaac buffers, carried in the zenoh attachment; dataBufferIndex indexes `buffers`. A
# command's attachment is one too, naming its issuer (and no buffers, unless it has some).
struct Buffers {
  buffers @0 :List(Data);
  issuer @1 :Text;  # on a command: the sending station's id (schemas/README.md)
}

# Reply of the queryable fleet/<robotId>/catalog.
struct Catalog {
  robotId @0 :Text;
  name @1 :Text;
  model @2 :Text;
  families @3 :List(Text);
  topics @4 :List(TopicInfo);
  commands @5 :List(TopicInfo);
}

struct TopicInfo {
  key @0 :Text;
  type @1 :Text;    # family.Struct, as in the encoding string
  rateHz @2 :Float32;  # 0 = on change
  # The frame of a topic whose type carries none (isaac clouds, detections, images; bow
  # samples); empty when the type names its own frame (foxglove frameId, autoware
  # header.frameId). A frameless type with it empty (or from an older robot that does not
  # send it) is in the robot's base frame base_link.
  frameId @3 :Text;
}
