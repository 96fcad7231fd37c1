//! A GDB remote server over one invocation of an RSX fragment program on the reference
//! interpreter (`rsxtrace debug`), so that gdb and every front end that speaks the GDB remote
//! protocol step RSX programs.
//!
//! - [`session`]: a fragment invocation, recorded by the interpreter
//!   (`rsxtrace_replay::interp::fragment::trace`) and stepped through; register writes re-run
//!   the invocation with the write made at that point.
//! - [`vertex`]: the same for one vertex (`rsxtrace_replay::interp::vertex::trace`).
//! - [`cursor`]: the position and the breakpoints on slots, shared by both.
//! - [`invocation`]: what the server needs from either.
//! - [`arch`]: the register file and target description gdb is told about (behind the i386
//!   core feature that stock gdb needs, `shared/reference/stack-notes.md`).
//! - [`server`]: the gdbstub target and its blocking event loop.
//! - [`conn`]: the connection, which refuses malformed packets with a `-` instead of ending.
//!
//! The register and address map is in `docs/debug.md`.

pub mod arch;
pub mod conn;
pub mod cursor;
pub mod invocation;
pub mod server;
pub mod session;
pub mod vertex;

pub use invocation::Invocation;
pub use server::serve;
pub use session::{Session, SessionError};
pub use vertex::VertexSession;
