//! The checked-in texture-format sample equals what `rsxtrace_scenes::texture_formats` builds today.
//! Regenerate: `RSXTRACE_UPDATE_SAMPLES=1 cargo test -p rsxtrace --test integration texture_formats_current::`.

use rsxtrace_capture::rrc;
use std::path::PathBuf;

#[test]
fn texture_formats_sample_is_current() {
    let built = rsxtrace_scenes::texture_formats::build().expect("build the texture-format sample");
    let dir: PathBuf = rsxtrace_testkit::workspace!().samples_dir();
    let path = dir.join(rsxtrace_scenes::texture_formats::FILE);
    if std::env::var_os("RSXTRACE_UPDATE_SAMPLES").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
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
        "{} is stale: regenerate with RSXTRACE_UPDATE_SAMPLES=1 cargo test -p rsxtrace --test integration texture_formats_current::",
        path.display()
    );
}
