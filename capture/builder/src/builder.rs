//! The builder's core: initial state, the replay-command list and how each argument is
//! recorded (rrc-format.md 3.2), and `finish`.
//!
//! Recording starts lazily with the first command: the initial `(0x40, 0)` NO_OPERATION entry
//! then takes the display-buffers and tile states current at that moment, exactly as
//! `rsx::thread::on_frame_end` does when a capture begins.

use std::path::Path;

use bytes::Bytes;
use rsxtrace_rrc::{
    Capture, DisplayBuffersState, Location, RegState, ReplayCommand, TileState,
    TRANSFORM_CONSTANT_SLOTS, TRANSFORM_PROGRAM_WORDS,
};

use crate::draw::DrawClause;
use crate::error::BuildError;
use crate::ids::IdMaps;
use crate::memory::GuestMemory;
use crate::methods::{self, BATCH_WINDOW, REGISTER_COUNT};

/// Fragment texture units (rrc-format.md 4.7).
pub const FRAGMENT_TEXTURE_UNITS: usize = 16;
/// Vertex texture units (rrc-format.md 4.7).
pub const VERTEX_TEXTURE_UNITS: usize = 4;

/// Builds one RRC v6 capture the way RPCS3's recorder would have written it.
#[derive(Debug, Clone)]
pub struct CaptureBuilder {
    pub(crate) source_name: String,
    /// `reg_state`: the snapshot at the start of the frame.
    pub(crate) initial: RegState,
    /// The register file as the recorded commands have left it.
    pub(crate) regs: Vec<u32>,
    pub(crate) started: bool,
    pub(crate) commands: Vec<ReplayCommand>,
    pub(crate) ids: IdMaps,
    pub(crate) memory: GuestMemory,
    pub(crate) tile: TileState,
    pub(crate) display: DisplayBuffersState,
    pub(crate) clause: DrawClause,
    /// Byte size of each fragment texture unit's data, as the caller gave it.
    pub(crate) texture_sizes: [u32; FRAGMENT_TEXTURE_UNITS],
    /// Byte size of each vertex texture unit's data.
    pub(crate) vertex_texture_sizes: [u32; VERTEX_TEXTURE_UNITS],
}

pub(crate) fn check_range(what: &'static str, value: u64, limit: u64) -> Result<(), BuildError> {
    if value < limit {
        Ok(())
    } else {
        Err(BuildError::OutOfRange { what, value, limit })
    }
}

/// The register file a capture starts from when nothing set a register: the RSX's state after
/// reset, for the rendering registers whose reset value is not zero. Values are facts from
/// RPCS3's `rsx_state::init` (rsx_methods.cpp), which records the hardware's power-on register
/// dump; genuine captures carry them in `reg_state`. `(byte offset, value)`.
///
/// Not all of `rsx_state::init`: it sets about 150 more registers that a builder capture
/// starts at 0 unless a builder method writes them (the fragment and vertex texture units'
/// FORMAT, CONTROL1, CONTROL3 and IMAGE_RECT, the surface format, pitches, targets and DMAs,
/// `SET_SHADER_PROGRAM`, `SET_RENDER_ENABLE`, `SET_VERTEX_ATTRIB_INPUT_MASK` = 0xFFFF, the
/// Z-cull and S-cull controls, the report DMA, and the transfer classes' objects, DMAs and
/// formats). The bundled samples are made this way (`harness/tests/samples_current.rs`).
pub const RESET_REGISTERS: &[(u32, u32)] = &[
    (0x0308, 0x0207),      // ALPHA_FUNC = ALWAYS
    (0x0314, 0x0001_0001), // BLEND_FUNC_SFACTOR = ONE, ONE
    (0x0320, 0x8006_8006), // BLEND_EQUATION = FUNC_ADD, FUNC_ADD
    (0x0324, 0x0101_0101), // COLOR_MASK = A R G B
    (0x032C, 0xFF),        // STENCIL_MASK
    (0x0330, 0x0207),      // STENCIL_FUNC = ALWAYS
    (0x0338, 0xFF),        // STENCIL_FUNC_MASK
    (0x033C, 0x1E00),      // STENCIL_OP_FAIL = KEEP
    (0x0340, 0x1E00),      // STENCIL_OP_ZFAIL = KEEP
    (0x0344, 0x1E00),      // STENCIL_OP_ZPASS = KEEP
    (0x034C, 0xFF),        // BACK_STENCIL_MASK
    (0x0350, 0x0207),      // BACK_STENCIL_FUNC = ALWAYS
    (0x0358, 0xFF),        // BACK_STENCIL_FUNC_MASK
    (0x035C, 0x1E00),      // BACK_STENCIL_OP_FAIL = KEEP
    (0x0360, 0x1E00),      // BACK_STENCIL_OP_ZFAIL = KEEP
    (0x0364, 0x1E00),      // BACK_STENCIL_OP_ZPASS = KEEP
    (0x0368, 0x1D01),      // SHADE_MODE = SMOOTH
    (0x0388, 0x3F80_0000), // DEPTH_BOUNDS_MAX = 1.0
    (0x0398, 0x3F80_0000), // CLIP_MAX = 1.0
    (0x03B8, 0x08),        // LINE_WIDTH = 1.0 (6.3 fixed point)
    (0x08C0, 0x1000_0000), // SCISSOR_HORIZONTAL = 0, width 4096
    (0x08C4, 0x1000_0000), // SCISSOR_VERTICAL = 0, height 4096
    (0x0A6C, 0x0201),      // DEPTH_FUNC = LESS
    (0x0A70, 0x01),        // DEPTH_MASK = write
    (0x1828, 0x1B02),      // FRONT_POLYGON_MODE = FILL
    (0x182C, 0x1B02),      // BACK_POLYGON_MODE = FILL
    (0x1830, 0x0405),      // CULL_FACE = BACK
    (0x1834, 0x0901),      // FRONT_FACE = CCW
    (0x1D78, 0x01),        // ZMIN_MAX_CONTROL = clip
    (0x1D7C, 0xFFFF_0000), // ANTI_ALIASING_CONTROL: sample mask all
    (0x1D8C, 0xFFFF_FF00), // ZSTENCIL_CLEAR_VALUE
    (0x1DB0, 0xFFFF_FFFF), // RESTART_INDEX
    (0x1EE0, 0x3F80_0000), // POINT_SIZE = 1.0
    (0x0300, 0x01),        // DITHER_ENABLE
    (0x0378, 0x1503),      // LOGIC_OP = COPY
    (0x03B0, 0x0010_0000), // CONTROL0
    (0x08CC, 0x0800),      // FOG_MODE = EXP (params 0)
    (0x0A00, 0x1000_0000), // VIEWPORT_HORIZONTAL = 0, width 4096
    (0x0A04, 0x1000_0000), // VIEWPORT_VERTICAL = 0, height 4096
    (0x0A20, 0x4500_0000), // VIEWPORT_OFFSET x = 2048.0
    (0x0A24, 0x4500_0000), // VIEWPORT_OFFSET y = 2048.0
    (0x0A28, 0x3F00_0000), // VIEWPORT_OFFSET z = 0.5
    (0x0A30, 0x4500_0000), // VIEWPORT_SCALE x = 2048.0
    (0x0A34, 0x4500_0000), // VIEWPORT_SCALE y = 2048.0
    (0x0A38, 0x3F00_0000), // VIEWPORT_SCALE z = 0.5
    (0x1428, 0x01),        // SPECULAR_ENABLE
    (0x1450, 0x0008_0003), // PERFORMANCE_PARAMS
    (0x145C, 0x01),        // EDGE_FLAG
    (0x1D64, 0x0200_0000), // INDEXED_CONSTANT_READ_LIMITS
    (0x1D88, 0x1000),      // SHADER_WINDOW: height 0, origin bottom
    (0x1D98, 0x0FFF_0000), // CLEAR_RECT_HORIZONTAL
    (0x1D9C, 0x0FFF_0000), // CLEAR_RECT_VERTICAL
    (0x1E94, 0x11),        // TRANSFORM_EXECUTION_MODE
    (0x1FC4, 0x0614_4321), // ATTRIB_COLOR
    (0x1FC8, 0xEDCB_A987), // ATTRIB_TEX_COORD
    (0x1FCC, 0x6F),        // ATTRIB_TEX_COORD_EX
    (0x1FD0, 0x0017_1615), // ATTRIB_UCLIP0
    (0x1FD4, 0x001B_1A19), // ATTRIB_UCLIP1
    (0x1FE0, 0x01),        // REDUCE_DST_COLOR
    (0x1FF4, 0x003F_FFFF), // VERTEX_ATTRIB_OUTPUT_MASK: every output
];

/// Runs of registers with one reset value each, from the same source as [`RESET_REGISTERS`]:
/// `(first byte offset, count, byte stride, value)`.
pub const RESET_REGISTER_RUNS: &[(u32, u32, u32, u32)] = &[
    (0x02C4, 15, 4, 0x0FFF_0000), // WINDOW_CLIP_HORIZONTAL/VERTICAL 0..7 (but the first)
    (0x03C0, 16, 4, 0x0001_0101), // ANISO_SPREAD
    (0x0400, 16, 4, 0x7421),      // 0x400..0x43C (unnamed)
    (0x0B00, 16, 4, 0x2DC8),      // TEXTURE_CONTROL2
    (0x1740, 16, 4, 0x02),        // VERTEX_DATA_ARRAY_FORMAT: type 2, size 0 (no array)
    (0x1A08, 16, 0x20, 0x0003_0101), // TEXTURE_ADDRESS: WRAP, WRAP, CLAMP_TO_EDGE
    (0x1A0C, 16, 0x20, 0x0006_0000), // TEXTURE_CONTROL0: disabled, max LOD 12
    (0x1A14, 16, 0x20, 0x0205_2000), // TEXTURE_FILTER
];

/// The 16 words RPCS3's `rsx_state::init` writes at 0x440..0x47C (unnamed; kept so a builder
/// capture's register file is the one a genuine capture carries).
const RESET_WORDS_0440: [u32; 16] = [
    0x9AAB_AA98,
    0x6666_6789,
    0x9876_6666,
    0x89AA_BAA9,
    0x9999_9999,
    0x8888_8889,
    0x9888_8888,
    0x9999_9999,
    0x5667_6654,
    0x3333_3345,
    0x5433_3333,
    0x4566_7665,
    0xAABB_BA99,
    0x6666_7899,
    0x9987_6666,
    0x99AB_BBAA,
];

/// Every `(byte offset, value)` of the reset register file: [`RESET_REGISTERS`], the runs of
/// [`RESET_REGISTER_RUNS`] and the words at 0x440.
pub fn reset_register_file() -> impl Iterator<Item = (u32, u32)> {
    let runs = RESET_REGISTER_RUNS
        .iter()
        .flat_map(|&(first, count, stride, value)| {
            (0..count).map(move |i| (first + i * stride, value))
        });
    let words = (0u32..)
        .zip(RESET_WORDS_0440)
        .map(|(i, v)| (0x0440 + 4 * i, v));
    RESET_REGISTERS.iter().copied().chain(runs).chain(words)
}

impl CaptureBuilder {
    /// A builder for a capture whose provenance names `source_name`.
    ///
    /// The initial register file is the RSX's reset state ([`RESET_REGISTERS`]), as in a
    /// genuine capture of a game that never set those registers; change it with
    /// [`CaptureBuilder::initial_register`].
    pub fn new(source_name: &str) -> CaptureBuilder {
        let mut initial = RegState::default();
        for (offset, value) in reset_register_file() {
            if let Some(r) = initial.registers.get_mut(offset as usize / 4) {
                *r = value;
            }
        }
        CaptureBuilder {
            source_name: source_name.to_string(),
            regs: initial.registers.clone(),
            initial,
            started: false,
            commands: Vec::new(),
            ids: IdMaps::new(),
            memory: GuestMemory::new(),
            tile: TileState::default(),
            display: DisplayBuffersState::default(),
            clause: DrawClause::default(),
            texture_sizes: [0; FRAGMENT_TEXTURE_UNITS],
            vertex_texture_sizes: [0; VERTEX_TEXTURE_UNITS],
        }
    }

    fn check_not_started(&self, setter: &'static str) -> Result<(), BuildError> {
        if self.started {
            Err(BuildError::AlreadyRecording { setter })
        } else {
            Ok(())
        }
    }

    /// Set register `reg` (index = byte offset / 4) in the initial register file.
    pub fn initial_register(&mut self, reg: u32, value: u32) -> Result<(), BuildError> {
        self.check_not_started("initial_register")?;
        check_range("register index", u64::from(reg), u64::from(REGISTER_COUNT))?;
        let i = reg as usize;
        if let (Some(a), Some(b)) = (self.initial.registers.get_mut(i), self.regs.get_mut(i)) {
            *a = value;
            *b = value;
        }
        Ok(())
    }

    /// Put `words` into the initial transform-program image from instruction `slot` on
    /// (4 words per slot, 544 slots).
    pub fn initial_transform_program(
        &mut self,
        slot: u32,
        words: &[u32],
    ) -> Result<(), BuildError> {
        self.check_not_started("initial_transform_program")?;
        let start = u64::from(slot) * 4;
        check_range(
            "transform program end word",
            start + words.len() as u64,
            TRANSFORM_PROGRAM_WORDS as u64 + 1,
        )?;
        let start = start as usize;
        if let Some(dst) = self
            .initial
            .transform_program
            .get_mut(start..start + words.len())
        {
            dst.copy_from_slice(words);
        }
        Ok(())
    }

    /// Write (or, with `None`, omit) the optional transform-constants block of the tail
    /// (rrc-format.md 1.9). Constants past those given are zero; at most 512. The capture
    /// holds it as RPCS3 wrote it in a savestate-booted session; a file written from it
    /// uploads the constants by commands instead (`rsxtrace_rrc::rpcs3_form`), since RPCS3
    /// would read the block as registers.
    pub fn initial_transform_constants(
        &mut self,
        constants: Option<&[[f32; 4]]>,
    ) -> Result<(), BuildError> {
        self.check_not_started("initial_transform_constants")?;
        self.initial.transform_constants = match constants {
            None => None,
            Some(c) => {
                check_range(
                    "transform constant count",
                    c.len() as u64,
                    TRANSFORM_CONSTANT_SLOTS as u64 + 1,
                )?;
                let mut block = vec![[0u32; 4]; TRANSFORM_CONSTANT_SLOTS];
                for (dst, src) in block.iter_mut().zip(c) {
                    *dst = src.map(f32::to_bits);
                }
                Some(block)
            }
        };
        Ok(())
    }

    /// Set the current tile/zcull state. Before recording starts it is the initial state
    /// (carried by the first command); afterwards every draw END carries the current one.
    pub fn set_tile_state(&mut self, state: TileState) {
        self.tile = state;
    }

    /// Set the current display-buffers state (same timing rule as [`Self::set_tile_state`]).
    pub fn set_display_buffers(&mut self, state: DisplayBuffersState) {
        self.display = state;
    }

    /// Show display buffer `buffer` (`GCM_FLIP_COMMAND`, as RPCS3 records a frame's flip):
    /// RPCS3's replay presents that buffer; with no flip it presents buffer 1.
    pub fn flip(&mut self, buffer: u32) {
        self.record(methods::GCM_FLIP_COMMAND, buffer);
    }

    /// Place `bytes` in guest memory. Nothing is recorded: a draw's END attaches the parts it
    /// uses, as RPCS3 does (rrc-format.md 3.3).
    pub fn put_memory(
        &mut self,
        location: Location,
        offset: u32,
        bytes: &[u8],
    ) -> Result<(), BuildError> {
        self.memory
            .put(location, offset, bytes)
            .map_err(BuildError::Placement)
    }

    /// Start recording if it has not started: push the initial `(0x40, 0)` command with the
    /// current display-buffers and tile ids (`on_frame_end`, rrc-format.md 3.2).
    pub(crate) fn ensure_started(&mut self) {
        if self.started {
            return;
        }
        self.started = true;
        let (tile_state, display_buffer_state) =
            self.ids.display_tile_state(&self.tile, &self.display);
        self.commands.push(ReplayCommand {
            first: methods::NO_OPERATION,
            second: 0,
            memory: Vec::new(),
            tile_state,
            display_buffer_state,
        });
    }

    /// Record one argument of a normal method: `first = (reg << 2) | (1 << 18)`. `reg` must be
    /// a valid index and must not be an END (the callers guarantee both).
    pub(crate) fn record(&mut self, reg: u32, value: u32) {
        self.ensure_started();
        self.commands.push(ReplayCommand {
            first: methods::single_header(reg),
            second: value,
            ..Default::default()
        });
        self.write_register(reg, value);
    }

    /// Update the register mirror and the draw clause for one argument.
    fn write_register(&mut self, reg: u32, value: u32) {
        if let Some(r) = self.regs.get_mut(reg as usize) {
            *r = value;
        }
        match reg {
            methods::SET_BEGIN_END if value != 0 => self.clause.begin(value),
            methods::DRAW_ARRAYS => self
                .clause
                .append_array(value & 0xFF_FFFF, (value >> 24) + 1),
            methods::DRAW_INDEX_ARRAY => self
                .clause
                .append_indexed(value & 0xFF_FFFF, (value >> 24) + 1),
            methods::INLINE_ARRAY => self.clause.append_inline_word(),
            _ => {}
        }
    }

    /// Record a batched upload into a 32-register window (transform program or constants):
    /// one header with count N, then N-1 continuation entries whose `first` is 0
    /// (rrc-format.md 3.2). `words` is at most [`BATCH_WINDOW`] long and not empty.
    pub(crate) fn record_batch(&mut self, window_base: u32, words: &[u32]) {
        self.ensure_started();
        debug_assert!(!words.is_empty() && words.len() <= BATCH_WINDOW as usize);
        for (i, &w) in words.iter().enumerate() {
            let first = if i == 0 {
                methods::batch_header(window_base, words.len() as u32)
            } else {
                0
            };
            self.commands.push(ReplayCommand {
                first,
                second: w,
                ..Default::default()
            });
            self.write_register(window_base + i as u32, w);
        }
    }

    /// Raw escape hatch: record `value` written to register `reg` as one count-1 command.
    /// `SET_BEGIN_END` with 0 ends the draw and attaches its memory, which can fail.
    pub fn method(&mut self, reg: u32, value: u32) -> Result<(), BuildError> {
        check_range("register index", u64::from(reg), u64::from(REGISTER_COUNT))?;
        if reg == methods::SET_BEGIN_END && value == 0 {
            return self.end();
        }
        self.record(reg, value);
        Ok(())
    }

    /// The register file as the commands recorded so far have left it.
    pub fn registers(&self) -> &[u32] {
        &self.regs
    }

    /// Number of commands recorded so far (the initial NOP included once recording started).
    pub fn command_count(&self) -> usize {
        self.commands.len()
    }

    /// The capture: provenance RRC version 6, maps in id order, the commands, and the initial
    /// register state.
    pub fn finish(mut self) -> Capture {
        self.ensure_started();
        let entries = self.ids.into_entries();
        let mut capture = Capture::empty(&self.source_name);
        capture.tiles = entries.tiles;
        capture.blocks = entries.blocks;
        capture.data = entries.data;
        capture.display_buffers = entries.display_buffers;
        capture.commands = self.commands;
        capture.reg_state = self.initial;
        capture
    }

    /// Finish and write the capture to `path` as RPCS3 does (one gzip member,
    /// `rsxtrace_rrc::write_v6`). Returns the capture that was written.
    pub fn write_rrc(self, path: &Path) -> Result<Capture, BuildError> {
        let capture = self.finish();
        let bytes = rsxtrace_rrc::write_v6(&capture);
        std::fs::write(path, bytes).map_err(|source| BuildError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(capture)
    }
}

/// Copy guest bytes into a blob for the data map.
pub(crate) fn blob(bytes: &[u8]) -> Bytes {
    Bytes::copy_from_slice(bytes)
}
