//! Shared helpers of the `divergence_*` tests: a device or a loud skip (`rsxtrace-testkit`'s
//! adapter policy: a failure under `CI=true`), and the frames of the sample traces under
//! `traces/samples/` (found by the testkit).
#![allow(dead_code)]

use rsxtrace_capture::frame::Frame;
use rsxtrace_gpu::{Gpu, GpuError, GpuOptions};
use std::path::PathBuf;

/// A device, or `None` after a loud "GPU ADAPTER MISSING" (a failure with `CI=true`; any other
/// error fails too).
pub fn gpu(test: &str) -> Option<Gpu> {
    rsxtrace_testkit::device::open_or_skip(
        test,
        || Gpu::new(GpuOptions::default()),
        |e| matches!(e, GpuError::NoAdapter { .. }),
    )
}

/// `traces/samples` of the workspace.
pub fn samples_dir() -> PathBuf {
    rsxtrace_testkit::workspace!().samples_dir()
}

/// Every sample trace (`*.rrc`, `*.rrc.gz`, `*.rrc.zst`), sorted by name.
pub fn sample_paths() -> Vec<PathBuf> {
    rsxtrace_testkit::workspace!().sample_paths()
}

/// The frame of a sample trace.
pub fn frame(path: &std::path::Path) -> Frame {
    let capture = rsxtrace_capture::rrc::read_file(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Frame::from_capture(&capture).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The basic sample's frame (built by `traces/scenes/src/samples.rs`: three draws; draw 1's vertex
/// program writes HPOS and COL0, draw 2's fragment program samples texture unit 0).
pub fn basic() -> Frame {
    frame(&samples_dir().join("basic.rrc.gz"))
}

/// Test-only GPU-side edit: draw 1 only, the instruction writing o[COL0] (register 1) negates
/// its first source, as a recompiler that dropped a sign would.
pub fn negate_col0_of_draw_1(draw: usize, p: &mut rsxtrace_program::vertex::VertexProgram) {
    if draw != 1 {
        return;
    }
    for i in &mut p.instructions {
        if i.output == Some(rsxtrace_program::vertex::OutputRegister(1)) {
            i.sources[0].negate ^= true;
        }
    }
}

/// Test-only GPU-side edit: draw 0 only, R0.w is no longer written (a wrong write mask).
pub fn drop_alpha_of_draw_0(draw: usize, p: &mut rsxtrace_program::fragment::FragmentProgram) {
    if draw != 0 {
        return;
    }
    for i in &mut p.instructions {
        if i.dest.index == 0 && !i.dest.fp16 {
            i.dest.mask.0 &= !0b1000;
        }
    }
}
