# rsxtrace trace format: one RPCS3 RSX frame capture, held losslessly.
#
# Framing (see README.md): a trace file is the 8 bytes "RSXTRACE" followed by exactly ONE
# unpacked Cap'n Proto message (standard stream framing: segment table, then segments) whose
# root is `Trace`. Nothing follows the message.
#
# Field meanings follow shared/reference/rrc-format.md sections 1.3 to 1.6 (a restatement of
# RPCS3's `rsx::frame_capture_data`). Map entries and commands keep the order of the source file.
#
# EVOLUTION RULES (Cap'n Proto compatibility):
# - Fields, enumerants and union members are only ever APPENDED, with the next free ordinal.
#   No field is ever removed, renamed in meaning, re-typed or re-numbered.
# - `minorVersion` is raised when something is appended; old readers ignore what they do not
#   know. `majorVersion` is raised only for a change old readers must refuse; readers refuse
#   any major version they do not know.
# - The file id below never changes.
#
# Current version: major 1, minor 1 (minor 1 appended `Trace.index`).

@0xf35b711c92d8f8dc;

struct Trace {
  majorVersion @0 :UInt32;
  # Format major version. Readers refuse a major version they do not know. Currently 1.

  minorVersion @1 :UInt32;
  # Format minor version: raised when fields are appended. Currently 1.

  provenance @2 :Provenance;
  # Where the capture came from.

  tiles @3 :List(TileStateEntry);
  # `tile_map`: id -> tile/zcull state, in file order.

  blocks @4 :List(MemoryBlockEntry);
  # `memory_map`: id -> memory block, in file order.

  data @5 :List(DataEntry);
  # `memory_data_map`: id -> raw guest bytes (big-endian data), in file order.

  displayBuffers @6 :List(DisplayBuffersEntry);
  # `display_buffers_map`: id -> display buffer state, in file order.

  commands @7 :List(Command);
  # `replay_commands`, exactly as recorded (including the initial NOP and the batched-upload
  # continuation entries whose `first` is 0).

  regState @8 :RegState;
  # `reg_state`: the register file at the start of the frame.

  index @9 :FrameIndex;
  # Minor 1. What `rsxtrace info` and `rsxtrace draws` report, computed from the decoded frame
  # when the trace was written, so that they answer without decoding it: counts in O(1), the
  # draw list in O(draws), whatever the size of the memory data. Null when the writer had no
  # frame, and in traces older than minor 1. Derived data: valid only while
  # `FrameIndex.frameModel` equals the reader's frame-model version; readers decode the frame
  # otherwise.
}

struct FrameIndex {
  # The frame's counts and per-draw summaries (the documented JSON of `rsxtrace info` and
  # `rsxtrace draws`, docs/json.md).
  frameModel @0 :UInt32;
  # Version of rsxtrace's frame model that computed this index (`rsxtrace_frame::MODEL_VERSION`).
  commands @1 :UInt64;
  methodCalls @2 :UInt64;
  draws @3 :UInt64;
  memoryBlocks @4 :UInt64;
  memoryBytes @5 :UInt64;
  memoryDataBytes @6 :UInt64;
  distinctVertexPrograms @7 :UInt64;
  distinctFragmentPrograms @8 :UInt64;
  drawsWithProblems @9 :UInt64;
  frameProblems @10 :List(Text);
  # The frame-level problems, as text.
  drawList @11 :List(DrawIndexEntry);
  # One entry per draw, in END order (the entry's position is the draw index).
}

struct DrawIndexEntry {
  endCommand @0 :UInt64;
  # Command index of the draw's END.
  primitive @1 :UInt8;
  # The SET_BEGIN_END primitive, 1 (points) to 10 (polygon).
  indexed @2 :Bool;
  indexType @3 :UInt8;
  # 0: not indexed (or the index array is unknown), 1: 32-bit, 2: 16-bit indices.
  ranges @4 :List(UInt32);
  # The draw's ranges as (first, count) pairs.
  vertexCount @5 :UInt64;
  vpStart @6 :UInt32;
  # Vertex program start slot.
  vpHash @7 :UInt64;
  # XXH3-64 of the vertex program words (the frame model's `vp_hash`).
  fpKnown @8 :Bool;
  # Whether the fragment program's address is known; then `fpLocation` and `fpOffset` hold it.
  fpLocation @9 :UInt8;
  # 0: local memory, 1: main memory.
  fpOffset @10 :UInt32;
  fpHashKnown @11 :Bool;
  # Whether the fragment program was read; then `fpHash` holds the frame model's `fp_hash`.
  fpHash @12 :UInt64;
  mvp @13 :List(Float32);
  # Constants c32..c35 as 16 floats (x, y, z, w of each), or empty when any is unknown.
  problems @14 :List(Text);
  # The draw's problems, as text.
  part @15 :UInt32;
  # Which part of its BEGIN/END the draw is: 0 unless an execution barrier split the clause
  # (the frame model's `Draw::part`; indexes of frame model 3 and before have 0).
}

enum Compression {
  # The compression wrapper of the source capture file, recognised by content.
  none @0;
  gzip @1;
  zstd @2;
}

struct Provenance {
  sourceName @0 :Text;
  # The file name the capture was read from (no directories), or a name given by a builder.

  rrcVersion @1 :UInt32;
  # The RRC format version of the source: 3, 4, 5 or 6.

  compression @2 :Compression;
  # How the source file was compressed.

  sha256 @3 :Data;
  # SHA-256 of the source file's bytes as stored on disk: exactly 32 bytes.
}

struct TileInfo {
  # `tile_info`: the four packed `CellGcmTileInfo` words (rrc-format.md 1.4).
  tile @0 :UInt32;
  limit @1 :UInt32;
  pitch @2 :UInt32;
  format @3 :UInt32;
}

struct ZcullInfo {
  # `zcull_info`: the six packed `CellGcmZcullInfo` words (rrc-format.md 1.4).
  region @0 :UInt32;
  size @1 :UInt32;
  start @2 :UInt32;
  offset @3 :UInt32;
  status0 @4 :UInt32;
  status1 @5 :UInt32;
}

struct TileStateEntry {
  # One `tile_map` entry: `tile_state` and its id.
  id @0 :UInt64;
  tiles @1 :List(TileInfo);
  # Exactly 15 entries.
  zculls @2 :List(ZcullInfo);
  # Exactly 8 entries.
}

struct MemoryBlockEntry {
  # One `memory_map` entry: `memory_block` and its id.
  id @0 :UInt64;
  offset @1 :UInt32;
  # Offset in the location's address space (local memory offset or IO offset).
  location @2 :UInt32;
  # Raw location word: 0 local, 1 main; the NV0039 path stores 0xFEED0000 / 0xFEED0001.
  dataId @3 :UInt64;
  # Id of the bytes in `Trace.data`.
}

struct DataEntry {
  # One `memory_data_map` entry: raw guest memory bytes and their id.
  id @0 :UInt64;
  bytes @1 :Data;
}

struct BufferState {
  # `buffer_state`: one display buffer.
  width @0 :UInt32;
  height @1 :UInt32;
  pitch @2 :UInt32;
  offset @3 :UInt32;
}

struct DisplayBuffersEntry {
  # One `display_buffers_map` entry: `display_buffers_state` and its id.
  id @0 :UInt64;
  buffers @1 :List(BufferState);
  # Exactly 8 entries, of which the first `count` are used.
  count @2 :UInt32;
}

struct Command {
  # One recorded FIFO entry and the state attached to it (rrc-format.md 1.5).
  first @0 :UInt32;
  # FIFO header word, or 0 for a batched continuation argument.
  second @1 :UInt32;
  # The argument value, in host order.
  tileState @2 :UInt64;
  # 0 = no change, else an id in `Trace.tiles`.
  displayBufferState @3 :UInt64;
  # 0 = no change, else an id in `Trace.displayBuffers`.
  memory @4 :List(UInt64);
  # Ids (in `Trace.blocks`) of the memory blocks attached to this command, in file order.
  # Empty lists may be written as a null pointer.
}

struct RegState {
  # `rsx_state`: the register-state tail (rrc-format.md 1.6).
  transformProgram @0 :List(UInt32);
  # Transform program memory: 2176 words (544 slots x 4), or 2048 (512 slots) in old captures.

  transformConstants :union {
    # The optional transform constants block.
    absent @1 :Void;
    # Not recorded (the usual case).
    present @2 :List(UInt32);
    # 512 vec4 constants as raw IEEE-754 bit patterns: exactly 2048 words, x y z w per slot.
  }

  registers @3 :List(UInt32);
  # The method register file indexed by register index (byte offset / 4): exactly 16384 words.
}
