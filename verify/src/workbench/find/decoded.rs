//! `--decoded`: the pattern searched in every draw's decoded vertex streams. A stream is one
//! attribute array of one draw, the elements its vertices read (from the lowest to the highest,
//! unused ones between included) decoded to floats as the fetch decodes them
//! (`rsxtrace_fetch::decode`), each element its `size` components (3 for CMP) as
//! **little-endian** f32, element after element: the layout of a float vertex buffer on a PC
//! (a glTF buffer, a numpy array). So a mesh whose positions a tool exported as floats is found
//! even when the game stores them as half floats or normalised shorts. Only matches that start
//! on a component (a multiple of 4 bytes) count. Arrays shared by several draws (same place,
//! format and bytes) are decoded and searched once; streams decode in parallel.

use super::{Hit, HitKind, HitUse, Skipped};
use crate::workbench::bytes::{bytes_key, read_range, BytesKey};
use crate::workbench::uses::{MemoryUse, Role};
use memchr::memmem::Finder;
use rayon::prelude::*;
use rsxtrace_capture::fetch::decode::decode_element;
use rsxtrace_capture::fetch::format::ElementFormat;
use rsxtrace_capture::fetch::VertexType;
use rsxtrace_capture::frame::search::overlapping;
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::Location;
use std::collections::{BTreeMap, HashMap};

/// The result of [`search`].
#[derive(Clone, Debug, Default)]
pub struct DecodedSearch {
    /// Decoded hits.
    pub hits: Vec<Hit>,
    /// Distinct streams searched.
    pub streams: usize,
    /// Their bytes.
    pub bytes: u64,
    /// The hit limit was reached.
    pub truncated: bool,
    /// Streams that could not be decoded.
    pub skipped: Vec<Skipped>,
}

/// What makes two attribute streams the same: place, stride, format, attribute and the bytes.
type StreamKey = (Location, u32, u64, u32, VertexType, u8, u8, BytesKey);

/// One distinct stream: where it comes from and the draws that read it.
struct Stream {
    attribute: u8,
    location: Location,
    base: u32,
    stride: u32,
    first: u64,
    components: usize,
    bytes: Vec<u8>,
    draws: Vec<usize>,
}

/// The use a stream key was made from (the first draw's).
fn uses_of<'a>(uses: &'a [MemoryUse], key: &StreamKey, draws: &[usize]) -> Option<&'a MemoryUse> {
    let first = *draws.first()?;
    uses.iter().find(|u| {
        u.draw == first
            && u.location == key.0
            && u.offset == key.1
            && u.len == key.2
            && u.role == Role::Attribute { attribute: key.6 }
    })
}

/// Read and decode one stream.
fn decode_stream(
    frame: &Frame,
    u: Option<&MemoryUse>,
    draws: Vec<usize>,
) -> Result<Stream, Skipped> {
    let skipped =
        |draw: Option<usize>, what: String, reason: String| Skipped { draw, what, reason };
    let Some(u) = u else {
        return Err(skipped(None, "decoded stream".into(), "no use".into()));
    };
    let Role::Attribute { attribute } = u.role else {
        return Err(skipped(
            Some(u.draw),
            "decoded stream".into(),
            "not an attribute".into(),
        ));
    };
    let what = format!("decoded attribute {attribute}");
    let (Some(draw), Some(elements)) = (frame.draws.get(u.draw), u.elements) else {
        return Err(skipped(Some(u.draw), what, "no elements".into()));
    };
    let Some(Some(array)) = draw.vertex_inputs.arrays.get(usize::from(attribute)) else {
        return Err(skipped(Some(u.draw), what, "no array".into()));
    };
    let format = ElementFormat::new(attribute, array.ty, array.size)
        .map_err(|e| skipped(Some(u.draw), what.clone(), e.to_string()))?;
    let raw = read_range(
        frame.memory_index(),
        draw.end_command,
        u.location,
        u.offset,
        u.len,
    )
    .ok_or_else(|| {
        skipped(
            Some(u.draw),
            what.clone(),
            format!(
                "the capture does not hold all of {:?} 0x{:08x}..0x{:08x}",
                u.location,
                u.offset,
                u.end()
            ),
        )
    })?;
    let count = if elements.stride == 0 {
        1
    } else {
        (u.len - u64::from(format.read_bytes())) / u64::from(elements.stride) + 1
    };
    let components = if array.ty == VertexType::CMP {
        3
    } else {
        usize::from(array.size)
    };
    let mut bytes = Vec::with_capacity(count as usize * components * 4);
    for k in 0..count as usize {
        let at = k * elements.stride as usize;
        let Some(value) = raw.get(at..).and_then(|b| decode_element(format, b)) else {
            break; // `raw` covers every element: not reached
        };
        for c in value.iter().take(components) {
            bytes.extend_from_slice(&c.to_le_bytes());
        }
    }
    Ok(Stream {
        attribute,
        location: u.location,
        base: elements.base,
        stride: elements.stride,
        first: elements.element_at(u.offset).map_or(0, |e| e.0),
        components,
        bytes,
        draws,
    })
}

/// Search the decoded attribute streams of `uses` (the frame's uses) for `pattern`.
pub fn search(frame: &Frame, uses: &[MemoryUse], pattern: &[u8], max_hits: usize) -> DecodedSearch {
    let mut out = DecodedSearch::default();
    // Arrays with the same place, format and visible blocks decode to the same stream.
    let mut groups: HashMap<StreamKey, Vec<usize>> = HashMap::new();
    let mut order: Vec<StreamKey> = Vec::new();
    for u in uses {
        let Role::Attribute { attribute } = u.role else {
            continue;
        };
        let (Some(draw), Some(elements)) = (frame.draws.get(u.draw), u.elements) else {
            continue;
        };
        let Some(Some(array)) = draw.vertex_inputs.arrays.get(usize::from(attribute)) else {
            continue;
        };
        let bytes = bytes_key(
            frame.memory_index(),
            draw.end_command,
            u.location,
            u.offset,
            u.len,
        );
        let key = (
            u.location,
            u.offset,
            u.len,
            elements.stride,
            array.ty,
            array.size,
            attribute,
            bytes,
        );
        let entry = groups.entry(key.clone()).or_default();
        if entry.is_empty() {
            order.push(key);
        }
        entry.push(u.draw);
    }
    let decoded: Vec<Result<Stream, Skipped>> = order
        .par_iter()
        .map(|key| {
            let draws = groups.get(key).cloned().unwrap_or_default();
            decode_stream(frame, uses_of(uses, key, &draws), draws)
        })
        .collect();
    let mut streams = Vec::new();
    for d in decoded {
        match d {
            Ok(s) => streams.push(s),
            Err(skip) => out.skipped.push(skip),
        }
    }
    let finder = Finder::new(pattern);
    type HitKey = (Location, u32, u8, u64, u8);
    // Each stream searched in parallel, at most `max_hits + 1` places each.
    let per_stream: Vec<Vec<HitKey>> = streams
        .par_iter()
        .map(|s| {
            let element_bytes = s.components * 4;
            overlapping(&finder, &s.bytes)
                .filter(|at| at % 4 == 0)
                .filter_map(|at| {
                    let element = s.first + (at / element_bytes) as u64;
                    let component = ((at % element_bytes) / 4) as u8;
                    let address = u64::from(s.base) + element * u64::from(s.stride);
                    let address = u32::try_from(address).ok()?;
                    Some((s.location, address, s.attribute, element, component))
                })
                .take(max_hits.saturating_add(1))
                .collect()
        })
        .collect();
    out.streams = streams.len();
    out.bytes = streams.iter().map(|s| s.bytes.len() as u64).sum();
    let mut hits: BTreeMap<HitKey, Vec<usize>> = BTreeMap::new();
    'streams: for (s, keys) in streams.iter().zip(per_stream) {
        for key in keys {
            if !hits.contains_key(&key) && hits.len() >= max_hits {
                out.truncated = true;
                break 'streams;
            }
            hits.entry(key).or_default().extend(&s.draws);
        }
    }
    out.hits = hits
        .into_iter()
        .map(
            |((location, address, attribute, element, component), mut draws)| {
                draws.sort_unstable();
                draws.dedup();
                Hit {
                    kind: HitKind::Decoded,
                    location: Some(location),
                    address,
                    len: pattern.len() as u64,
                    blocks: Vec::new(),
                    uses: vec![HitUse {
                        role: Role::Attribute { attribute },
                        draws,
                        element: Some(element),
                        offset_in_element: None,
                        component: Some(component),
                    }],
                }
            },
        )
        .collect();
    out
}
