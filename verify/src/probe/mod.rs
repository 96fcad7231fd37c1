//! Reverse-engineering probes: questions a capture settles, each answered with its evidence.
//!
//! - [`constant_layout`]: how each vertex program reads its constants (matrices, palettes
//!   indexed by an address register and the entries the vertices reach, vectors, scalars).
//! - [`matrix`]: 4x4 f64 matrices in the row-vector convention, inverse, decomposition.
//! - [`placement`]: the placements file (`{"id", "mesh", "world"}`).
//! - [`mvp`]: draws' c32..c35 matrices against placements x view-projection, and the
//!   view-projection estimated by consensus.
//! - [`mesh`]: a draw's vertex bytes matched to mesh files.
//! - [`uniforms`]: named fragment uniforms read from a draw's inline constants.
//! - [`maininv`]: the space a fog shader's `MainInv` lives in.
//! - [`textures`]: texture units bound versus units a fragment program can sample.
//! - [`vertex_textures`]: the units a vertex program samples (TXL), with the same flow classes.

pub mod constant_layout;
pub mod maininv;
pub mod matrix;
pub mod mesh;
pub mod mvp;
pub mod placement;
pub mod textures;
pub mod uniforms;
pub mod vertex_textures;
