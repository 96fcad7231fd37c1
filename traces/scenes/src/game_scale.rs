//! Captures of the three sizes issue 14 measures at: 2,000 / 8,000 / 20,000 draws holding
//! 62 / 257 / 661 MB uncompressed ([`Size`]), laid out as RPCS3 writes captures, for the
//! benchmarks of replay and verify at game scale.
//!
//! Each is the game frame ([`crate::game_frame`]: materials drawn in batches, per-draw
//! matrices and tints, a shadow pass, a final 2D batch; the corpus's genuine programs mixed in
//! when [`GameScaleOptions::corpus`] names it) with what a game's frame holds beyond it:
//! - textures with full mip chains (256 to 1024 texels a side, some twice as wide as high),
//!   mostly DXT1/DXT3/DXT5, the rest swizzled (Z-order) A8R8G8B8, R5G6B5, A4R4G4B4, A1R5G5B5
//!   and B8 plus one linear A8R8G8B8, each level the box-filtered one above; most sampled
//!   with a min filter that blends two levels (trilinear);
//! - particle batches streamed through a ring buffer in main memory, as a game's dynamic
//!   vertex buffer: each such draw writes its vertices at the ring's head before it is drawn,
//!   the ring wraps, and later draws overwrite bytes earlier draws read; each draw's
//!   attachments hold the bytes at the time of the draw, as RPCS3 captures them;
//! - meshes of 30 to 80 grid cells a side in both memories.
//!
//! Asset counts follow [`GameScaleOptions::memory_bytes`] (the decompressed file's length);
//! the three sizes come within a few percent of it. Everything follows from the seed: the
//! same options give the same bytes on every run. [`build_logged`] also returns where each
//! streamed draw's vertices went, for tests. Building the largest takes about a minute, so
//! benchmarks keep the files: [`cached_file`] writes each once.
//!
//! ```
//! use rsxtrace_scenes::game_scale::{build, GameScaleOptions};
//! let options = GameScaleOptions { draws: 60, memory_bytes: 4_000_000, ..Default::default() };
//! let capture = build(&options).unwrap();
//! assert!(capture.memory_bytes() > 1_000_000);
//! ```

use crate::game_frame::{self, GameFrameError, GameFrameOptions, Scale, StreamedDraw, Streaming};
use crate::large_capture::{write_once, CacheError};
use rsxtrace_capture::rrc::Capture;
use std::path::{Path, PathBuf};

/// The sizes of issue 14.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Size {
    /// 2,000 draws, 62 MB.
    Draws2k,
    /// 8,000 draws, 257 MB.
    Draws8k,
    /// 20,000 draws, 661 MB.
    Draws20k,
}

impl Size {
    /// All three, smallest first.
    pub const ALL: [Size; 3] = [Size::Draws2k, Size::Draws8k, Size::Draws20k];

    /// Draws.
    pub fn draws(self) -> usize {
        match self {
            Size::Draws2k => 2_000,
            Size::Draws8k => 8_000,
            Size::Draws20k => 20_000,
        }
    }

    /// Uncompressed bytes.
    pub fn memory_bytes(self) -> u64 {
        match self {
            Size::Draws2k => 62_000_000,
            Size::Draws8k => 257_000_000,
            Size::Draws20k => 661_000_000,
        }
    }

    /// A short name: `2k`, `8k`, `20k`.
    pub fn name(self) -> &'static str {
        match self {
            Size::Draws2k => "2k",
            Size::Draws8k => "8k",
            Size::Draws20k => "20k",
        }
    }

    /// From [`Size::name`] (also `2000`, `8000`, `20000`).
    pub fn from_name(name: &str) -> Option<Size> {
        Size::ALL
            .into_iter()
            .find(|s| s.name() == name || s.draws().to_string() == name)
    }
}

/// What to build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameScaleOptions {
    /// Draws, the shadow pass's included.
    pub draws: usize,
    /// Length the decompressed file should have, in bytes.
    pub memory_bytes: u64,
    /// Seed of every choice.
    pub seed: u64,
    /// Mix in the programs of this corpus directory (`../shared/corpus`).
    pub corpus: Option<PathBuf>,
}

impl Default for GameScaleOptions {
    /// The smallest size, without the corpus.
    fn default() -> Self {
        GameScaleOptions::of(Size::Draws2k, None)
    }
}

/// Draws per mesh: the mesh count follows the draws, so that every size's meshes are drawn
/// about as often, by about as many programs (a mesh's captured bytes grow with that: each
/// vertex program captures only the attributes it reads, each draw only its part).
const DRAWS_PER_MESH: usize = 50;
/// Bytes one mesh adds to the file on average, drawn [`DRAWS_PER_MESH`] times (measured:
/// 30..80 cells, three topologies, two layouts, the corpus's programs mixed in).
const BYTES_PER_MESH: u64 = 480_000;
/// Bytes one texture adds on average: the full chains of the format cycle over sides 256,
/// 512 and 1024, square and 2:1 (`mip_chains::CYCLE`; computed).
const BYTES_PER_TEXTURE: u64 = 777_000;
/// Bytes each draw adds beyond its assets (commands, tinted program copies, streamed
/// particles; measured).
const BYTES_PER_DRAW: u64 = 5_000;
/// Share of the materials whose scene draws stream particles, in percent.
const STREAMED_PERCENT: usize = 12;

impl GameScaleOptions {
    /// One of the sizes of issue 14, with its own seed.
    pub fn of(size: Size, corpus: Option<PathBuf>) -> GameScaleOptions {
        GameScaleOptions {
            draws: size.draws(),
            memory_bytes: size.memory_bytes(),
            seed: 0x6A3E_0014 ^ size.draws() as u64,
            corpus,
        }
    }

    /// The asset counts that reach `memory_bytes`; small captures (under 32 MB, for tests)
    /// get textures of 32 to 128 texels a side.
    fn scale(&self) -> Scale {
        let meshes = (self.draws / DRAWS_PER_MESH).max(3);
        let assets = self
            .memory_bytes
            .saturating_sub(self.draws as u64 * BYTES_PER_DRAW)
            .saturating_sub(meshes as u64 * BYTES_PER_MESH);
        let small = self.memory_bytes < 32_000_000;
        let textures = if small {
            // Sides an eighth as long: a 64th of the bytes; few, for fast tests.
            (assets / (BYTES_PER_TEXTURE / 64)).min(24) as usize
        } else {
            (assets / BYTES_PER_TEXTURE) as usize
        };
        // About one material per batch (27.5 draws on average), so the frame draws each.
        let extra_materials = (self.draws / 28).saturating_sub(game_frame::PROGRAMS_PER_STAGE);
        Scale {
            meshes,
            cells: (30, 51),
            textures: textures.max(12),
            texture_sides: if small {
                [32, 64, 128]
            } else {
                [256, 512, 1024]
            },
            textures_in_both_memories: true,
            texture_grain: game_frame::assets::Grain::Noisy,
            extra_materials: extra_materials.max(16),
            shadow_draws: self.draws / 25,
            mip_chains: true,
            streaming: Some(Streaming {
                ring_bytes: ring_bytes(self.memory_bytes),
                percent: STREAMED_PERCENT,
            }),
        }
    }

    /// The file name [`cached_file`] uses: options in the name, so files never collide.
    pub fn file_name(&self) -> String {
        format!(
            "game_scale_{}_{}_{:x}{}.rrc.gz",
            self.draws,
            self.memory_bytes,
            self.seed,
            if self.corpus.is_some() { "_corpus" } else { "" }
        )
    }
}

/// The ring's size: a 128th of the capture, 32 KiB to 4 MiB (a game's dynamic vertex buffer
/// is a few MB), in 128-byte units.
fn ring_bytes(memory_bytes: u64) -> u32 {
    let bytes = (memory_bytes / 128).clamp(32 << 10, 4 << 20) as u32;
    bytes & !0x7F
}

/// Build the capture.
pub fn build(options: &GameScaleOptions) -> Result<Capture, GameFrameError> {
    build_logged(options).map(|(capture, _)| capture)
}

/// Build the capture; with it, where each streamed draw's vertices were written.
pub fn build_logged(
    options: &GameScaleOptions,
) -> Result<(Capture, Vec<StreamedDraw>), GameFrameError> {
    let frame = GameFrameOptions {
        corpus: options.corpus.clone(),
        draws: options.draws,
        seed: options.seed,
    };
    let (mut capture, streamed) = game_frame::build_logged(&frame, &options.scale())?;
    capture.provenance.source_name = options.file_name();
    Ok((capture, streamed))
}

/// The capture of `options` as a gzip-compressed RRC v6 file in `dir`, built and written the
/// first time and reused afterwards.
pub fn cached_file(options: &GameScaleOptions, dir: &Path) -> Result<PathBuf, CacheError> {
    write_once(dir, &options.file_name(), || build(options))
}
