//! Replay of RSX programs and frames.
//!
//! Brief overview:
//! - [`program`] re-exports the program layer (containers, decoders, encoders, disassembly,
//!   flow analysis).
//! - [`interp`] is the reference interpreter: RSX vertex and fragment programs executed on the
//!   CPU with the RSX's own arithmetic rules, in batches of lanes.
//! - [`texture`] is the texture sampling model the fragment interpreter samples through.
//! - [`exec`] runs a captured draw's vertex program over its fetched vertices; [`shade`] runs a
//!   fragment program over an image.
//! - [`raster`] is primitive assembly, clipping and rasterization shared by the CPU reference
//!   render and `verify`'s fragment stage; [`render`] replays a frame to images, on the CPU
//!   (reference) or on a GPU device.
//! - [`coverage`] is the opcode coverage report (`docs/COVERAGE.md`).
//! - [`edit`] writes a capture whose chosen draws run other programs (`rsxtrace edit`).
//! - [`wgsl`] re-exports the WGSL recompiler (`replay/wgsl`).

pub mod coverage;
pub mod edit;
pub mod exec;
pub mod interp;
pub mod raster;
pub mod render;
pub mod shade;
pub mod texture;

pub use rsxtrace_program as program;
pub use rsxtrace_wgsl as wgsl;
