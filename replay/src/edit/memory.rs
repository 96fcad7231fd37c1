//! Where a new fragment program can go: the memory a frame reads or writes, known from the
//! frame alone, and the highest free aligned place in local memory outside it.

use crate::render::extent::{surface_extents, Extent};
use crate::render::state::FrameEvents;
use crate::render::transfer::destination_extent;
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::{Capture, Location};

/// Bytes of local memory RPCS3's capture replay maps (`allocate_context` in
/// `Capture/rsx_replay.cpp`: 0x0F900000; rrc-format.md 3.4).
pub const LOCAL_MEMORY_BYTES: u64 = 0x0F90_0000;

/// Alignment of a placed fragment program (libgcm asks 64 bytes of fragment microcode in
/// local memory; 256 keeps it on its own cache lines).
const PROGRAM_ALIGN: u64 = 256;

/// The byte ranges of local and main memory the frame reads or writes, known from the frame
/// alone: every memory block, every draw's render targets, every clear's surfaces, every
/// transfer's destination, every display buffer.
pub(crate) fn used_memory(capture: &Capture, frame: &Frame) -> Vec<Extent> {
    let mut used = Vec::new();
    let data_len: std::collections::HashMap<u64, u64> = capture
        .data
        .iter()
        .map(|d| (d.id, d.value.len() as u64))
        .collect();
    for b in &capture.blocks {
        let Some(location) = b.value.location_kind() else {
            continue;
        };
        let len = data_len.get(&b.value.data_id).copied().unwrap_or(0);
        let start = u64::from(b.value.offset);
        used.push(Extent {
            location,
            start,
            end: start + len,
        });
    }
    // Every target a draw's surface state names (what it may write, a superset of what its
    // tests use); consecutive draws mostly share one surface state.
    let mut last = None;
    for d in &frame.draws {
        if last != Some(&d.surface) {
            used.extend(surface_extents(&d.surface));
            last = Some(&d.surface);
        }
    }
    let events = FrameEvents::from_capture(capture, frame);
    for c in &events.clears {
        used.extend(surface_extents(&c.surface));
    }
    for t in &events.transfers {
        if let Some((location, start, end)) = t.transfer.as_ref().ok().and_then(destination_extent)
        {
            used.push(Extent {
                location,
                start,
                end,
            });
        }
    }
    for b in &events.display_buffers {
        let start = u64::from(b.offset);
        used.push(Extent {
            location: Location::Local,
            start,
            end: start + u64::from(b.pitch) * u64::from(b.height),
        });
    }
    used
}

/// The highest `PROGRAM_ALIGN`-aligned offset of local memory where `len` bytes overlap none
/// of `used`, below [`LOCAL_MEMORY_BYTES`].
pub(crate) fn free_local_range(used: &[Extent], len: u64) -> Option<u32> {
    let mut local: Vec<(u64, u64)> = used
        .iter()
        .filter(|e| e.location == Location::Local && e.end > e.start)
        .map(|e| (e.start, e.end))
        .collect();
    local.sort_unstable();
    // Gaps from the top of memory down.
    let mut top = LOCAL_MEMORY_BYTES;
    let mut merged: Vec<(u64, u64)> = Vec::new();
    for (s, e) in local {
        match merged.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    for &(s, e) in merged.iter().rev().chain(std::iter::once(&(0, 0))) {
        let gap_start = e.div_ceil(PROGRAM_ALIGN) * PROGRAM_ALIGN;
        if top >= len && top - len >= gap_start {
            let at = (top - len) / PROGRAM_ALIGN * PROGRAM_ALIGN;
            if at >= gap_start {
                return u32::try_from(at).ok();
            }
        }
        top = top.min(s);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local(start: u64, end: u64) -> Extent {
        Extent {
            location: Location::Local,
            start,
            end,
        }
    }

    #[test]
    fn the_highest_aligned_gap_that_fits() {
        let top = LOCAL_MEMORY_BYTES;
        // Nothing used: the top of memory.
        assert_eq!(free_local_range(&[], 16), Some((top - 256) as u32));
        // The top 4 KiB used, and a 100-byte hole below a block at 0x1000..0x2000.
        let used = [
            local(top - 4096, top),
            local(0x100, 0x1000),
            local(0x1064, top - 4096),
        ];
        // 16 bytes fit in 0x1000..0x1064 at the aligned 0x1000; 0x200 bytes fit nowhere.
        assert_eq!(free_local_range(&used, 16), Some(0x1000));
        assert_eq!(free_local_range(&used, 0x200), None);
        // Main memory does not count.
        let main = [Extent {
            location: Location::Main,
            start: 0,
            end: top,
        }];
        assert_eq!(free_local_range(&main, 16), Some((top - 256) as u32));
        // The bottom gap 0..0x100 takes what fits there.
        assert_eq!(free_local_range(&used[..], 0x100), Some(0));
    }
}
