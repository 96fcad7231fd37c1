//! Library side of the `rsxtrace` package: things the binary and the tests share.
//!
//! - [`samples`] builds the sample captures bundled in `traces/samples/` with the capture
//!   builder and rsxtrace's own program encoders.
//! - [`level`] builds the synthetic level in `traces/level/` with its ground truth.
//! - [`game_frame`] builds the game-scale frame in `traces/samples/`.
//! - [`texture_formats`] builds the texture-format sample in `traces/samples/` (one quad per
//!   RSX texture format).

pub mod game_frame;
pub mod level;
pub mod primitives_sample;
pub mod samples;
pub mod texture_formats;
