//! RSX programs: containers, vertex and fragment microcode (decode, encode, disassemble) and flow
//! analysis.
//!
//! Brief overview:
//! - [`container`]: `CgBinaryProgram` (`.vpo`/`.fpo`), the Tiny3D/PSL1GHT `VP` container, and
//!   raw microcode.
//! - [`fragment`]: fragment-program microcode (NV40 FP with the RSX half-word swap).
//! - [`source`]: programs found under paths (loose containers, RPCS3 shader caches,
//!   executables) with their content keys.
//! - [`vertex`]: vertex-program microcode (dual-issue vector and scalar units).
//!
//! Encodings and their sources: `shared/reference/rsx-microcode.md`.

pub mod assembly;
pub mod container;
pub mod coverage;
pub mod flow;
pub mod fragment;
pub mod kept_encoding;
pub mod source;
pub mod vertex;
