//! Verification of recompiled RSX shaders against the reference interpreter, placement matching
//! and reverse-engineering probes.
//!
//! This crate is the home of the `batch`, `verify`, `match`, `mvp`, `uniforms`, `probe`,
//! `textures`, `find` and `export gltf` commands' logic (the last ones in [`workbench`]); it
//! re-exports the layers it builds on.

pub use rsxtrace_capture as capture;
pub use rsxtrace_replay as replay;

pub mod batch;
pub mod divergence;
pub mod explain;
pub mod invocation;
pub mod matching;
pub mod probe;
pub mod shard;
pub mod workbench;
