//! `--decoded`: the pattern searched in every draw's decoded vertex streams. A stream is one
//! attribute array of one draw, the elements its vertices read (from the lowest to the highest,
//! unused ones between included) decoded to floats as the fetch decodes them
//! (`rsxtrace_fetch::decode`), each element its `size` components (3 for CMP) as
//! **little-endian** f32, element after element: the layout of a float vertex buffer on a PC
//! (a glTF buffer, a numpy array). So a mesh whose positions a tool exported as floats is found
//! even when the game stores them as half floats or normalised shorts. Only matches that start
//! on a component (a multiple of 4 bytes) count. Arrays shared by several draws are decoded and
//! searched once.

use super::{Hit, HitKind, HitUse, Skipped};
use crate::workbench::bytes::read_range;
use crate::workbench::uses::{MemoryUse, Role};
use memchr::memmem::Finder;
use rsxtrace_capture::fetch::decode::decode_element;
use rsxtrace_capture::fetch::format::ElementFormat;
use rsxtrace_capture::fetch::VertexType;
use rsxtrace_capture::frame::search::overlapping;
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::Location;
use std::collections::{BTreeMap, HashMap};
use xxhash_rust::xxh3::xxh3_64;

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

/// What makes two attribute streams the same: place, stride, format and raw bytes' hash.
type StreamKey = (Location, u32, u64, u32, VertexType, u8, u64);

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

/// Search the decoded attribute streams of `uses` (the frame's uses) for `pattern`.
pub fn search(frame: &Frame, uses: &[MemoryUse], pattern: &[u8], max_hits: usize) -> DecodedSearch {
    let mut out = DecodedSearch::default();
    let mut streams: Vec<Stream> = Vec::new();
    let mut seen: HashMap<StreamKey, usize> = HashMap::new();
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
        let Ok(format) = ElementFormat::new(attribute, array.ty, array.size) else {
            continue; // the use would not exist
        };
        let index = frame.memory_index();
        let Some(raw) = read_range(index, draw.end_command, u.location, u.offset, u.len) else {
            out.skipped.push(Skipped {
                draw: Some(u.draw),
                what: format!("decoded attribute {attribute}"),
                reason: format!(
                    "the capture does not hold all of {:?} 0x{:08x}..0x{:08x}",
                    u.location,
                    u.offset,
                    u.end()
                ),
            });
            continue;
        };
        // Arrays with the same place, format and bytes decode to the same stream.
        let key = (
            u.location,
            u.offset,
            u.len,
            elements.stride,
            array.ty,
            array.size,
            xxh3_64(&raw),
        );
        if let Some(&at) = seen.get(&key) {
            streams[at].draws.push(u.draw);
            continue;
        }
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
        seen.insert(key, streams.len());
        streams.push(Stream {
            attribute,
            location: u.location,
            base: elements.base,
            stride: elements.stride,
            first: elements.element_at(u.offset).map_or(0, |e| e.0),
            components,
            bytes,
            draws: vec![u.draw],
        });
    }
    let finder = Finder::new(pattern);
    let mut hits: BTreeMap<(Location, u32, u8, u64, u8), Vec<usize>> = BTreeMap::new();
    'streams: for s in &streams {
        out.streams += 1;
        out.bytes += s.bytes.len() as u64;
        let element_bytes = s.components * 4;
        for at in overlapping(&finder, &s.bytes) {
            if at % 4 != 0 {
                continue;
            }
            let element = s.first + (at / element_bytes) as u64;
            let component = ((at % element_bytes) / 4) as u8;
            let address = u64::from(s.base) + element * u64::from(s.stride);
            let Ok(address) = u32::try_from(address) else {
                continue;
            };
            let key = (s.location, address, s.attribute, element, component);
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
                    location,
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
