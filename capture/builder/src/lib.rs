//! A libgcm-like builder that produces genuine RPCS3 RSX captures (RRC version 6).
//!
//! Brief overview:
//! - [`CaptureBuilder`] records FIFO methods exactly as RPCS3's recorder does
//!   (`shared/reference/rrc-format.md` 3.2): an initial `(0x40, 0)` command carrying the
//!   display-buffers and tile ids, one count-1 command per method argument, and batched
//!   transform-program / transform-constant packets with continuation entries.
//! - Guest memory is placed with [`CaptureBuilder::put_memory`] and captured only when a draw's
//!   END attaches it (3.3), with ids from one counter starting at 0x1235 and maps
//!   de-duplicated by content ([`ids`]).
//! - [`CaptureBuilder::finish`] gives the [`rsxtrace_rrc::Capture`];
//!   [`CaptureBuilder::write_rrc`] writes it with `rsxtrace_rrc::write_v6`.
//! - [`transfer`] records image transfers between draws (`NV0039`, `NV3089` with `NV3062` or
//!   `NV309E` destinations).
//! - [`synthetic::large_frame`] generates a game-scale frame for benchmarks.
//! - [`damage::damage`] damages a capture by seeded edits, for robustness tests and fuzzing.
//!
//! ```
//! use rsxtrace_builder::{CaptureBuilder, synthetic::FRAGMENT_MOV_COL0};
//! use rsxtrace_rrc::Location;
//!
//! let mut b = CaptureBuilder::new("example_capture.rrc.gz");
//! b.set_fragment_program(Location::Local, 0x1000, &FRAGMENT_MOV_COL0, 0x40)?;
//! // Three float3 positions, big-endian as in guest memory.
//! let pos: Vec<u8> = [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]
//!     .iter()
//!     .flat_map(|v| v.to_be_bytes())
//!     .collect();
//! b.put_memory(Location::Main, 0x2000, &pos)?;
//! b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, 0x2000)?;
//! b.set_vertex_attrib_input_mask(1);
//! b.draw_arrays(5, &[(0, 3)])?;
//! let capture = b.finish();
//!
//! // The initial NOP, 4 setup commands, 3 array/mask commands, BEGIN, DRAW_ARRAYS, END.
//! assert_eq!(capture.commands[0].first, 0x40);
//! let end = capture.commands.last().unwrap();
//! assert_eq!((end.first, end.second), ((0x1808 | (1 << 18)), 0));
//! // The fragment program block and the vertex array block.
//! assert_eq!(end.memory.len(), 2);
//! assert_eq!(capture.memory_bytes(), 16 + 36);
//! # Ok::<(), rsxtrace_builder::BuildError>(())
//! ```
#![deny(missing_docs)]

mod builder;
pub mod damage;
pub mod draw;
mod error;
pub mod fragment_scan;
pub mod ids;
pub mod memory;
pub mod methods;
mod programs;
pub mod render_state;
mod rng;
pub mod synthetic;
pub mod texture;
pub mod transfer;
pub mod vertex_input;
pub mod vertex_ucode;

pub use builder::{
    reset_register_file, CaptureBuilder, FRAGMENT_TEXTURE_UNITS, RESET_REGISTERS,
    RESET_REGISTER_RUNS, VERTEX_TEXTURE_UNITS,
};
pub use error::{AttachError, BuildError};
pub use programs::{CONSTANTS_PER_PACKET, TRANSFORM_CONSTANTS, VERTEX_PROGRAM_SLOTS};
pub use render_state::{SurfaceDesc, SurfaceTarget};
pub use texture::TextureDesc;
pub use transfer::{MemoryCopyDesc, ScaledImageDesc, TransferSurfaceDesc, TransferSwizzleDesc};
pub use vertex_input::IndexType;
