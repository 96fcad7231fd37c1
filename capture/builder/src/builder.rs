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
/// reset, for the registers whose reset value is not zero. Values are facts from RPCS3's
/// `rsx_state::init` (rsx_methods.cpp), which records the hardware's power-on register dump;
/// genuine captures carry them in `reg_state`. `(byte offset, value)`.
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
];

impl CaptureBuilder {
    /// A builder for a capture whose provenance names `source_name`.
    ///
    /// The initial register file is the RSX's reset state ([`RESET_REGISTERS`]), as in a
    /// genuine capture of a game that never set those registers; change it with
    /// [`CaptureBuilder::initial_register`].
    pub fn new(source_name: &str) -> CaptureBuilder {
        let mut initial = RegState::default();
        for &(offset, value) in RESET_REGISTERS {
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
    /// (rrc-format.md 1.9). Constants past those given are zero; at most 512.
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
