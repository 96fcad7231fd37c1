//! The checked-in sample captures equal what `rsxtrace_scenes` builds today (the basic sample,
//! the primitives sample, the texture-format sample, the occlusion sample).
//! Regenerate: `RSXTRACE_UPDATE_SAMPLES=1 cargo test -p rsxtrace --test integration samples_current::`.

use rsxtrace_capture::rrc::{self, Capture};

/// `built` against the sample file `name` in `traces/samples` (written first with
/// `RSXTRACE_UPDATE_SAMPLES`): its tiles, blocks, data, display buffers, commands and
/// register state.
fn check_current(built: &Capture, name: &str) {
    let dir = rsxtrace_testkit::workspace!().samples_dir();
    let path = dir.join(name);
    if std::env::var_os("RSXTRACE_UPDATE_SAMPLES").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(&path, rrc::write_v6(built)).unwrap();
        eprintln!("wrote {}", path.display());
    }
    shows_a_frame_in_rpcs3(built, name);
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

/// RPCS3's replay presents the buffer the frame flips, and nothing when the capture has no
/// sized display buffer (its flip then asks for buffer 1): each sample describes its colour
/// target as display buffer 0 from the first command and ends with a flip of it.
pub fn shows_a_frame_in_rpcs3(built: &Capture, name: &str) {
    let first = built.commands[0].display_buffer_state;
    let display = built.display_buffers.iter().find(|d| d.id == first);
    let display = display.unwrap_or_else(|| panic!("{name}: no display state on command 0"));
    assert!(
        display.value.count >= 1 && display.value.buffers[0].width > 0,
        "{name}"
    );
    let last = built.commands.last().unwrap();
    assert_eq!(
        (last.first, last.second),
        (0xFEAC | 1 << 18, 0),
        "{name}: ends with a flip"
    );
}

#[test]
fn basic_sample_is_current() {
    let built = rsxtrace_scenes::samples::basic().expect("build the basic sample");
    check_current(&built, rsxtrace_scenes::samples::BASIC);
}

#[test]
fn primitives_sample_is_current() {
    let built =
        rsxtrace_scenes::primitives_sample::primitives().expect("build the primitives sample");
    check_current(&built, rsxtrace_scenes::primitives_sample::PRIMITIVES);
}

#[test]
fn occlusion_sample_is_current() {
    let built = rsxtrace_scenes::occlusion::occlusion_capture();
    check_current(&built, rsxtrace_scenes::occlusion::FILE);
}

#[test]
fn texture_formats_sample_is_current() {
    let built = rsxtrace_scenes::texture_formats::build().expect("build the texture-format sample");
    check_current(&built, rsxtrace_scenes::texture_formats::FILE);
}
