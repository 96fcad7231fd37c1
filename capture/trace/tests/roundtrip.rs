//! Round trips Capture -> trace -> Capture, the zero-copy guarantee, provenance, and the
//! checks the writer and reader make.

use crate::common;

use common::full_capture;
use rsxtrace_rrc::{Capture, Compression};
use rsxtrace_trace::{is_trace, to_bytes, write_trace, Trace, TraceError, FORMAT_MAJOR, MAGIC};

fn round_trip(capture: &Capture) -> Capture {
    let bytes = to_bytes(capture).expect("write");
    assert!(is_trace(&bytes));
    assert_eq!(
        bytes.len() % 8,
        0,
        "framing keeps the file a whole number of words"
    );
    Trace::from_bytes(bytes)
        .expect("open")
        .to_capture()
        .expect("read")
}

#[test]
fn full_capture_round_trips() {
    let capture = full_capture();
    assert_eq!(round_trip(&capture), capture);
}

#[test]
fn constants_absent_round_trips() {
    let mut capture = full_capture();
    capture.reg_state.transform_constants = None;
    let back = round_trip(&capture);
    assert_eq!(back.reg_state.transform_constants, None);
    assert_eq!(back, capture);
}

#[test]
fn program_512_slots_round_trips() {
    let mut capture = full_capture();
    capture.reg_state.transform_program.truncate(2048);
    capture.reg_state.transform_constants = None;
    capture.provenance.rrc_version = 5;
    capture.provenance.compression = Compression::None;
    let back = round_trip(&capture);
    assert_eq!(back.reg_state.transform_program.len(), 2048);
    assert_eq!(back, capture);
}

#[test]
fn empty_capture_round_trips() {
    let capture = Capture::empty("built-by-hand");
    assert_eq!(round_trip(&capture), capture);
}

#[test]
fn provenance_is_preserved() {
    let mut capture = full_capture();
    for compression in [Compression::None, Compression::Gzip, Compression::Zstd] {
        capture.provenance.compression = compression;
        capture.provenance.source_name = format!("naïve {compression:?}.rrc");
        let trace = Trace::from_bytes(to_bytes(&capture).unwrap()).unwrap();
        let provenance = trace.view().unwrap().provenance().unwrap();
        assert_eq!(provenance, capture.provenance);
        assert_eq!(trace.to_capture().unwrap().provenance, capture.provenance);
    }
}

#[test]
fn file_starts_with_magic_and_is_word_aligned() {
    let bytes = to_bytes(&full_capture()).unwrap();
    assert_eq!(&bytes[..8], b"RSXTRACE");
    assert_eq!(MAGIC, *b"RSXTRACE");
    // One segment (the writer sizes the first segment): count-1 = 0, then the segment size.
    assert_eq!(&bytes[8..12], &[0, 0, 0, 0]);
    let words = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    assert_eq!(bytes.len(), 16 + 8 * words);
}

#[test]
fn open_maps_the_file_and_to_capture_does_not_copy_data() {
    let capture = full_capture();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("frame.rsxtrace");
    let mut file = std::fs::File::create(&path).unwrap();
    write_trace(&capture, &mut file).unwrap();
    drop(file);

    let trace = Trace::open(&path).unwrap();
    assert_eq!(trace.format_version().0, FORMAT_MAJOR);
    assert_eq!(trace.command_count().unwrap(), 7);
    let back = trace.to_capture().unwrap();
    assert_eq!(back, capture);
    let file = trace.as_bytes().as_ptr_range();
    for entry in back.data.iter().filter(|e| !e.value.is_empty()) {
        let blob = entry.value.as_ptr_range();
        assert!(
            file.start <= blob.start && blob.end <= file.end,
            "data blob {:#x} is a copy, not a slice of the map",
            entry.id
        );
    }
    // The blobs keep the map alive after the trace is dropped.
    drop(trace);
    assert_eq!(back.data[0].value, capture.data[0].value);
}

#[test]
fn accessors_walk_commands_and_data() {
    let capture = full_capture();
    let trace = Trace::from_bytes(to_bytes(&capture).unwrap()).unwrap();
    let view = trace.view().unwrap();
    assert_eq!(view.command_count().unwrap(), capture.commands.len() as u32);
    let commands = view.commands().unwrap();
    assert_eq!(commands.len(), capture.commands.len());
    for (c, want) in commands.zip(&capture.commands) {
        let c = c.unwrap();
        assert_eq!(
            (c.first, c.second, c.tile_state, c.display_buffer_state),
            (
                want.first,
                want.second,
                want.tile_state,
                want.display_buffer_state
            )
        );
        assert_eq!(c.memory.iter().collect::<Vec<_>>(), want.memory);
    }
    let data: Vec<_> = view.data().unwrap().map(|d| d.unwrap()).collect();
    assert_eq!(data.len(), capture.data.len());
    for (d, want) in data.iter().zip(&capture.data) {
        assert_eq!((d.id, d.bytes), (want.id, &want.value[..]));
        if !d.bytes.is_empty() {
            let range = view.file_range(d.bytes).expect("inside the file");
            assert_eq!(&trace.as_bytes()[range], &want.value[..]);
        }
    }
}

#[test]
fn a_trace_can_be_walked_many_times() {
    let trace = Trace::from_bytes(to_bytes(&full_capture()).unwrap()).unwrap();
    let first = trace.to_capture().unwrap();
    for _ in 0..5 {
        assert_eq!(trace.to_capture().unwrap(), first);
    }
    // One view is good for two full walks.
    let view = trace.view().unwrap();
    assert_eq!(view.to_capture().unwrap(), first);
    assert_eq!(view.to_capture().unwrap(), first);
}

#[test]
fn writer_refuses_bad_register_state() {
    let mut capture = full_capture();
    capture.reg_state.registers.pop();
    assert!(matches!(
        to_bytes(&capture),
        Err(TraceError::InvalidLength { found: 16383, .. })
    ));
    let mut capture = full_capture();
    capture.reg_state.transform_program.push(0);
    assert!(matches!(
        to_bytes(&capture),
        Err(TraceError::InvalidLength { found: 2177, .. })
    ));
    let mut capture = full_capture();
    capture.reg_state.transform_constants = Some(vec![[0; 4]; 511]);
    let err = to_bytes(&capture).unwrap_err();
    assert!(err.to_string().contains("transformConstants"), "{err}");
}

#[test]
fn wrong_magic_is_refused() {
    let mut bytes = to_bytes(&full_capture()).unwrap();
    bytes[0] = b'X';
    assert!(!is_trace(&bytes));
    let err = Trace::from_bytes(bytes).unwrap_err();
    assert!(matches!(err, TraceError::BadMagic { .. }), "{err}");
    assert!(err.to_string().contains("at byte 0"), "{err}");
    // An RRC file is not a trace.
    let err = Trace::from_bytes(b"RRC\0\x06\0\0\0\x01\0\0\0".to_vec()).unwrap_err();
    assert!(matches!(err, TraceError::BadMagic { .. }), "{err}");
}

#[test]
fn unknown_major_version_is_refused() {
    let bytes = to_bytes(&full_capture()).unwrap();
    // The root struct's data section starts right after the root pointer: file offset
    // 8 (magic) + 8 (segment table) + 8 (root pointer); majorVersion is its first u32.
    let mut patched = bytes.clone();
    patched[24..28].copy_from_slice(&2u32.to_le_bytes());
    let err = Trace::from_bytes(patched).unwrap_err();
    assert!(
        matches!(
            err,
            TraceError::UnsupportedVersion {
                major: 2,
                minor: rsxtrace_trace::FORMAT_MINOR,
                known: 1
            }
        ),
        "{err}"
    );
    // A newer minor version is accepted.
    let mut patched = bytes;
    patched[28..32].copy_from_slice(&3u32.to_le_bytes());
    assert_eq!(Trace::from_bytes(patched).unwrap().format_version(), (1, 3));
}

#[test]
fn bad_lengths_in_the_message_are_refused_by_field() {
    // Write a message by hand with the generated builder: a register file one word short.
    use rsxtrace_trace::trace_capnp::trace;
    let mut message = capnp::message::Builder::new_default();
    let mut root = message.init_root::<trace::Builder>();
    root.set_major_version(1);
    root.reborrow().init_provenance().init_sha256(32);
    let mut reg = root.init_reg_state();
    reg.reborrow().init_transform_program(2176);
    reg.reborrow().init_registers(16383);
    let mut bytes = MAGIC.to_vec();
    capnp::serialize::write_message(&mut bytes, &message).unwrap();
    let err = Trace::from_bytes(bytes).unwrap().to_capture().unwrap_err();
    assert!(
        matches!(&err, TraceError::InvalidLength { field, found: 16383, .. } if field == "regState.registers"),
        "{err}"
    );
}
