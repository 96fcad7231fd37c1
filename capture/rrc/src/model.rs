//! The in-memory capture: everything an RPCS3 `.rrc` file holds, version-independent.
//!
//! This is the interface between the file readers/writers (RRC, trace) and everything that
//! decodes a capture (the frame model). It keeps the file's own order of map entries and
//! commands so that a round trip through any format is lossless.
//!
//! Field meanings follow `shared/reference/rrc-format.md` (sections 1.3 to 1.6), which restates
//! RPCS3's `rsx::frame_capture_data` (`rpcs3/Emu/RSX/Capture/rsx_replay.h`).

use bytes::Bytes;
use serde::Serialize;

/// Number of 32-bit words in the register file snapshot (`0x10000 / 4`).
pub const REGISTER_COUNT: usize = 0x4000;
/// Transform-program words in captures from 2021-06-27 on (544 slots x 4 words).
pub const TRANSFORM_PROGRAM_WORDS: usize = 544 * 4;
/// Transform-program words in older captures (512 slots x 4 words).
pub const TRANSFORM_PROGRAM_WORDS_OLD: usize = 512 * 4;
/// Number of vec4 transform constants in the optional constants block.
pub const TRANSFORM_CONSTANT_SLOTS: usize = 512;

/// One whole capture file, decoded.
#[derive(Clone, Debug, PartialEq)]
pub struct Capture {
    /// Where the capture came from.
    pub provenance: Provenance,
    /// `tile_map`: id -> tile/zcull state, in file order.
    pub tiles: Vec<Entry<TileState>>,
    /// `memory_map`: id -> memory block, in file order.
    pub blocks: Vec<Entry<MemoryBlock>>,
    /// `memory_data_map`: id -> raw guest bytes (big-endian data), in file order.
    pub data: Vec<Entry<Bytes>>,
    /// `display_buffers_map`: id -> display buffer state, in file order.
    pub display_buffers: Vec<Entry<DisplayBuffersState>>,
    /// `replay_commands`, exactly as recorded (including the initial NOP and the
    /// batched-upload continuation entries whose `first` is 0).
    pub commands: Vec<ReplayCommand>,
    /// `reg_state`: the register file at the start of the frame.
    pub reg_state: RegState,
}

/// A map entry: the id the file gives it, and its payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry<T> {
    /// In v6 a counter value (from 0x1235 on, shared by all four maps); in v4/v5 an XXH64 hash.
    pub id: u64,
    pub value: T,
}

/// Provenance of a capture: recorded in traces so a result can be traced to its source file.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Provenance {
    /// The file name it was read from (no directories), or a name given by the builder.
    pub source_name: String,
    /// The RRC format version: 3, 4, 5 or 6.
    pub rrc_version: u32,
    /// How the source file was compressed.
    pub compression: Compression,
    /// SHA-256 of the source file's bytes as stored on disk (compressed or not).
    pub sha256: [u8; 32],
}

/// The compression wrapper of a capture file, recognised by content.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Compression {
    #[default]
    None,
    Gzip,
    Zstd,
}

/// `memory_block`: where a block of guest memory sits (its bytes are in `Capture::data`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemoryBlock {
    /// Offset in the location's address space (local memory offset or IO offset).
    pub offset: u32,
    /// Raw location word: 0 local, 1 main; the NV0039 path stores 0xFEED0000/0xFEED0001.
    /// Use [`MemoryBlock::location_kind`] for the normalised value.
    pub location: u32,
    /// Id of the bytes in `Capture::data`.
    pub data_id: u64,
}

/// Normalised memory location.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Location {
    /// RSX local memory (`CELL_GCM_LOCATION_LOCAL`).
    Local,
    /// Main memory mapped through the IO table (`CELL_GCM_LOCATION_MAIN`).
    Main,
}

impl Location {
    /// Normalise a raw location value: 0/0xFEED0000 -> local, 1/0xFEED0001 -> main
    /// (rrc-format.md 1.4: "Normalize with `loc & 0xF`"). Other values give `None`.
    pub fn from_raw(raw: u32) -> Option<Location> {
        match raw & 0xF {
            0 if raw == 0 || raw == 0xFEED_0000 => Some(Location::Local),
            1 if raw == 1 || raw == 0xFEED_0001 => Some(Location::Main),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Location::Local => "local",
            Location::Main => "main",
        }
    }
}

impl MemoryBlock {
    pub fn location_kind(&self) -> Option<Location> {
        Location::from_raw(self.location)
    }
}

/// `tile_info`: the four packed `CellGcmTileInfo` words (rrc-format.md 1.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct TileInfo {
    pub tile: u32,
    pub limit: u32,
    pub pitch: u32,
    pub format: u32,
}

/// `zcull_info`: the six packed `CellGcmZcullInfo` words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct ZcullInfo {
    pub region: u32,
    pub size: u32,
    pub start: u32,
    pub offset: u32,
    pub status0: u32,
    pub status1: u32,
}

/// `tile_state`: 15 tiles and 8 zcull regions (432 bytes on disk).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct TileState {
    pub tiles: [TileInfo; 15],
    pub zculls: [ZcullInfo; 8],
}

/// `buffer_state`: one display buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct BufferState {
    pub width: u32,
    pub height: u32,
    pub pitch: u32,
    pub offset: u32,
}

/// `display_buffers_state`: 8 display buffers, of which `count` are used (132 bytes on disk).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct DisplayBuffersState {
    pub buffers: [BufferState; 8],
    pub count: u32,
}

impl DisplayBuffersState {
    /// The state with `buffers` as buffers 0, 1, ... (at most eight are kept) and `count`
    /// their number, as `cellGcmSetDisplayBuffer` calls leave it.
    pub fn of(buffers: &[BufferState]) -> DisplayBuffersState {
        let mut state = DisplayBuffersState::default();
        for (slot, b) in state.buffers.iter_mut().zip(buffers) {
            *slot = *b;
        }
        state.count = buffers.len().min(8) as u32;
        state
    }
}

/// One recorded FIFO entry and the state attached to it (rrc-format.md 1.5, 3.2).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ReplayCommand {
    /// FIFO header word (method byte offset in bits 2..15, count in bits 18..28,
    /// non-increment in bit 30), or 0 for a batched continuation argument.
    pub first: u32,
    /// The argument value, in host order.
    pub second: u32,
    /// Ids (in `Capture::blocks`) of the memory blocks attached to this command, in file order.
    pub memory: Vec<u64>,
    /// 0 = no change, else an id in `Capture::tiles`.
    pub tile_state: u64,
    /// 0 = no change, else an id in `Capture::display_buffers`.
    pub display_buffer_state: u64,
}

/// `rsx_state`: the register-state tail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegState {
    /// Transform program memory: 2176 words (544 slots), or 2048 (512 slots) in old captures.
    pub transform_program: Vec<u32>,
    /// The optional 512 x vec4 transform constants block (raw IEEE bit patterns); usually absent.
    pub transform_constants: Option<Vec<[u32; 4]>>,
    /// The method register file, indexed by register index (byte offset / 4); 16384 words.
    pub registers: Vec<u32>,
}

impl Default for RegState {
    fn default() -> Self {
        RegState {
            transform_program: vec![0; TRANSFORM_PROGRAM_WORDS],
            transform_constants: None,
            registers: vec![0; REGISTER_COUNT],
        }
    }
}

/// Which of the three register-state tail layouts a file used (rrc-format.md 1.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TailLayout {
    /// 8704-byte program + 65536-byte registers (74240 bytes).
    Program544,
    /// 8704-byte program + 8192-byte constants + 65536-byte registers (82432 bytes).
    Program544WithConstants,
    /// 8192-byte program (512 slots) + 65536-byte registers (73728 bytes).
    Program512,
}

impl RegState {
    /// The tail layout this state would be written with.
    pub fn tail_layout(&self) -> TailLayout {
        match (
            self.transform_program.len(),
            self.transform_constants.is_some(),
        ) {
            (TRANSFORM_PROGRAM_WORDS_OLD, _) => TailLayout::Program512,
            (_, true) => TailLayout::Program544WithConstants,
            _ => TailLayout::Program544,
        }
    }
}

impl Capture {
    /// An empty capture with a default register state (used by the builder).
    pub fn empty(source_name: &str) -> Capture {
        Capture {
            provenance: Provenance {
                source_name: source_name.to_string(),
                rrc_version: 6,
                ..Default::default()
            },
            tiles: Vec::new(),
            blocks: Vec::new(),
            data: Vec::new(),
            display_buffers: Vec::new(),
            commands: Vec::new(),
            reg_state: RegState::default(),
        }
    }

    /// Total bytes in all memory data blobs.
    pub fn memory_bytes(&self) -> u64 {
        self.data.iter().map(|e| e.value.len() as u64).sum()
    }
}
