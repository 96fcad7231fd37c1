//! Writing a [`Capture`] as a trace: builds the Cap'n Proto message (one pre-sized segment in
//! the usual case) and writes the magic, the segment table and the segments.

use std::io::Write;

use capnp::message::{Builder, HeapAllocator};
use rsxtrace_rrc::{
    Capture, Compression, TRANSFORM_CONSTANT_SLOTS, TRANSFORM_PROGRAM_WORDS,
    TRANSFORM_PROGRAM_WORDS_OLD,
};

use crate::framing::{FORMAT_MAJOR, FORMAT_MINOR, MAGIC};
use crate::index::TraceIndex;
use crate::trace_capnp::{self, trace};
use crate::TraceError;

/// Most elements in one Cap'n Proto list, and most words in one struct list: list pointers
/// hold a 29-bit count (Cap'n Proto encoding spec, "Lists").
const LIST_MAX: u64 = (1 << 29) - 1;

/// Largest first segment the heap allocator accepts (capnp `HeapAllocator` default maximum).
const MAX_SEGMENT_WORDS: u64 = 1 << 29;

/// Write `capture` as a trace file to `out`.
///
/// The capture is checked first: the transform program must be 2048 or 2176 words, the
/// constants block (if present) 512 slots, the register file 16384 words, and every list and
/// data blob must fit the Cap'n Proto encoding (at most 2^29 - 1 elements or bytes). Nothing is
/// written if a check fails.
pub fn write_trace(capture: &Capture, out: &mut impl Write) -> Result<(), TraceError> {
    write_trace_indexed(capture, None, out)
}

/// Write `capture` as a trace file to `out`, with the frame `index` (`Trace.index`) when given,
/// so that readers answer counts and the draw list without decoding the frame. The checks of
/// [`write_trace`] apply.
pub fn write_trace_indexed(
    capture: &Capture,
    index: Option<&TraceIndex>,
    out: &mut impl Write,
) -> Result<(), TraceError> {
    let message = build(capture, index)?;
    let segments = message.get_segments_for_output();
    out.write_all(&MAGIC)?;
    // Standard stream framing: u32 (segment count - 1), u32 size in words per segment, padding
    // to a multiple of 8 bytes (Cap'n Proto encoding spec, "Serialization Over a Stream").
    let count = segments.len();
    let mut table = Vec::with_capacity(4 * (count + 2));
    let count_minus_one = u32::try_from(count.saturating_sub(1))
        .map_err(|_| too_large("segment table", count as u64, 511))?;
    table.extend_from_slice(&count_minus_one.to_le_bytes());
    for segment in segments.iter() {
        let words = u32::try_from(segment.len() / 8)
            .map_err(|_| too_large("segment", segment.len() as u64 / 8, u64::from(u32::MAX)))?;
        table.extend_from_slice(&words.to_le_bytes());
    }
    if table.len() % 8 != 0 {
        table.extend_from_slice(&[0; 4]);
    }
    out.write_all(&table)?;
    for segment in segments.iter() {
        out.write_all(segment)?;
    }
    Ok(())
}

/// Write `capture` as a trace file into a new vector (see [`write_trace`] for the checks).
pub fn to_bytes(capture: &Capture) -> Result<Vec<u8>, TraceError> {
    let mut out = Vec::new();
    write_trace(capture, &mut out)?;
    Ok(out)
}

fn too_large(field: impl Into<String>, len: u64, max: u64) -> TraceError {
    TraceError::TooLarge {
        field: field.into(),
        len,
        max,
    }
}

/// The element count of a list field, checked against the encoding limits.
/// `words_per_element` is 0 for primitive lists (only the element count is limited).
/// `field` is only computed on error (callers in per-entry loops format an index into it).
pub(crate) fn list_len<S: Into<String>>(
    field: impl FnOnce() -> S,
    len: usize,
    words_per_element: u64,
) -> Result<u32, TraceError> {
    let len64 = len as u64;
    if len64 > LIST_MAX {
        return Err(too_large(field(), len64, LIST_MAX));
    }
    if len64.saturating_mul(words_per_element) > LIST_MAX {
        return Err(too_large(
            format!("{} (words)", field().into()),
            len64.saturating_mul(words_per_element),
            LIST_MAX,
        ));
    }
    // len64 <= LIST_MAX < 2^32.
    Ok(len64 as u32)
}

/// Check the register-state lengths so that every written trace can be read back.
fn check_reg_state(capture: &Capture) -> Result<(), TraceError> {
    let reg = &capture.reg_state;
    let program = reg.transform_program.len();
    if program != TRANSFORM_PROGRAM_WORDS && program != TRANSFORM_PROGRAM_WORDS_OLD {
        return Err(TraceError::InvalidLength {
            field: "regState.transformProgram".into(),
            expected: "2176 or 2048",
            found: program as u64,
        });
    }
    if let Some(constants) = &reg.transform_constants {
        if constants.len() != TRANSFORM_CONSTANT_SLOTS {
            return Err(TraceError::InvalidLength {
                field: "regState.transformConstants (vec4 slots)".into(),
                expected: "512",
                found: constants.len() as u64,
            });
        }
    }
    if reg.registers.len() != rsxtrace_rrc::REGISTER_COUNT {
        return Err(TraceError::InvalidLength {
            field: "regState.registers".into(),
            expected: "16384",
            found: reg.registers.len() as u64,
        });
    }
    Ok(())
}

/// A generous estimate of the message size, so that it is built in one segment.
fn estimate_words(capture: &Capture) -> u32 {
    let n = |len: usize| len as u64;
    let mut words: u64 = 64 + n(capture.provenance.source_name.len()) / 8 + 8;
    words += n(capture.tiles.len()) * (3 + 1 + 15 * 2 + 1 + 8 * 3);
    words += n(capture.blocks.len()) * 3;
    words += capture
        .data
        .iter()
        .map(|e| 2 + n(e.value.len()).div_ceil(8))
        .sum::<u64>();
    words += n(capture.display_buffers.len()) * (3 + 1 + 8 * 2);
    words += capture
        .commands
        .iter()
        .map(|c| 4 + n(c.memory.len()))
        .sum::<u64>();
    words += 16
        + (n(TRANSFORM_PROGRAM_WORDS) + 4 * n(TRANSFORM_CONSTANT_SLOTS)) / 2
        + n(rsxtrace_rrc::REGISTER_COUNT) / 2;
    // Fits: MAX_SEGMENT_WORDS < 2^32.
    words.min(MAX_SEGMENT_WORDS) as u32
}

/// Build the message for `capture`.
fn build(
    capture: &Capture,
    index: Option<&TraceIndex>,
) -> Result<Builder<HeapAllocator>, TraceError> {
    check_reg_state(capture)?;
    let allocator = HeapAllocator::new().first_segment_words(estimate_words(capture));
    let mut message = Builder::new(allocator);
    let mut root = message.init_root::<trace::Builder>();
    root.set_major_version(FORMAT_MAJOR);
    root.set_minor_version(FORMAT_MINOR);

    let provenance = &capture.provenance;
    // Text is stored with a NUL terminator.
    list_len(
        || "provenance.sourceName",
        provenance.source_name.len() + 1,
        0,
    )?;
    let mut p = root.reborrow().init_provenance();
    p.set_source_name(provenance.source_name.as_str());
    p.set_rrc_version(provenance.rrc_version);
    p.set_compression(match provenance.compression {
        Compression::None => trace_capnp::Compression::None,
        Compression::Gzip => trace_capnp::Compression::Gzip,
        Compression::Zstd => trace_capnp::Compression::Zstd,
    });
    p.set_sha256(&provenance.sha256);

    let count = list_len(|| "tiles", capture.tiles.len(), 3)?;
    let mut tiles = root.reborrow().init_tiles(count);
    for (i, entry) in (0..count).zip(&capture.tiles) {
        let mut b = tiles.reborrow().get(i);
        b.set_id(entry.id);
        let mut list = b.reborrow().init_tiles(15);
        for (j, t) in (0..15).zip(&entry.value.tiles) {
            let mut t_b = list.reborrow().get(j);
            t_b.set_tile(t.tile);
            t_b.set_limit(t.limit);
            t_b.set_pitch(t.pitch);
            t_b.set_format(t.format);
        }
        let mut list = b.init_zculls(8);
        for (j, z) in (0..8).zip(&entry.value.zculls) {
            let mut z_b = list.reborrow().get(j);
            z_b.set_region(z.region);
            z_b.set_size(z.size);
            z_b.set_start(z.start);
            z_b.set_offset(z.offset);
            z_b.set_status0(z.status0);
            z_b.set_status1(z.status1);
        }
    }

    let count = list_len(|| "blocks", capture.blocks.len(), 3)?;
    let mut blocks = root.reborrow().init_blocks(count);
    for (i, entry) in (0..count).zip(&capture.blocks) {
        let mut b = blocks.reborrow().get(i);
        b.set_id(entry.id);
        b.set_offset(entry.value.offset);
        b.set_location(entry.value.location);
        b.set_data_id(entry.value.data_id);
    }

    let count = list_len(|| "data", capture.data.len(), 2)?;
    let mut data = root.reborrow().init_data(count);
    for (i, entry) in (0..count).zip(&capture.data) {
        list_len(|| format!("data[{i}].bytes"), entry.value.len(), 0)?;
        let mut b = data.reborrow().get(i);
        b.set_id(entry.id);
        b.set_bytes(&entry.value);
    }

    let count = list_len(|| "displayBuffers", capture.display_buffers.len(), 3)?;
    let mut displays = root.reborrow().init_display_buffers(count);
    for (i, entry) in (0..count).zip(&capture.display_buffers) {
        let mut b = displays.reborrow().get(i);
        b.set_id(entry.id);
        b.set_count(entry.value.count);
        let mut list = b.init_buffers(8);
        for (j, s) in (0..8).zip(&entry.value.buffers) {
            let mut s_b = list.reborrow().get(j);
            s_b.set_width(s.width);
            s_b.set_height(s.height);
            s_b.set_pitch(s.pitch);
            s_b.set_offset(s.offset);
        }
    }

    let count = list_len(|| "commands", capture.commands.len(), 4)?;
    let mut commands = root.reborrow().init_commands(count);
    for (i, command) in (0..count).zip(&capture.commands) {
        let mut b = commands.reborrow().get(i);
        b.set_first(command.first);
        b.set_second(command.second);
        b.set_tile_state(command.tile_state);
        b.set_display_buffer_state(command.display_buffer_state);
        if !command.memory.is_empty() {
            let len = list_len(|| format!("commands[{i}].memory"), command.memory.len(), 0)?;
            let mut list = b.init_memory(len);
            for (j, id) in (0..len).zip(&command.memory) {
                list.set(j, *id);
            }
        }
    }

    let reg = &capture.reg_state;
    if let Some(index) = index {
        crate::index::build(index, root.reborrow().init_index())?;
    }
    let mut r = root.init_reg_state();
    // Lengths were checked by check_reg_state: all far below LIST_MAX.
    let mut program = r
        .reborrow()
        .init_transform_program(reg.transform_program.len() as u32);
    for (j, w) in (0..).zip(&reg.transform_program) {
        program.set(j, *w);
    }
    let mut registers = r.reborrow().init_registers(reg.registers.len() as u32);
    for (j, w) in (0..).zip(&reg.registers) {
        registers.set(j, *w);
    }
    let mut constants = r.init_transform_constants();
    match &reg.transform_constants {
        None => constants.set_absent(()),
        Some(slots) => {
            let mut list = constants.init_present(4 * slots.len() as u32);
            for (j, w) in (0..).zip(slots.iter().flatten()) {
                list.set(j, *w);
            }
        }
    }
    Ok(message)
}
