//! Converting a trace message into the in-memory [`Capture`] model, checking every fixed length
//! the model relies on. Memory data blobs become `Bytes` slices of the trace's own storage.

use bytes::Bytes;
use capnp::primitive_list;
use rsxtrace_rrc::{
    BufferState, Capture, Compression, DisplayBuffersState, Entry, MemoryBlock, Provenance,
    RegState, ReplayCommand, TileInfo, TileState, ZcullInfo, REGISTER_COUNT,
    TRANSFORM_CONSTANT_SLOTS, TRANSFORM_PROGRAM_WORDS, TRANSFORM_PROGRAM_WORDS_OLD,
};

use crate::error::Context;
use crate::read::TraceView;
use crate::storage::SharedBacking;
use crate::trace_capnp::{self, reg_state, trace};
use crate::TraceError;

/// Refuse a struct list with more elements than the message has words.
///
/// Every struct in the schema has a data section, so a conforming writer spends at least one
/// word per element; only a hostile message (zero-sized elements, which Cap'n Proto charges per
/// element rather than per word) can exceed this. Checking it bounds what a walk allocates by the
/// file size.
pub(crate) fn check_struct_list(field: &str, len: u32, total_words: u64) -> Result<(), TraceError> {
    if u64::from(len) > total_words {
        return Err(TraceError::InvalidLength {
            field: field.to_string(),
            expected: "at most one element per message word",
            found: u64::from(len),
        });
    }
    Ok(())
}

fn exact_len(
    field: impl FnOnce() -> String,
    len: u32,
    want: usize,
    expected: &'static str,
) -> Result<(), TraceError> {
    if len as usize != want {
        return Err(TraceError::InvalidLength {
            field: field(),
            expected,
            found: u64::from(len),
        });
    }
    Ok(())
}

/// Read the provenance struct.
pub(crate) fn provenance(root: trace::Reader<'_>) -> Result<Provenance, TraceError> {
    let p = root.get_provenance().field(|| "provenance")?;
    let source_name = p
        .get_source_name()
        .field(|| "provenance.sourceName")?
        .to_string()
        .map_err(capnp::Error::from)
        .field(|| "provenance.sourceName")?;
    let compression = match p.get_compression().field(|| "provenance.compression")? {
        trace_capnp::Compression::None => Compression::None,
        trace_capnp::Compression::Gzip => Compression::Gzip,
        trace_capnp::Compression::Zstd => Compression::Zstd,
    };
    let sha = p.get_sha256().field(|| "provenance.sha256")?;
    let sha256: [u8; 32] = sha.try_into().map_err(|_| TraceError::InvalidLength {
        field: "provenance.sha256".into(),
        expected: "32",
        found: sha.len() as u64,
    })?;
    Ok(Provenance {
        source_name,
        rrc_version: p.get_rrc_version(),
        compression,
        sha256,
    })
}

fn tile_state(
    i: u32,
    e: trace_capnp::tile_state_entry::Reader<'_>,
) -> Result<TileState, TraceError> {
    let mut state = TileState::default();
    let tiles = e.get_tiles().field(|| format!("tiles[{i}].tiles"))?;
    exact_len(|| format!("tiles[{i}].tiles"), tiles.len(), 15, "15")?;
    for (dst, t) in state.tiles.iter_mut().zip(tiles.iter()) {
        *dst = TileInfo {
            tile: t.get_tile(),
            limit: t.get_limit(),
            pitch: t.get_pitch(),
            format: t.get_format(),
        };
    }
    let zculls = e.get_zculls().field(|| format!("tiles[{i}].zculls"))?;
    exact_len(|| format!("tiles[{i}].zculls"), zculls.len(), 8, "8")?;
    for (dst, z) in state.zculls.iter_mut().zip(zculls.iter()) {
        *dst = ZcullInfo {
            region: z.get_region(),
            size: z.get_size(),
            start: z.get_start(),
            offset: z.get_offset(),
            status0: z.get_status0(),
            status1: z.get_status1(),
        };
    }
    Ok(state)
}

fn display_state(
    i: u32,
    e: trace_capnp::display_buffers_entry::Reader<'_>,
) -> Result<DisplayBuffersState, TraceError> {
    let mut state = DisplayBuffersState {
        count: e.get_count(),
        ..Default::default()
    };
    let buffers = e
        .get_buffers()
        .field(|| format!("displayBuffers[{i}].buffers"))?;
    exact_len(
        || format!("displayBuffers[{i}].buffers"),
        buffers.len(),
        8,
        "8",
    )?;
    for (dst, b) in state.buffers.iter_mut().zip(buffers.iter()) {
        *dst = BufferState {
            width: b.get_width(),
            height: b.get_height(),
            pitch: b.get_pitch(),
            offset: b.get_offset(),
        };
    }
    Ok(state)
}

fn words(list: primitive_list::Reader<'_, u32>) -> Vec<u32> {
    list.iter().collect()
}

fn reg_state(r: reg_state::Reader<'_>) -> Result<RegState, TraceError> {
    let program = r
        .get_transform_program()
        .field(|| "regState.transformProgram")?;
    let len = program.len() as usize;
    if len != TRANSFORM_PROGRAM_WORDS && len != TRANSFORM_PROGRAM_WORDS_OLD {
        return Err(TraceError::InvalidLength {
            field: "regState.transformProgram".into(),
            expected: "2176 or 2048",
            found: len as u64,
        });
    }
    let transform_constants = match r
        .get_transform_constants()
        .which()
        .field(|| "regState.transformConstants")?
    {
        reg_state::transform_constants::Absent(()) => None,
        reg_state::transform_constants::Present(list) => {
            let list = list.field(|| "regState.transformConstants.present")?;
            exact_len(
                || "regState.transformConstants.present".into(),
                list.len(),
                4 * TRANSFORM_CONSTANT_SLOTS,
                "2048",
            )?;
            let flat = words(list);
            Some(
                flat.chunks_exact(4)
                    .map(|c| [c[0], c[1], c[2], c[3]])
                    .collect(),
            )
        }
    };
    let registers = r.get_registers().field(|| "regState.registers")?;
    exact_len(
        || "regState.registers".into(),
        registers.len(),
        REGISTER_COUNT,
        "16384",
    )?;
    Ok(RegState {
        transform_program: words(program),
        transform_constants,
        registers: words(registers),
    })
}

/// The trace's tile map (`tiles`), as the capture holds it.
pub(crate) fn tile_entries(view: &TraceView<'_>) -> Result<Vec<Entry<TileState>>, TraceError> {
    let list = view.root()?.get_tiles().field(|| "tiles")?;
    check_struct_list("tiles", list.len(), view.trace().total_words())?;
    (0..list.len())
        .zip(list.iter())
        .map(|(i, e)| {
            Ok(Entry {
                id: e.get_id(),
                value: tile_state(i, e)?,
            })
        })
        .collect()
}

/// Build the whole capture from one view.
pub(crate) fn to_capture(view: &TraceView<'_>) -> Result<Capture, TraceError> {
    let total_words = view.trace().total_words();
    let root = view.root()?;
    let provenance = provenance(root)?;

    let tiles = tile_entries(view)?;

    let list = root.get_blocks().field(|| "blocks")?;
    check_struct_list("blocks", list.len(), total_words)?;
    let blocks = list
        .iter()
        .map(|e| Entry {
            id: e.get_id(),
            value: MemoryBlock {
                offset: e.get_offset(),
                location: e.get_location(),
                data_id: e.get_data_id(),
            },
        })
        .collect();

    // One owner for the whole file; each blob is a slice of it (zero copy).
    let file = Bytes::from_owner(SharedBacking(view.trace().backing().clone()));
    let data = view
        .data()?
        .map(|d| {
            let d = d?;
            let value = if d.bytes.is_empty() {
                Bytes::new()
            } else {
                match view.file_range(d.bytes) {
                    Some(range) => file.slice(range),
                    // Not reachable for a flat message; copy rather than fail.
                    None => Bytes::copy_from_slice(d.bytes),
                }
            };
            Ok(Entry { id: d.id, value })
        })
        .collect::<Result<Vec<_>, TraceError>>()?;

    let list = root.get_display_buffers().field(|| "displayBuffers")?;
    check_struct_list("displayBuffers", list.len(), total_words)?;
    let display_buffers = (0..list.len())
        .zip(list.iter())
        .map(|(i, e)| {
            Ok(Entry {
                id: e.get_id(),
                value: display_state(i, e)?,
            })
        })
        .collect::<Result<Vec<_>, TraceError>>()?;

    let commands = view
        .commands()?
        .map(|c| {
            let c = c?;
            Ok(ReplayCommand {
                first: c.first,
                second: c.second,
                memory: c.memory.iter().collect(),
                tile_state: c.tile_state,
                display_buffer_state: c.display_buffer_state,
            })
        })
        .collect::<Result<Vec<_>, TraceError>>()?;

    let reg_state = reg_state(root.get_reg_state().field(|| "regState")?)?;
    Ok(Capture {
        provenance,
        tiles,
        blocks,
        data,
        display_buffers,
        commands,
        reg_state,
    })
}
