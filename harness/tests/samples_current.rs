//! The checked-in sample captures equal what `rsxtrace_scenes::samples` builds today.
//! Regenerate: `RSXTRACE_UPDATE_SAMPLES=1 cargo test -p rsxtrace --test integration samples_current::`.

use rsxtrace_capture::rrc;
use std::path::PathBuf;

fn samples_dir() -> PathBuf {
    rsxtrace_testkit::workspace!().samples_dir()
}

#[test]
fn basic_sample_is_current() {
    let built = rsxtrace_scenes::samples::basic().expect("build the basic sample");
    let path = samples_dir().join(rsxtrace_scenes::samples::BASIC);
    if std::env::var_os("RSXTRACE_UPDATE_SAMPLES").is_some() {
        std::fs::create_dir_all(samples_dir()).unwrap();
        std::fs::write(&path, rrc::write_v6(&built)).unwrap();
        eprintln!("wrote {}", path.display());
    }
    let stored = rrc::read_file(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {}: {e}; regenerate with RSXTRACE_UPDATE_SAMPLES=1",
            path.display()
        )
    });
    assert_eq!(stored.provenance.rrc_version, 6);
    assert_eq!(
        (
            &stored.tiles,
            &stored.blocks,
            &stored.data,
            &stored.display_buffers,
            &stored.commands,
            &stored.reg_state
        ),
        (
            &built.tiles,
            &built.blocks,
            &built.data,
            &built.display_buffers,
            &built.commands,
            &built.reg_state
        ),
        "{} is stale: regenerate with RSXTRACE_UPDATE_SAMPLES=1 cargo test -p rsxtrace --test integration samples_current::",
        path.display()
    );
}

#[test]
fn primitives_sample_is_current() {
    let built =
        rsxtrace_scenes::primitives_sample::primitives().expect("build the primitives sample");
    let path = samples_dir().join(rsxtrace_scenes::primitives_sample::PRIMITIVES);
    if std::env::var_os("RSXTRACE_UPDATE_SAMPLES").is_some() {
        std::fs::create_dir_all(samples_dir()).unwrap();
        std::fs::write(&path, rrc::write_v6(&built)).unwrap();
        eprintln!("wrote {}", path.display());
    }
    let stored = rrc::read_file(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {}: {e}; regenerate with RSXTRACE_UPDATE_SAMPLES=1",
            path.display()
        )
    });
    assert_eq!(
        (&stored.blocks, &stored.data, &stored.commands, &stored.reg_state),
        (&built.blocks, &built.data, &built.commands, &built.reg_state),
        "{} is stale: regenerate with RSXTRACE_UPDATE_SAMPLES=1 cargo test -p rsxtrace --test integration samples_current::",
        path.display()
    );
}
