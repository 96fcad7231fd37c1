//! Shared helpers of the `divergence_*` tests: a device or a loud skip (a failure under
//! `CI=true`), and the sample traces under `traces/samples/`.
#![allow(dead_code)]

use rsxtrace_capture::frame::Frame;
use rsxtrace_gpu::{Gpu, GpuOptions};
use std::path::PathBuf;
use std::sync::OnceLock;

/// `CI=true` in the environment.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Mesa wants an `XDG_RUNTIME_DIR` (stack-notes.md 1(b)); set a private one once.
fn private_runtime_dir() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
            let dir =
                std::env::temp_dir().join(format!("rsxtrace-verify-xdg-{}", std::process::id()));
            std::fs::create_dir_all(&dir).expect("create XDG_RUNTIME_DIR");
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
                    .expect("chmod XDG_RUNTIME_DIR");
            }
            std::env::set_var("XDG_RUNTIME_DIR", &dir);
        }
    });
}

/// A device, or `None` after a loud "GPU SKIPPED" (a failure with `CI=true`).
pub fn gpu(test: &str) -> Option<Gpu> {
    private_runtime_dir();
    match Gpu::new(GpuOptions::default()) {
        Ok(g) => Some(g),
        Err(e) => {
            eprintln!("GPU SKIPPED: {test}: {e}");
            assert!(!in_ci(), "GPU SKIPPED in CI ({test}): {e}");
            None
        }
    }
}

/// `traces/samples` of the workspace.
pub fn samples_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../traces/samples")
}

/// Every sample trace (`*.rrc`, `*.rrc.gz`, `*.rrc.zst`), sorted by name.
pub fn sample_paths() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(samples_dir())
        .expect("traces/samples exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            n.ends_with(".rrc") || n.ends_with(".rrc.gz") || n.ends_with(".rrc.zst")
        })
        .collect();
    v.sort();
    v
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
