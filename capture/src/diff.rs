//! Two captures' frames side by side (`rsxtrace diff`, docs/diff.md): their draws aligned by
//! what each one draws, and for each aligned pair what differs: the state the frame model
//! decodes, the transform constants, the fragment program's inline constants, and the bytes
//! the draw reads (index buffer and attribute arrays, and with the texture model the caller
//! passes in, [`DiffOptions`], the texels of its texture units).
//!
//! The alignment is a longest common subsequence (Myers, the `similar` crate) in two passes:
//! first of fingerprints of everything each draw draws with (an unchanged draw pairs with its
//! own copy), then, between those pairs, of the mesh (vertex program, primitive and vertex
//! count, which a mesh keeps while its matrices, textures, blend state or fragment program
//! change). Draws with no partner are listed as only in one frame.

use crate::fetch::{
    fetch_spans, DrawRange, FetchSpans, GuestMemory, IndexArray, Span, VertexInputs,
};
use crate::frame::state::{RasterState, ShaderControl, Surface, Texture};
use crate::frame::{Draw, FragmentProgram, Frame, Primitive, ProgramAddress, CONSTANT_COUNT};
use serde::Serialize;
use serde_json::Value;
use similar::{capture_diff_slices_deadline, Algorithm, DiffOp};
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use xxhash_rust::xxh3::Xxh3;

/// How long the pairing searches for the longest common subsequences (Myers' search costs the
/// product of the lengths and the differences: two unrelated 20,000-draw frames); then it
/// settles for a shorter one (`similar`'s deadline).
const SEARCH_TIME: Duration = Duration::from_secs(5);

/// State fields that say where a draw is, not what it draws: not compared.
const POSITION_FIELDS: [&str; 4] = ["index", "begin_command", "end_command", "problems"];

/// What [`diff_frames`] found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FrameDiff {
    /// Draws in frame A.
    pub draws_a: usize,
    /// Draws in frame B.
    pub draws_b: usize,
    /// Runs of aligned draws: draw `a + k` of A is draw `b + k` of B for `k < len`.
    pub aligned: Vec<AlignedRun>,
    /// Aligned draws.
    pub matched: usize,
    /// Aligned draws with nothing different.
    pub identical: usize,
    /// Aligned draws with something different, in order.
    pub differing: Vec<DrawDiff>,
    /// Draws of A with no partner in B.
    pub only_a: Vec<usize>,
    /// Draws of B with no partner in A.
    pub only_b: Vec<usize>,
}

impl FrameDiff {
    /// Whether the two frames draw the same draws with the same state, constants and data.
    pub fn is_identical(&self) -> bool {
        self.differing.is_empty() && self.only_a.is_empty() && self.only_b.is_empty()
    }

    /// The draw of B aligned with draw `a` of A.
    pub fn partner_of(&self, a: usize) -> Option<usize> {
        self.aligned
            .iter()
            .find(|r| (r.a..r.a + r.len).contains(&a))
            .map(|r| r.b + (a - r.a))
    }
}

/// Draws `a..a + len` of A aligned with draws `b..b + len` of B.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct AlignedRun {
    /// First draw of A.
    pub a: usize,
    /// First draw of B.
    pub b: usize,
    /// Draws in the run.
    pub len: usize,
}

/// An aligned pair of draws and what differs between them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DrawDiff {
    /// The draw in A.
    pub a: usize,
    /// The draw in B.
    pub b: usize,
    /// State fields (as `rsxtrace dump --json` names them, e.g. `raster.blend.enabled`).
    pub fields: Vec<FieldChange>,
    /// Transform constants `c[register]`.
    pub constants: Vec<ConstantChange>,
    /// Fragment program inline constants.
    pub inline_constants: Vec<InlineChange>,
    /// Bytes the draw reads: its vertex fetch's, and its textures' texels when asked.
    pub data: Vec<DataChange>,
}

impl DrawDiff {
    /// Number of differences of every kind.
    pub fn count(&self) -> usize {
        self.fields.len() + self.constants.len() + self.inline_constants.len() + self.data.len()
    }
}

/// A state field that differs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FieldChange {
    /// Path in the draw's state, e.g. `textures[0].offset`.
    pub field: String,
    /// Its value in A (`null` when A's state has no such field).
    pub a: Value,
    /// Its value in B.
    pub b: Value,
}

/// A transform constant that differs (`None`: not known at the draw).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ConstantChange {
    /// Register, 0..468.
    pub register: usize,
    /// Value in A.
    pub a: Option<[f32; 4]>,
    /// Value in B.
    pub b: Option<[f32; 4]>,
}

/// A fragment inline constant that differs (`None`: the program has no constant there).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InlineChange {
    /// Slot, counted from the program's first instruction.
    pub slot: u32,
    /// Value in A.
    pub a: Option<[f32; 4]>,
    /// Value in B.
    pub b: Option<[f32; 4]>,
}

/// Bytes a draw reads that differ: its vertex fetch's, or a texture unit's texels.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DataChange {
    /// `index_range N`, `attribute N`, or `texture fragment N` / `texture vertex N` (with
    /// [`DiffOptions::texture_spans`]).
    pub what: String,
    /// XXH3-64 of A's bytes, 16 hex digits; `None` when A does not read it or the capture
    /// lacks the bytes.
    pub a: Option<String>,
    /// XXH3-64 of B's bytes.
    pub b: Option<String>,
}

/// A texture unit's byte spans as the texture model reads them (every level and face), or
/// `None` when the model refuses its state: `rsxtrace_replay::texture::texture_spans`, which
/// sits above this crate, so the caller passes it in.
pub type TextureSpans<'f> = &'f (dyn Fn(u8, &Texture) -> Option<Vec<Span>> + Sync);

/// What [`diff_frames_with`] compares beyond the frame model.
#[derive(Clone, Copy, Default)]
pub struct DiffOptions<'f> {
    /// Compare the texels of the enabled texture units (`texture fragment N`, `texture
    /// vertex N` in [`DrawDiff::data`]).
    pub texture_spans: Option<TextureSpans<'f>>,
}

/// Align the draws of `a` and `b` and compare each aligned pair (no texels:
/// [`diff_frames_with`]).
pub fn diff_frames(a: &Frame, b: &Frame) -> FrameDiff {
    diff_frames_with(a, b, DiffOptions::default())
}

/// Align the draws of `a` and `b` and compare each aligned pair, with `options`.
pub fn diff_frames_with(a: &Frame, b: &Frame, options: DiffOptions<'_>) -> FrameDiff {
    let mut bytes = ByteComparer::default();
    let pairs = align(&a.draws, &b.draws);
    let mut out = FrameDiff {
        draws_a: a.draws.len(),
        draws_b: b.draws.len(),
        aligned: Vec::new(),
        matched: pairs.len(),
        identical: 0,
        differing: Vec::new(),
        only_a: Vec::new(),
        only_b: Vec::new(),
    };
    let (mut next_a, mut next_b) = (0, 0);
    for &(ia, ib) in &pairs {
        out.only_a.extend(next_a..ia);
        out.only_b.extend(next_b..ib);
        (next_a, next_b) = (ia + 1, ib + 1);
        match out.aligned.last_mut() {
            Some(run) if run.a + run.len == ia && run.b + run.len == ib => run.len += 1,
            _ => out.aligned.push(AlignedRun {
                a: ia,
                b: ib,
                len: 1,
            }),
        }
        let d = compare_draws(a, ia, b, ib, options, &mut bytes);
        if d.count() == 0 {
            out.identical += 1;
        } else {
            out.differing.push(d);
        }
    }
    out.only_a.extend(next_a..a.draws.len());
    out.only_b.extend(next_b..b.draws.len());
    out
}

/// The aligned pairs `(draw of A, draw of B)`, ascending in both. First the draws that agree
/// on everything they draw with ([`Fingerprints`]: a longest common subsequence, so an
/// unchanged draw pairs with its own copy rather than an earlier or later draw of the same
/// mesh); then, inside each stretch between those, the draws that agree on the mesh alone
/// ([`DrawKey::mesh`]: the draws that changed).
fn align(a: &[Draw], b: &[Draw]) -> Vec<(usize, usize)> {
    let mut fingerprints = Fingerprints::new();
    let exact_a: Vec<ExactKey> = a.iter().map(|d| fingerprints.of(d)).collect();
    let exact_b: Vec<ExactKey> = b.iter().map(|d| fingerprints.of(d)).collect();
    let mesh_a: Vec<DrawKey> = a.iter().map(DrawKey::mesh).collect();
    let mesh_b: Vec<DrawKey> = b.iter().map(DrawKey::mesh).collect();
    let deadline = Instant::now() + SEARCH_TIME;
    let mut pairs = Vec::new();
    let close_gap = |from: (usize, usize), to: (usize, usize), pairs: &mut Vec<(usize, usize)>| {
        lcs(
            &mesh_a[from.0..to.0],
            &mesh_b[from.1..to.1],
            deadline,
            |i, j| pairs.push((from.0 + i, from.1 + j)),
        );
    };
    let mut exact = Vec::new();
    lcs(&exact_a, &exact_b, deadline, |i, j| exact.push((i, j)));
    let mut gap = (0, 0);
    for (i, j) in exact {
        close_gap(gap, (i, j), &mut pairs);
        pairs.push((i, j));
        gap = (i + 1, j + 1);
    }
    close_gap(gap, (a.len(), b.len()), &mut pairs);
    pairs
}

/// Call `pair(i, j)` for each pair of a longest common subsequence of `a` and `b`, in order.
/// Past `deadline` the search settles for a common subsequence that may be shorter.
fn lcs<T: Eq + std::hash::Hash + Ord>(
    a: &[T],
    b: &[T],
    deadline: Instant,
    mut pair: impl FnMut(usize, usize),
) {
    if a.is_empty() || b.is_empty() {
        return;
    }
    for op in capture_diff_slices_deadline(Algorithm::Myers, a, b, Some(deadline)) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for k in 0..len {
                pair(old_index + k, new_index + k);
            }
        }
    }
}

/// What aligns two draws: the same vertex program drawing the same primitive over the same
/// number of vertices (a mesh keeps these while its matrices, textures, blend state or
/// fragment program change).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct DrawKey {
    vp_hash: u64,
    primitive: u32,
    vertex_count: u64,
}

/// A draw's mesh key with a fingerprint of everything it draws with ([`Fingerprints`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct ExactKey {
    mesh: DrawKey,
    fingerprint: u64,
}

impl DrawKey {
    fn mesh(d: &Draw) -> DrawKey {
        DrawKey {
            vp_hash: d.vp_hash,
            primitive: d.primitive as u32,
            vertex_count: d.vertex_count,
        }
    }
}

/// XXH3-64 of everything a draw draws with: its state as `dump --json` serializes it (less
/// where it is), its transform constants and its fragment program's microcode (the inline
/// constants). The texture units and the raster state, shared between consecutive draws of a
/// frame, are hashed once per shared value.
struct Fingerprints {
    shared: HashMap<*const (), u64>,
}

/// An `io::Write` that hashes what is written.
struct HashWriter(Xxh3);

impl std::io::Write for HashWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn hash_json<T: Serialize + ?Sized>(value: &T) -> u64 {
    let mut w = HashWriter(Xxh3::new());
    // Serializing into a hasher cannot fail but for a value serde cannot represent, which
    // then hashes as what was written before it.
    let _ = serde_json::to_writer(&mut w, value);
    w.0.digest()
}

impl Fingerprints {
    fn new() -> Fingerprints {
        Fingerprints {
            shared: HashMap::new(),
        }
    }

    fn shared<T: Serialize + ?Sized>(&mut self, value: &Arc<T>) -> u64 {
        let key = Arc::as_ptr(value) as *const ();
        *self
            .shared
            .entry(key)
            .or_insert_with(|| hash_json(&**value))
    }

    fn of(&mut self, d: &Draw) -> ExactKey {
        let parts = StateParts::of(d);
        let mut h = Xxh3::new();
        h.update(&hash_json(&parts.own).to_le_bytes());
        for shared in [
            self.shared(parts.textures),
            self.shared(parts.vertex_textures),
            self.shared(parts.raster),
        ] {
            h.update(&shared.to_le_bytes());
        }
        if let Some(p) = parts.fragment_program {
            h.update(&p.hash.to_le_bytes());
            h.update(&p.ucode);
        }
        for r in 0..CONSTANT_COUNT {
            match d.constants.raw(r) {
                Some(v) => {
                    h.update(&[1]);
                    for w in v {
                        h.update(&w.to_le_bytes());
                    }
                }
                None => h.update(&[0]),
            }
        }
        ExactKey {
            mesh: DrawKey::mesh(d),
            fingerprint: h.digest(),
        }
    }
}

/// Compare draw `ia` of `a` with draw `ib` of `b`; `None` when either frame has no such draw.
pub fn diff_draws(
    a: &Frame,
    ia: usize,
    b: &Frame,
    ib: usize,
    options: DiffOptions<'_>,
) -> Option<DrawDiff> {
    (ia < a.draws.len() && ib < b.draws.len())
        .then(|| compare_draws(a, ia, b, ib, options, &mut ByteComparer::default()))
}

fn compare_draws(
    a: &Frame,
    ia: usize,
    b: &Frame,
    ib: usize,
    options: DiffOptions<'_>,
    bytes: &mut ByteComparer,
) -> DrawDiff {
    let (da, db) = (&a.draws[ia], &b.draws[ib]);
    let mut fields = Vec::new();
    if !StateParts::of(da).same(&StateParts::of(db)) {
        let (va, vb) = (state_value(da), state_value(db));
        compare_values(String::new(), &va, &vb, &mut fields);
    }
    DrawDiff {
        a: ia,
        b: ib,
        fields,
        constants: constants(da, db),
        inline_constants: inline_constants(da, db),
        data: data(a, ia, b, ib, options, bytes),
    }
}

/// A draw's state as [`state_value`] serializes it, field by field: the draw's own fields,
/// and the ones shared between consecutive draws of a frame (hashed once per shared value by
/// [`Fingerprints`]). Made by destructuring every field of [`Draw`], so that a new one cannot
/// be left out of the comparison or the fingerprint.
struct StateParts<'a> {
    own: OwnState<'a>,
    fragment_program: &'a Option<Arc<FragmentProgram>>,
    textures: &'a Arc<[Texture; 16]>,
    vertex_textures: &'a Arc<[Texture; 4]>,
    raster: &'a Arc<RasterState>,
}

/// The fields a draw owns (see [`StateParts`]).
#[derive(PartialEq, Serialize)]
struct OwnState<'a> {
    part: &'a u32,
    primitive: &'a Primitive,
    indexed: &'a bool,
    ranges: &'a Vec<DrawRange>,
    index_array: &'a Option<IndexArray>,
    vertex_count: &'a u64,
    vp_start: &'a u32,
    vp_hash: &'a u64,
    vp_end_slot: &'a Option<u32>,
    transform_branch_bits: &'a u32,
    fp_address: &'a Option<ProgramAddress>,
    shader_control: &'a ShaderControl,
    shader_packer: &'a u32,
    vertex_inputs: &'a VertexInputs,
    output_mask: &'a u32,
    surface: &'a Surface,
}

impl<'a> StateParts<'a> {
    fn of(d: &'a Draw) -> StateParts<'a> {
        let Draw {
            // Where the draw is, what it could not decode, and what is compared on its own
            // (the constants; the vertex program is `vp_hash`).
            index: _,
            begin_command: _,
            end_command: _,
            problems: _,
            vertex_program: _,
            constants: _,
            part,
            primitive,
            indexed,
            ranges,
            index_array,
            vertex_count,
            vp_start,
            vp_hash,
            vp_end_slot,
            transform_branch_bits,
            fp_address,
            fragment_program,
            shader_control,
            shader_packer,
            vertex_inputs,
            output_mask,
            textures,
            vertex_textures,
            surface,
            raster,
        } = d;
        StateParts {
            own: OwnState {
                part,
                primitive,
                indexed,
                ranges,
                index_array,
                vertex_count,
                vp_start,
                vp_hash,
                vp_end_slot,
                transform_branch_bits,
                fp_address,
                shader_control,
                shader_packer,
                vertex_inputs,
                output_mask,
                surface,
            },
            fragment_program,
            textures,
            vertex_textures,
            raster,
        }
    }

    /// Whether every field is equal, compared as values (no serialization: most aligned
    /// draws are equal); a `false` only sends the pair to the field-by-field comparison.
    fn same(&self, other: &StateParts<'_>) -> bool {
        self.own == other.own
            && self.fragment_program == other.fragment_program
            && self.textures == other.textures
            && self.vertex_textures == other.vertex_textures
            && self.raster == other.raster
    }
}

/// The draw's state as `dump --json` prints it, less the fields that say where it is.
fn state_value(d: &Draw) -> Value {
    let mut v = serde_json::to_value(d).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut v {
        for field in POSITION_FIELDS {
            map.shift_remove(field);
        }
    }
    v
}

/// Every leaf where `a` and `b` differ, under `path`; an object or array present on one side
/// only, or arrays of different lengths, count as one change at their own path.
fn compare_values(path: String, a: &Value, b: &Value, out: &mut Vec<FieldChange>) {
    if a == b {
        return;
    }
    match (a, b) {
        (Value::Object(ma), Value::Object(mb)) => {
            for (k, x) in ma {
                let y = mb.get(k).unwrap_or(&Value::Null);
                compare_values(join(&path, k), x, y, out);
            }
            for (k, y) in mb.iter().filter(|(k, _)| !ma.contains_key(*k)) {
                compare_values(join(&path, k), &Value::Null, y, out);
            }
        }
        (Value::Array(xa), Value::Array(xb)) if xa.len() == xb.len() => {
            for (i, (x, y)) in xa.iter().zip(xb).enumerate() {
                compare_values(format!("{path}[{i}]"), x, y, out);
            }
        }
        _ => out.push(FieldChange {
            field: path,
            a: a.clone(),
            b: b.clone(),
        }),
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn constants(a: &Draw, b: &Draw) -> Vec<ConstantChange> {
    if a.constants == b.constants {
        return Vec::new();
    }
    (0..CONSTANT_COUNT)
        .filter(|&r| a.constants.raw(r) != b.constants.raw(r))
        .map(|register| ConstantChange {
            register,
            a: a.constants.get(register),
            b: b.constants.get(register),
        })
        .collect()
}

fn inline_constants(a: &Draw, b: &Draw) -> Vec<InlineChange> {
    let (pa, pb) = (a.fragment_program.as_deref(), b.fragment_program.as_deref());
    let mut slots: Vec<u32> = pa
        .iter()
        .chain(pb.iter())
        .flat_map(|p| p.constant_slots.iter().copied())
        .collect();
    slots.sort_unstable();
    slots.dedup();
    let value = |p: Option<&FragmentProgram>, slot: u32| {
        p.filter(|p| p.constant_slots.contains(&slot))
            .and_then(|p| p.constant(slot))
    };
    slots
        .into_iter()
        .filter_map(|slot| {
            let (x, y) = (value(pa, slot), value(pb, slot));
            let same = match (x, y) {
                (Some(x), Some(y)) => x.map(f32::to_bits) == y.map(f32::to_bits),
                (x, y) => x.is_none() && y.is_none(),
            };
            (!same).then_some(InlineChange { slot, a: x, b: y })
        })
        .collect()
}

/// One thing a draw reads (`index_range 0`, `attribute 3`, `texture fragment 0`) and its bytes,
/// piece by piece; `None` where the capture lacks some of them.
type DrawBytes<'m> = (String, Option<Vec<Cow<'m, [u8]>>>);

/// The bytes a draw reads, by what reads them: each index range and attribute array of its
/// vertex fetch and, with [`DiffOptions::texture_spans`], each enabled texture unit's
/// sub-resources; `None` where the capture lacks some of them.
fn read_bytes<'m>(
    frame: &'m Frame,
    index: usize,
    view: &'m crate::frame::MemoryView<'m>,
    options: DiffOptions<'_>,
) -> Vec<DrawBytes<'m>> {
    let d = &frame.draws[index];
    let spans: FetchSpans = fetch_spans(&d.vertex_inputs, view).unwrap_or_default();
    let read = |s: &Span| view.read(s.location, s.offset, s.len);
    let mut out: Vec<DrawBytes<'m>> = spans
        .index_ranges
        .iter()
        .enumerate()
        .map(|(k, s)| (format!("index_range {k}"), read(s).map(|b| vec![b])))
        .collect();
    out.extend(spans.attributes.iter().map(|a| {
        let bytes = read(&a.span).map(|b| vec![b]);
        (format!("attribute {}", a.attribute), bytes)
    }));
    if let Some(texture_spans) = options.texture_spans {
        let units = [
            ("fragment", &d.textures[..]),
            ("vertex", &d.vertex_textures[..]),
        ];
        for (stage, units) in units {
            for (unit, t) in (0u8..).zip(units) {
                if !t.control0.enabled {
                    continue;
                }
                let bytes = texture_spans(unit, t)
                    .and_then(|spans| spans.iter().map(read).collect::<Option<Vec<_>>>());
                out.push((format!("texture {stage} {unit}"), bytes));
            }
        }
    }
    out
}

/// Compares byte slices of the two captures, remembering each pair of slices compared: a
/// texture or buffer that many draws read is compared once.
#[derive(Default)]
struct ByteComparer {
    equal: HashMap<(usize, usize, usize, usize), bool>,
}

impl ByteComparer {
    fn same(&mut self, x: Option<&[Cow<'_, [u8]>]>, y: Option<&[Cow<'_, [u8]>]>) -> bool {
        let (Some(x), Some(y)) = (x, y) else {
            return x.is_none() && y.is_none();
        };
        x.len() == y.len()
            && x.iter().zip(y).all(|(p, q)| match (p, q) {
                // Slices of the captures' blocks live as long as the frames: their addresses
                // name them. Bytes assembled for one read are compared each time.
                (Cow::Borrowed(p), Cow::Borrowed(q)) => {
                    let key = (p.as_ptr() as usize, p.len(), q.as_ptr() as usize, q.len());
                    *self.equal.entry(key).or_insert_with(|| p == q)
                }
                _ => p == q,
            })
    }
}

fn find<'s, 'm>(side: &'s [DrawBytes<'m>], what: &str) -> Option<&'s [Cow<'m, [u8]>]> {
    side.iter()
        .find(|(w, _)| w == what)
        .and_then(|(_, b)| b.as_deref())
}

fn data(
    a: &Frame,
    ia: usize,
    b: &Frame,
    ib: usize,
    options: DiffOptions<'_>,
    comparer: &mut ByteComparer,
) -> Vec<DataChange> {
    let (Some(view_a), Some(view_b)) = (a.memory(ia), b.memory(ib)) else {
        return Vec::new();
    };
    let bytes_a = read_bytes(a, ia, &view_a, options);
    let bytes_b = read_bytes(b, ib, &view_b, options);
    let hash = |bytes: Option<&[Cow<'_, [u8]>]>| {
        bytes.map(|parts| {
            let mut h = Xxh3::new();
            for p in parts {
                h.update(p);
            }
            format!("{:016x}", h.digest())
        })
    };
    let mut whats: Vec<&str> = bytes_a.iter().map(|(w, _)| w.as_str()).collect();
    for (w, _) in &bytes_b {
        if !whats.contains(&w.as_str()) {
            whats.push(w);
        }
    }
    let mut out = Vec::new();
    for what in whats {
        let (x, y) = (find(&bytes_a, what), find(&bytes_b, what));
        if !comparer.same(x, y) {
            out.push(DataChange {
                what: what.to_string(),
                a: hash(x),
                b: hash(y),
            });
        }
    }
    out
}
