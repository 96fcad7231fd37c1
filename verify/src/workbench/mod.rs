//! The reverse engineer's workbench: find data by content, export meshes and textures.
//!
//! - [`bytes`]: a range as a draw sees it, read piece by piece across overlapping blocks.
//! - [`uses`]: what memory each draw reads or writes, and as what (index buffer, attribute
//!   array, texture unit, fragment program, render target).
//! - [`find`]: where a byte pattern or a content hash is in a capture, mapped to the draws and
//!   roles that use it (`rsxtrace find`).
//! - [`gltf`]: draws exported as one glTF 2.0 binary, a mesh per draw (`rsxtrace export gltf`).
//! - [`texture_dump`]: every distinct texture as PNG (and DXT as DDS), named by content hash,
//!   with an index (`rsxtrace textures --dump`).

pub mod bytes;
pub mod find;
pub mod gltf;
pub mod texture_dump;
pub mod uses;
