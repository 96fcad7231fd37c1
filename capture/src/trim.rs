//! Trimming a capture to a range of draws (apitrace's `trim`): a smaller capture that replays
//! draws `A..B` of a frame as `replay --draws A..B` renders them from the whole file, for a
//! bug report or a test case.
//!
//! What is kept: every command up to draw `B − 1`'s END, so that the register state, the
//! transform program and constants, the clears and the image transfers before and between the
//! kept draws are all there; before draw `A`'s BEGIN the draw methods go (`SET_BEGIN_END`,
//! `DRAW_ARRAYS`, `DRAW_INDEX_ARRAY`, `INLINE_ARRAY`, `ARRAY_ELEMENT16/32`), so the draws
//! before `A` draw nothing, while every register they write still takes effect, as in the
//! whole frame. A draw's memory is attached to its END command (RPCS3's `capture_draw_memory`,
//! `Capture/rsx_capture.cpp`, called per draw from `RSXThread.cpp`, puts each draw's blocks in
//! the last replay command's `memory_state`; rrc-format.md 3.3), so the removed draws' memory
//! goes with them; blocks and data no kept command refers to are dropped. Tile and
//! display-buffer state changes carried by a removed command move to the next kept one. After
//! the cut, the frame's last flip (`GCM_FLIP_COMMAND`) is kept as one command, so that RPCS3
//! shows the buffer the game flipped (without a flip it shows buffer 1). A
//! batch (one header, several arguments) that mixes removed and kept writes becomes one
//! single-argument command per kept write.
//!
//! The parts of one BEGIN/END (`Draw::part`) are kept or removed together: a range that
//! starts or ends inside one grows to its first or last part ([`TrimReport::draws`] says
//! which draws were kept). The trimmed frame's draw `k` is the whole frame's draw `A + k`.
//! Its output surface is the trimmed frame's own (the last draw's colour target, or the
//! displayed buffer), which is the whole frame's when the kept draws render into it.

use crate::frame::methods::reg;
use crate::frame::stream::packets;
use crate::frame::Frame;
use crate::rrc::{Capture, ReplayCommand};
use std::collections::HashSet;
use std::ops::Range;

/// Why a capture cannot be trimmed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TrimError {
    /// The range holds no draw of the frame.
    #[error("draws {start}..{end}: the frame has {draws} draws")]
    EmptyRange {
        /// First draw asked for.
        start: usize,
        /// One past the last.
        end: usize,
        /// Draws in the frame.
        draws: usize,
    },
}

/// What trimming did.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TrimReport {
    /// The draws kept, as the whole frame numbers them.
    pub draws: Range<usize>,
    /// Commands before and after.
    pub commands: (usize, usize),
    /// Memory blocks before and after.
    pub blocks: (usize, usize),
    /// Bytes of memory data before and after.
    pub data_bytes: (u64, u64),
}

/// The draw methods a removed draw loses (their writes only submit vertices).
const DRAW_METHODS: [u16; 6] = [
    reg::SET_BEGIN_END,
    reg::DRAW_ARRAYS,
    reg::DRAW_INDEX_ARRAY,
    reg::INLINE_ARRAY,
    reg::ARRAY_ELEMENT16,
    reg::ARRAY_ELEMENT32,
];

/// The frame's last flip after command `cut`, as one single-argument command carrying the
/// latest tile and display-buffer states recorded after `cut` up to it: without a flip
/// RPCS3's replay shows display buffer 1 (`request_emu_flip(1)` in its replay thread), not
/// the buffer the game flipped.
fn final_flip(commands: &[ReplayCommand], cut: usize) -> Option<ReplayCommand> {
    let after = commands.get(cut + 1..)?;
    let flip = packets(after)
        .flatten()
        .flat_map(|p| p.calls().collect::<Vec<_>>())
        .filter(|c| c.reg == reg::GCM_FLIP_COMMAND)
        .last()?;
    let mut out = ReplayCommand {
        first: (1 << 18) | (u32::from(reg::GCM_FLIP_COMMAND) << 2),
        second: flip.value,
        ..ReplayCommand::default()
    };
    for c in &after[..=flip.command_index] {
        if c.tile_state != 0 {
            out.tile_state = c.tile_state;
        }
        if c.display_buffer_state != 0 {
            out.display_buffer_state = c.display_buffer_state;
        }
    }
    Some(out)
}

/// `capture` (decoded as `frame`) trimmed to the draws `range` (see the module documentation).
pub fn trim(
    capture: &Capture,
    frame: &Frame,
    range: Range<usize>,
) -> Result<(Capture, TrimReport), TrimError> {
    let draws = frame.draws.len();
    let (mut start, mut end) = (range.start.min(draws), range.end.min(draws));
    // The parts of one BEGIN/END (`Draw::part`) stay together.
    let same_clause =
        |a: usize, b: usize| frame.draws[a].begin_command == frame.draws[b].begin_command;
    if start < end {
        while start > 0 && same_clause(start - 1, start) {
            start -= 1;
        }
        while end < draws && same_clause(end - 1, end) {
            end += 1;
        }
    }
    let range = start..end;
    let last = frame
        .draws
        .get(range.end.wrapping_sub(1))
        .filter(|_| !range.is_empty())
        .ok_or(TrimError::EmptyRange {
            start: range.start,
            end: range.end,
            draws,
        })?;
    let cut = last.end_command;
    // Nothing before the first kept draw's BEGIN draws: every draw method there goes (those
    // of the removed draws, and any stray one, which draws nothing in the whole frame either).
    let kept_begin = frame.draws[range.start].begin_command;
    // Per command entry: the register its argument goes to, for the entries of packets that
    // lose a write.
    let commands = &capture.commands[..=cut.min(capture.commands.len().saturating_sub(1))];
    let mut drop = vec![false; commands.len()];
    let mut split: Vec<Option<u16>> = vec![None; commands.len()];
    for packet in packets(commands).flatten() {
        let calls: Vec<_> = packet.calls().collect();
        let gone: Vec<bool> = calls
            .iter()
            .map(|c| DRAW_METHODS.contains(&c.reg) && c.command_index < kept_begin)
            .collect();
        if !gone.iter().any(|&g| g) {
            continue;
        }
        let whole = gone.iter().all(|&g| g);
        for (c, g) in calls.iter().zip(gone) {
            if let Some(d) = drop.get_mut(c.command_index) {
                *d = g;
            }
            if !whole {
                if let Some(s) = split.get_mut(c.command_index) {
                    *s = Some(c.reg);
                }
            }
        }
    }
    let mut out: Vec<ReplayCommand> = Vec::with_capacity(commands.len());
    // State changes of removed entries, for the next kept one.
    let (mut tile, mut display) = (0u64, 0u64);
    for (i, c) in commands.iter().enumerate() {
        if drop[i] {
            tile = if c.tile_state != 0 {
                c.tile_state
            } else {
                tile
            };
            display = if c.display_buffer_state != 0 {
                c.display_buffer_state
            } else {
                display
            };
            continue;
        }
        let mut kept = c.clone();
        if let Some(r) = split[i] {
            // One single-argument header for this write.
            kept.first = (1 << 18) | (u32::from(r) << 2);
        }
        if kept.tile_state == 0 {
            kept.tile_state = tile;
        }
        if kept.display_buffer_state == 0 {
            kept.display_buffer_state = display;
        }
        (tile, display) = (0, 0);
        out.push(kept);
    }
    out.extend(final_flip(&capture.commands, cut));
    let used: HashSet<u64> = out.iter().flat_map(|c| c.memory.iter().copied()).collect();
    let blocks: Vec<_> = capture
        .blocks
        .iter()
        .filter(|b| used.contains(&b.id))
        .cloned()
        .collect();
    let data_ids: HashSet<u64> = blocks.iter().map(|b| b.value.data_id).collect();
    let data: Vec<_> = capture
        .data
        .iter()
        .filter(|d| data_ids.contains(&d.id))
        .cloned()
        .collect();
    fn bytes<T: AsRef<[u8]>>(d: &[crate::rrc::Entry<T>]) -> u64 {
        d.iter().map(|e| e.value.as_ref().len() as u64).sum()
    }
    let report = TrimReport {
        draws: range,
        commands: (capture.commands.len(), out.len()),
        blocks: (capture.blocks.len(), blocks.len()),
        data_bytes: (bytes(&capture.data), bytes(&data)),
    };
    let trimmed = Capture {
        provenance: capture.provenance.clone(),
        tiles: capture.tiles.clone(),
        blocks,
        data,
        display_buffers: capture.display_buffers.clone(),
        commands: out,
        reg_state: capture.reg_state.clone(),
    };
    Ok((trimmed, report))
}
