//! Replay of RSX programs and frames.
//!
//! [`program`] re-exports the program layer (containers, decoders, encoders, disassembly,
//! flow analysis).

pub use rsxtrace_program as program;
