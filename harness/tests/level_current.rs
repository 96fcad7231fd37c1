//! The checked-in synthetic level in `traces/level/` equals what `rsxtrace_scenes::level::build`
//! makes today. Regenerate: `RSXTRACE_UPDATE_SAMPLES=1 cargo test -p rsxtrace --test
//! level_current`.

use rsxtrace_capture::rrc;
use rsxtrace_scenes::level::{self, LevelOptions};
use std::path::PathBuf;

fn level_dir() -> PathBuf {
    rsxtrace_testkit::workspace!().level_dir()
}

#[test]
fn level_files_are_current() {
    let built = level::build(&LevelOptions::default()).expect("build the level");
    crate::samples_current::shows_a_frame_in_rpcs3(&built.capture, level::CAPTURE_FILE);
    let dir = level_dir();
    if std::env::var_os("RSXTRACE_UPDATE_SAMPLES").is_some() {
        level::write(&built, &dir).expect("write the level");
        eprintln!("wrote {}", dir.display());
    }
    for (name, bytes) in level::files(&built) {
        let path = dir.join(&name);
        let stored = std::fs::read(&path).unwrap_or_else(|e| {
            panic!(
                "cannot read {}: {e}; regenerate with RSXTRACE_UPDATE_SAMPLES=1",
                path.display()
            )
        });
        if name == level::CAPTURE_FILE {
            // Compare the decoded capture, not the gzip bytes.
            let stored = rrc::read_file(&path).expect("read the stored capture");
            assert_eq!(
                (&stored.blocks, &stored.data, &stored.commands, &stored.reg_state),
                (
                    &built.capture.blocks,
                    &built.capture.data,
                    &built.capture.commands,
                    &built.capture.reg_state
                ),
                "{} is stale: regenerate with RSXTRACE_UPDATE_SAMPLES=1 cargo test -p rsxtrace --test integration level_current::",
                path.display()
            );
        } else {
            assert!(
                stored == bytes,
                "{} is stale: regenerate with RSXTRACE_UPDATE_SAMPLES=1 cargo test -p rsxtrace --test integration level_current::",
                path.display()
            );
        }
    }
    // No stray mesh files.
    let mut names: Vec<String> = std::fs::read_dir(dir.join(level::MESHES_DIR))
        .expect("meshes directory")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    names.sort();
    let mut want: Vec<String> = built
        .meshes
        .iter()
        .map(|(n, _)| format!("{n}.bin"))
        .collect();
    want.sort();
    assert_eq!(names, want);
}
