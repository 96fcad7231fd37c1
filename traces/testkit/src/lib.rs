//! Dev-only support shared by the tests and benches of every rsxtrace crate.
//!
//! - [`ci`]: whether the run is CI (`CI=true`), where every skip becomes a failure.
//! - [`paths`]: the workspace root (walked up from the caller's manifest directory, see
//!   [`workspace!`]) and the bundled traces under it.
//! - [`corpus`]: `../shared/corpus` beside the workspace root, with the loud-absence rule.
//! - [`device`]: the GPU adapter skip policy around a caller-given device constructor.
//! - [`gltf_validator`]: the Khronos glTF Validator under node, with the loud-absence rule.
//! - [`psl1ght`]: PSL1GHT containers in `cgcomp`'s layout since July 2020, byte by byte.
//! - [`tiny3d`]: the Tiny3D fragment programs of the corpus (`nv_shaders_fp.json`).
//! - [`image`]: RGBA8 PNG read/write and image comparison.
//! - [`rng`]: small seeded generators (xorshift64, xorshift64*).
//!
//! It depends on no rsxtrace crate, so any crate can take it as a dev-dependency.

pub mod cg_little_endian;
pub mod ci;
pub mod corpus;
pub mod device;
pub mod gltf_validator;
pub mod image;
pub mod paths;
pub mod psl1ght;
pub mod rng;
pub mod tiny3d;

pub use ci::in_ci;
pub use corpus::Corpus;
pub use paths::Workspace;

/// The [`Workspace`] of the crate that expands it: walks up from that crate's
/// `CARGO_MANIFEST_DIR` to the directory holding `Cargo.lock`.
#[macro_export]
macro_rules! workspace {
    () => {
        $crate::Workspace::from_manifest_dir(env!("CARGO_MANIFEST_DIR"))
    };
}
