//! Mesh identity: a draw's captured vertex bytes matched to mesh files.
//!
//! A mesh file holds vertex bytes as the game stores them (interleaved, big-endian), named by
//! its file name without extension. A draw's vertex bytes are the span of guest memory its
//! per-vertex arrays read for the vertices it submits: from the lowest element's first byte
//! to the highest element's last byte, over the arrays interleaved with attribute 0 (same
//! location and stride, within one stride of it). A mesh matches when the span equals the
//! whole file or a sub-range of it (a draw of some of a mesh's vertices).

use rsxtrace_capture::fetch::index::{element_indices, read_indexed};
use rsxtrace_capture::fetch::{GuestMemory, VertexArray, VertexInputs, VertexSource};
use rsxtrace_capture::frame::{Draw, Frame};
use serde::Serialize;
use std::path::Path;

/// Largest mesh file read (256 MiB).
pub const MAX_MESH_BYTES: u64 = 256 << 20;

/// Mask applied to `VERTEX_DATA_BASE_OFFSET + ARRAY_OFFSET` (rrc-format.md 4.2, as
/// `rsxtrace_fetch` applies it).
const VERTEX_OFFSET_MASK: u32 = 0x0FFF_FFFF;

/// One mesh file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mesh {
    /// The file name without extension.
    pub name: String,
    /// The vertex bytes.
    pub bytes: Vec<u8>,
}

/// A refused mesh directory or draw.
#[derive(Debug, thiserror::Error)]
pub enum MeshError {
    /// A file or the directory could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// Two files have the same name without extension.
    #[error("two mesh files are named {0:?} (without extension)")]
    DuplicateName(String),
    /// A file is larger than [`MAX_MESH_BYTES`].
    #[error("{path}: {size} bytes, more than the {MAX_MESH_BYTES} a mesh file may have")]
    TooLarge {
        /// The path.
        path: String,
        /// Its size.
        size: u64,
    },
    /// A file is empty or its name is not UTF-8.
    #[error("{0}: empty, or its name is not UTF-8")]
    BadFile(String),
}

/// Where a draw's vertex bytes were found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MeshMatch {
    /// Index into the meshes.
    pub mesh: usize,
    /// The mesh's name.
    pub name: String,
    /// Whether the draw's bytes are the whole file.
    pub whole: bool,
    /// Byte offset of the draw's bytes in the file.
    pub offset: usize,
    /// Length of the draw's bytes.
    pub len: usize,
}

/// Read every regular file of `dir` as a mesh, sorted by name.
pub fn read_meshes(dir: &Path) -> Result<Vec<Mesh>, MeshError> {
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| MeshError::Io { path, source }
    };
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io(dir))? {
        let entry = entry.map_err(io(dir))?;
        let path = entry.path();
        if path.is_file() {
            paths.push(path);
        }
    }
    paths.sort();
    let mut meshes: Vec<Mesh> = Vec::with_capacity(paths.len());
    for path in paths {
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .ok_or_else(|| MeshError::BadFile(path.display().to_string()))?
            .to_string();
        let size = std::fs::metadata(&path).map_err(io(&path))?.len();
        if size > MAX_MESH_BYTES {
            return Err(MeshError::TooLarge {
                path: path.display().to_string(),
                size,
            });
        }
        if meshes.iter().any(|m| m.name == name) {
            return Err(MeshError::DuplicateName(name));
        }
        let bytes = std::fs::read(&path).map_err(io(&path))?;
        if bytes.is_empty() {
            return Err(MeshError::BadFile(path.display().to_string()));
        }
        meshes.push(Mesh { name, bytes });
    }
    Ok(meshes)
}

/// The bytes of a draw's vertex span, with the bytes no array of the draw reads unknown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VertexBytes {
    /// The span's bytes (0 where unknown).
    pub bytes: Vec<u8>,
    /// Whether each byte was read from the capture.
    pub known: Vec<bool>,
}

/// Largest span assembled for one draw (64 MiB).
const MAX_SPAN: u64 = 64 << 20;

/// The vertex bytes draw `draw` reads, or `None` when it reads no per-vertex array of
/// captured memory (inline or immediate vertices, attribute 0 not from an array, indices or
/// vertex bytes missing from the capture). Each array's elements are read as the capture
/// attached them (one block per array) and laid out at their place in the span.
pub fn draw_vertex_bytes(frame: &Frame, draw: &Draw) -> Option<VertexBytes> {
    let memory = frame.memory(draw.index)?;
    let inputs = &draw.vertex_inputs;
    let (lo, hi) = index_range(inputs, &memory)?;
    let first = inputs.arrays.first().copied().flatten()?;
    if first.stride == 0 || first.frequency > 1 {
        return None;
    }
    let stride = u64::from(first.stride);
    let base =
        |a: &VertexArray| u64::from(inputs.base_offset.wrapping_add(a.offset) & VERTEX_OFFSET_MASK);
    let base0 = base(&first);
    // The arrays interleaved with attribute 0, as (attribute base, element bytes).
    let mut members = Vec::new();
    for (i, array) in inputs.arrays.iter().enumerate() {
        let Some(array) = array else { continue };
        let b = base(array);
        if array.location == first.location
            && array.stride == first.stride
            && array.frequency <= 1
            && b.abs_diff(base0) < stride
            && (i == 0 || inputs.input_mask & (1 << i) != 0)
        {
            members.push((b, u64::from(array.ty.host_bytes(array.size))));
        }
    }
    let vertices = u64::from(hi.checked_sub(lo)?) + 1;
    let start = members.iter().map(|m| m.0).min()? + u64::from(lo) * stride;
    let end = members.iter().map(|m| m.0 + m.1).max()? + u64::from(hi) * stride;
    let len = end.checked_sub(start).filter(|&l| l > 0 && l <= MAX_SPAN)?;
    let mut out = VertexBytes {
        bytes: vec![0; len as usize],
        known: vec![false; len as usize],
    };
    for (b, elem) in members {
        let from = b + u64::from(lo) * stride;
        let read_len = (vertices - 1) * stride + elem;
        let at = usize::try_from(from - start).ok()?;
        // One read per array when the capture holds it all (from one block or several
        // overlapping ones); element by element otherwise, so that elements the capture holds
        // are known even when bytes between them are not.
        let whole = u32::try_from(read_len)
            .ok()
            .zip(u32::try_from(from).ok())
            .and_then(|(l, f)| memory.read(first.location, f, l));
        for v in 0..vertices {
            let rel = usize::try_from(v * stride).ok()?;
            let element;
            let src = match &whole {
                Some(bytes) => bytes.get(rel..rel + elem as usize)?,
                None => {
                    element = memory.read(
                        first.location,
                        u32::try_from(from + v * stride).ok()?,
                        u32::try_from(elem).ok()?,
                    )?;
                    &element[..]
                }
            };
            let dst = at + rel;
            out.bytes
                .get_mut(dst..dst + src.len())?
                .copy_from_slice(src);
            out.known.get_mut(dst..dst + src.len())?.fill(true);
        }
    }
    Some(out)
}

/// The lowest and highest vertex index a draw submits.
fn index_range(inputs: &VertexInputs, mem: &impl GuestMemory) -> Option<(u32, u32)> {
    let indices = match &inputs.source {
        VertexSource::Arrays { ranges } => {
            let lo = ranges
                .iter()
                .filter(|r| r.count > 0)
                .map(|r| r.first)
                .min()?;
            let hi = ranges
                .iter()
                .filter(|r| r.count > 0)
                .map(|r| u64::from(r.first) + u64::from(r.count) - 1)
                .max()?;
            return Some((lo, u32::try_from(hi).ok()?));
        }
        VertexSource::Indexed { index, ranges } => {
            read_indexed(index, ranges, inputs.base_index, inputs.restart, mem)
                .ok()?
                .indices
        }
        VertexSource::Elements { indices } => {
            element_indices(indices, inputs.base_index, inputs.restart).indices
        }
        VertexSource::Inline { .. } | VertexSource::Immediate { .. } => return None,
    };
    let lo = indices.iter().copied().min()?;
    let hi = indices.iter().copied().max()?;
    Some((lo, hi))
}

/// The mesh that holds `bytes` (every known byte equal): a file it covers whole first, then
/// the first file (by name) that contains it, at its lowest offset.
pub fn match_mesh(bytes: &VertexBytes, meshes: &[Mesh]) -> Option<MeshMatch> {
    let len = bytes.bytes.len();
    if len == 0 || bytes.known.len() != len || !bytes.known.iter().any(|k| *k) {
        return None;
    }
    let fits = |m: &Mesh, at: usize| {
        m.bytes.get(at..at + len).is_some_and(|window| {
            window
                .iter()
                .zip(&bytes.bytes)
                .zip(&bytes.known)
                .all(|((a, b), k)| !k || a == b)
        })
    };
    if let Some((i, m)) = meshes
        .iter()
        .enumerate()
        .find(|(_, m)| m.bytes.len() == len && fits(m, 0))
    {
        return Some(MeshMatch {
            mesh: i,
            name: m.name.clone(),
            whole: true,
            offset: 0,
            len,
        });
    }
    // Anchor the search on the first known byte.
    let anchor = bytes.known.iter().position(|k| *k)?;
    let first = *bytes.bytes.get(anchor)?;
    meshes.iter().enumerate().find_map(|(i, m)| {
        let last_start = m.bytes.len().checked_sub(len)?;
        (0..=last_start)
            .filter(|&at| m.bytes.get(at + anchor) == Some(&first))
            .find(|&at| fits(m, at))
            .map(|offset| MeshMatch {
                mesh: i,
                name: m.name.clone(),
                whole: false,
                offset,
                len,
            })
    })
}

/// Each draw's mesh (by draw index), or `None` where its bytes are in no file.
pub fn identify_meshes(frame: &Frame, meshes: &[Mesh]) -> Vec<Option<MeshMatch>> {
    frame
        .draws
        .iter()
        .map(|d| draw_vertex_bytes(frame, d).and_then(|bytes| match_mesh(&bytes, meshes)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mesh(name: &str, bytes: &[u8]) -> Mesh {
        Mesh {
            name: name.into(),
            bytes: bytes.to_vec(),
        }
    }

    fn known(bytes: &[u8]) -> VertexBytes {
        VertexBytes {
            bytes: bytes.to_vec(),
            known: vec![true; bytes.len()],
        }
    }

    #[test]
    fn whole_before_sub_range() {
        let meshes = [
            mesh("a", &[1, 2, 3, 4, 5, 6]),
            mesh("b", &[3, 4]),
            mesh("c", &[9, 3, 4, 3, 4]),
        ];
        let m = match_mesh(&known(&[3, 4]), &meshes).unwrap();
        assert_eq!((m.mesh, m.whole, m.offset, m.len), (1, true, 0, 2));
        let m = match_mesh(&known(&[4, 3, 4]), &meshes).unwrap();
        assert_eq!((m.name.as_str(), m.whole, m.offset), ("c", false, 2));
        let m = match_mesh(&known(&[5, 6]), &meshes).unwrap();
        assert_eq!((m.name.as_str(), m.whole, m.offset), ("a", false, 4));
        assert!(match_mesh(&known(&[6, 7]), &meshes).is_none());
        assert!(match_mesh(&known(&[1, 2, 3, 4, 5, 6, 7]), &meshes).is_none());
        assert!(match_mesh(&known(&[]), &meshes).is_none());
    }

    #[test]
    fn unknown_bytes_match_anything() {
        let meshes = [mesh("a", &[1, 2, 3, 4, 5, 6])];
        // Bytes 3 and 5 known, the one between them read by no array.
        let holey = VertexBytes {
            bytes: vec![3, 0, 5],
            known: vec![true, false, true],
        };
        let m = match_mesh(&holey, &meshes).unwrap();
        assert_eq!((m.whole, m.offset, m.len), (false, 2, 3));
        let nothing = VertexBytes {
            bytes: vec![0, 0],
            known: vec![false, false],
        };
        assert!(match_mesh(&nothing, &meshes).is_none());
    }

    #[test]
    fn directory_names_without_extension() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("box.bin"), [1u8, 2]).unwrap();
        std::fs::write(dir.path().join("wedge.bin"), [3u8]).unwrap();
        let meshes = read_meshes(dir.path()).unwrap();
        let names: Vec<&str> = meshes.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["box", "wedge"]);
        std::fs::write(dir.path().join("box.raw"), [5u8]).unwrap();
        assert!(matches!(
            read_meshes(dir.path()),
            Err(MeshError::DuplicateName(n)) if n == "box"
        ));
        let empty = tempfile::tempdir().unwrap();
        std::fs::write(empty.path().join("e.bin"), []).unwrap();
        assert!(matches!(
            read_meshes(empty.path()),
            Err(MeshError::BadFile(_))
        ));
        assert!(matches!(
            read_meshes(&dir.path().join("missing")),
            Err(MeshError::Io { .. })
        ));
    }
}
