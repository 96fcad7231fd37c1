//! RPCS3 RSX captures: files ([`rrc`]), the trace format ([`trace`]), the frame model
//! ([`frame`]), vertex and index fetch ([`fetch`]) and the capture builder ([`builder`]);
//! [`open`] opens any capture or trace by its content; [`overview`] is what `info` and `draws`
//! report, from a trace's frame index when it has one; [`trim`] cuts a capture down to a range
//! of draws; [`diff`] aligns two frames' draws and says what differs.
//!
//! Each part is its own crate under `capture/`; this crate re-exports them so that the rest of
//! the workspace depends on one name.

pub use rsxtrace_builder as builder;
pub use rsxtrace_fetch as fetch;
pub use rsxtrace_frame as frame;
pub use rsxtrace_rrc as rrc;
pub use rsxtrace_trace as trace;

pub mod diff;
pub mod edit;
pub mod open;
pub mod overview;
pub mod trim;
