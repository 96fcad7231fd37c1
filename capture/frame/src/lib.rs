//! The RSX method stream, the register state machine and the frame model: draws and their state.
//!
//! Brief overview:
//! - [`stream`] rebuilds `(register, value)` calls from `Capture::commands` with the batching
//!   countdown rule ([`packets`], [`method_calls`]).
//! - [`methods`] names registers (`NV4097_SET_TEXTURE_FORMAT[3]`); [`decode`] turns a call's
//!   argument into readable JSON for `export-jsonl`.
//! - [`Frame::from_capture`] applies the stream to the captured register file, tracks vertex
//!   program and constant uploads ([`transform`]), immediate attributes ([`immediate`]),
//!   immediate-mode vertices pushed inside a scope ([`push_buffer`]) and
//!   BEGIN/END scopes (their draw ranges joined as RPCS3 joins them, [`clause`]), and produces one [`Draw`] per scope in END order, with its state decoded
//!   ([`state`]), its fragment program read from captured memory ([`fragment`]) and a
//!   documented [`DrawSummary`].
//! - [`memory`] indexes the captured memory blocks; [`Frame::memory`] gives the view a draw
//!   sees, which implements `rsxtrace_fetch::GuestMemory`.
//! - [`search`] finds a byte pattern in every captured memory block.
//!
//! ```
//! use rsxtrace_frame::Frame;
//! use rsxtrace_rrc::{Capture, ReplayCommand};
//!
//! let mut capture = Capture::empty("doc");
//! let cmd = |first, second| ReplayCommand { first, second, ..Default::default() };
//! capture.commands = vec![
//!     cmd(0x40, 0),                    // initial NOP
//!     cmd((0x1808) | (1 << 18), 5),    // SET_BEGIN_END(TRIANGLES)
//!     cmd((0x1814) | (1 << 18), 0x0200_0000), // DRAW_ARRAYS first 0, count 3
//!     cmd((0x1808) | (1 << 18), 0),    // SET_BEGIN_END(END)
//! ];
//! let frame = Frame::from_capture(&capture).unwrap();
//! let s = frame.draws[0].summary();
//! assert_eq!((s.end_command, s.vertex_count), (3, 3));
//! ```
//!
//! Byte layouts and semantics are from `shared/reference/rrc-format.md` (sections 3 and 4);
//! every rule the code relies on cites its section there or the RPCS3 source it restates.

#![warn(missing_docs)]

pub mod clause;
pub mod decode;
pub mod draw;
pub mod error;
pub mod fragment;
pub mod frame;
pub mod immediate;
pub mod memory;
pub mod methods;
pub mod problem;
pub mod push_buffer;
pub mod regions;
pub mod search;
pub mod state;
pub mod stream;
pub mod transform;
pub mod write_rules;

/// Version of what the frame model reports in `rsxtrace info` and `rsxtrace draws` (the
/// counts, the draw summaries, the problems). A trace's frame index records the version that
/// computed it, and readers use the index only when it equals this one; raise it whenever a
/// change to the frame model changes any of those, so older indexes are recomputed.
pub const MODEL_VERSION: u32 = 9;

pub use decode::{decode_argument, method_record, MethodRecord};
pub use draw::{Draw, DrawProblem, DrawSummary, FpRef, Primitive};
pub use error::{FrameError, StreamError};
pub use fragment::{FragmentError, FragmentProgram, ProgramAddress};
pub use frame::{Frame, FrameStats};
pub use memory::{BlockRef, BlockSource, MemoryIndex, MemoryView};
pub use methods::{method_name, reg};
pub use problem::FrameProblem;
pub use regions::{BoundRegions, Regions, SurfaceRegions};
pub use stream::{collect_method_calls, method_calls, packets, MethodCall, Packet};
pub use transform::{TransformConstants, CONSTANT_COUNT};
