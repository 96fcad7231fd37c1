//! The scene generators behind the bundled sample captures: each builds a capture with the
//! capture builder and rsxtrace's own program encoders, byte for byte the same on every run,
//! so `harness/tests/*_current.rs` can check that the files in `traces/` are current (and
//! rewrite them with `RSXTRACE_UPDATE_SAMPLES=1`).
//!
//! - [`samples`] builds the sample captures bundled in `traces/samples/` with the capture
//!   builder and rsxtrace's own program encoders.
//! - [`level`] builds the synthetic level in `traces/level/` with its ground truth.
//! - [`primitives_sample`] builds the primitives sample in `traces/samples/` (the draws of
//!   ps3autotests' primitives test: quads, strips, polygon modes, point sizes, stipples).
//! - [`game_frame`] builds the game-scale frame in `traces/samples/`.
//! - [`game_scale`] builds captures of the three sizes of issue 14 (2,000 / 8,000 / 20,000
//!   draws, 62 / 257 / 661 MB): mip-mapped DXT and swizzled textures, a ring buffer that
//!   wraps, the corpus's programs when present.
//! - [`large_capture`] builds a capture of any size (650 MiB for the benchmarks) from the
//!   game frame's generator.
//! - [`program_library`] writes program libraries (the scenes' programs by name, or
//!   thousands of generated ones) for `rsxtrace match`.
//! - [`texture_formats`] builds the texture-format sample in `traces/samples/` (one quad per
//!   RSX texture format).
//! - [`skinned`]: a skinned draw whose vertex program reads a bone palette through the
//!   address register, a matrix as rows, one as columns and a scalar (`probe constants`).
//! - [`vertex_texture`] builds a grid displaced by a mip-mapped vertex texture (TXL).
//! - [`square_target`]: the small scenes' square colour and depth surface and clip-space
//!   viewport.
//! - [`occlusion`]: occlusion queries deciding draws under conditional rendering (a lens
//!   flare behind an occluder and one in the open).

pub mod game_frame;
pub mod game_scale;
pub mod large_capture;
pub mod level;
pub mod occlusion;
pub mod primitives_sample;
pub mod program_library;
pub mod samples;
pub mod skinned;
pub mod square_target;
pub mod texture_formats;
pub mod vertex_texture;
