//! A synthetic capture at the scale of a real game frame, for benchmarks: about 650 MB of
//! captured memory over thousands of draws (RsxShaderMatch's Demon's Souls frame is 632 MB
//! and 1,724 draws; `shared/reference/users.md`).
//!
//! It is the game frame ([`crate::game_frame`]) with bigger assets and one more pass:
//! - meshes of 60 to 160 grid cells a side (thousands to tens of thousands of vertices; u16 index
//!   buffers, restart-joined strips, non-indexed quads), half in local and half in main memory;
//! - textures of 512, 1024 and 2048 texels a side in six formats (A8R8G8B8 up to 16 MiB each),
//!   with noise in their low bits so that they compress about as poorly as real art;
//! - a depth-only pass into a 2048 x 2048 shadow map before the main pass;
//! - materials, batches, per-draw matrices, tints and the final 2D batch as in the game frame.
//!
//! As in an RPCS3 capture, every draw attaches the memory it reads (fragment program,
//! textures, index ranges, attribute spans), and identical bytes are stored once, so the
//! capture's memory is what the draws used. The asset counts grow with
//! [`LargeCaptureOptions::memory_bytes`]; at hundreds of MB the memory the capture ends up
//! holding is within about a tenth of it (650 MiB asked, 637 MiB held), while a small one
//! varies more (one texture can take 16 MiB). Everything follows from [`LargeCaptureOptions::seed`]: the same
//! options give the same bytes on every run.
//!
//! Building 650 MB takes tens of seconds and writing it gzip-compressed as long again, so
//! benchmarks keep the file: [`cached_file`] writes it once under a directory and reuses it.
//!
//! ```
//! use rsxtrace_scenes::large_capture::{build, LargeCaptureOptions};
//! let capture = build(&LargeCaptureOptions { memory_bytes: 4 << 20, draws: 200, seed: 1 }).unwrap();
//! assert!(capture.memory_bytes() > 2 << 20);
//! ```

use crate::game_frame::{self, assets::Grain, GameFrameError, GameFrameOptions, Scale};
use rsxtrace_capture::rrc::Capture;
use std::path::{Path, PathBuf};

/// What to build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LargeCaptureOptions {
    /// Memory the capture should hold, in bytes (distinct captured bytes: the decompressed
    /// file is this plus a few MB of commands).
    pub memory_bytes: u64,
    /// Draws, the shadow pass's included.
    pub draws: usize,
    /// Seed of every choice.
    pub seed: u64,
}

/// 650 MiB, the size of the benchmarks' capture.
pub const BENCH_MEMORY_BYTES: u64 = 650 << 20;

impl Default for LargeCaptureOptions {
    /// The benchmarks' capture: 650 MiB over 4,000 draws.
    fn default() -> Self {
        LargeCaptureOptions {
            memory_bytes: BENCH_MEMORY_BYTES,
            draws: 4_000,
            seed: 0x1A26_E650,
        }
    }
}

/// Captured bytes one mesh adds on average (measured: meshes of 60..160 cells, the three
/// topologies and two layouts, with their index buffers; an interleaved buffer is captured
/// once per attribute, as RPCS3 captures it).
const BYTES_PER_MESH: u64 = 2_500_000;
/// Captured bytes one texture adds on average (measured: sides 512/1024/2048, six formats,
/// the few that no material binds included).
const BYTES_PER_TEXTURE: u64 = 2_200_000;
/// Share of the memory in textures, in percent; the rest is vertex and index data.
const TEXTURE_SHARE: u64 = 60;

impl LargeCaptureOptions {
    /// The asset counts that reach `memory_bytes`.
    fn scale(&self) -> Scale {
        let textures = self.memory_bytes * TEXTURE_SHARE / 100 / BYTES_PER_TEXTURE;
        let meshes = self.memory_bytes * (100 - TEXTURE_SHARE) / 100 / BYTES_PER_MESH;
        let textures = (textures as usize).max(3);
        Scale {
            meshes: (meshes as usize).max(3),
            cells: (60, 101),
            textures,
            texture_sides: [512, 1024, 2048],
            textures_in_both_memories: true,
            texture_grain: Grain::Noisy,
            // Enough materials that every texture is likely bound by one (each material
            // picks one per sampled unit, one or two on average).
            extra_materials: textures.saturating_sub(game_frame::PROGRAMS_PER_STAGE / 2),
            shadow_draws: self.draws / 25,
            mip_chains: false,
            streaming: None,
        }
    }

    /// The file name [`cached_file`] uses: options in the name, so files never collide.
    pub fn file_name(&self) -> String {
        format!(
            "large_{}_{}_{:x}.rrc.gz",
            self.memory_bytes, self.draws, self.seed
        )
    }
}

/// Build the capture.
pub fn build(options: &LargeCaptureOptions) -> Result<Capture, GameFrameError> {
    let frame = GameFrameOptions {
        corpus: None,
        draws: options.draws,
        seed: options.seed,
    };
    let mut capture = game_frame::build_scaled(&frame, &options.scale())?;
    capture.provenance.source_name = options.file_name();
    Ok(capture)
}

/// Why [`cached_file`] failed.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    /// The capture could not be built.
    #[error(transparent)]
    Build(#[from] GameFrameError),
    /// The file could not be written.
    #[error("cannot write {}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// The capture of `options` as a gzip-compressed RRC v6 file in `dir`, built and written
/// the first time and reused afterwards (the file name holds the options; a file is written
/// under a temporary name and renamed, so a half-written one is never reused).
pub fn cached_file(options: &LargeCaptureOptions, dir: &Path) -> Result<PathBuf, CacheError> {
    write_once(dir, &options.file_name(), || build(options))
}

/// `dir/name`, made by `build` and written gzip-compressed the first time, reused afterwards
/// (written under a temporary name and renamed, so a half-written file is never reused).
pub(crate) fn write_once(
    dir: &Path,
    name: &str,
    build: impl FnOnce() -> Result<Capture, GameFrameError>,
) -> Result<PathBuf, CacheError> {
    let path = dir.join(name);
    if path.is_file() {
        return Ok(path);
    }
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| CacheError::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let capture = build()?;
    let bytes = rsxtrace_capture::rrc::write_v6(&capture);
    drop(capture);
    let partial = dir.join(format!("{name}.partial-{}", std::process::id()));
    std::fs::write(&partial, &bytes).map_err(io(&partial))?;
    std::fs::rename(&partial, &path).map_err(io(&path))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_capture::frame::Frame;

    #[test]
    fn a_small_one_is_deterministic_decodes_and_has_a_shadow_pass() {
        let options = LargeCaptureOptions {
            memory_bytes: 16 << 20,
            draws: 100,
            seed: 5,
        };
        let capture = build(&options).unwrap();
        let got = capture.memory_bytes();
        assert!(
            got > options.memory_bytes / 2 && got < options.memory_bytes * 3,
            "{got} bytes of memory for {} asked",
            options.memory_bytes
        );
        let frame = Frame::from_capture(&capture).unwrap();
        assert_eq!(frame.draws.len(), options.draws);
        assert!(frame.draws.iter().all(|d| d.problems.is_empty()));
        let shadow = options.draws / 25;
        for d in &frame.draws[..shadow] {
            assert_eq!(d.surface.color_target.raw, 0, "draw {}", d.index);
            assert_eq!((d.surface.clip.width, d.surface.clip.height), (2048, 2048));
        }
        let main = &frame.draws[shadow];
        assert_eq!(main.surface.color_target.raw, 1);
        assert_eq!(
            (main.surface.clip.width, main.surface.clip.height),
            (1280, 720)
        );
        assert!(frame
            .draws
            .iter()
            .any(|d| d.textures.iter().any(|t| t.width >= 512)));
        // Same options, same capture.
        assert_eq!(build(&options).unwrap(), capture);
    }
}
