//! A GDB remote server over one invocation of an RSX fragment program on the reference
//! interpreter (`rsxtrace debug`), so that gdb and every front end that speaks the GDB remote
//! protocol step RSX programs.
//!
//! - [`session`]: the invocation, recorded by the interpreter
//!   (`rsxtrace_replay::interp::fragment::trace`) and stepped through; breakpoints on slots;
//!   register writes re-run the invocation with the write made at that point.
//! - [`arch`]: the register file and target description gdb is told about (behind the i386
//!   core feature that stock gdb needs, `shared/reference/stack-notes.md`).
//! - [`server`]: the gdbstub target and its blocking event loop.
//! - [`conn`]: the connection, which refuses malformed packets with a `-` instead of ending.
//!
//! The register and address map is in `docs/debug.md`.

pub mod arch;
pub mod conn;
pub mod server;
pub mod session;

pub use server::serve;
pub use session::{Session, SessionError};
