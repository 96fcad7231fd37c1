//! Every example query of `docs/index.md`, run against a database of the bundled samples, the
//! level and the test scene (`common::scene`), compared with results this test derives on its
//! own: from the builders' ground truth (the level's `ground_truth.json` and fog program, the
//! scene's matrices, the game frame's documented per-draw uploads) and from the frame model
//! and the program decoders, read here without the index's code (no fingerprints, no
//! footprint, no texture-key cache). Every SQL block of the page must have an expectation
//! here, and every expectation a block.

use crate::common;

use rsxtrace_capture::frame::state::Named;
use rsxtrace_capture::frame::{Draw, Frame};
use rsxtrace_capture::rrc::Capture;
use rsxtrace_program::fragment::{self, InputAttribute, SourceKind};
use rsxtrace_program::vertex::{self, RegisterType};
use rsxtrace_replay::texture::cache::content_key;
use rsxtrace_verify::probe::textures::{frame_textures, Reach};
use rsxtrace_verify::probe::uniforms::{read_slot, ProgramKey};
use rusqlite::types::Value;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use xxhash_rust::xxh3::xxh3_64;

/// One indexed capture, decoded here.
struct Decoded {
    file_name: String,
    capture: Capture,
    frame: Frame,
}

type Row = Vec<Value>;

fn text(s: &str) -> Value {
    Value::Text(s.to_string())
}
fn int(v: impl TryInto<i64>) -> Value {
    Value::Integer(v.try_into().unwrap_or(i64::MAX))
}
fn real(v: f32) -> Value {
    if v.is_nan() {
        Value::Null
    } else {
        Value::Real(f64::from(v))
    }
}
fn named(n: Named) -> Value {
    n.name.map_or(int(n.raw), text)
}

/// SQLite's order of values: NULL, numbers, text, blobs.
fn sql_cmp(a: &Value, b: &Value) -> Ordering {
    fn class(v: &Value) -> u8 {
        match v {
            Value::Null => 0,
            Value::Integer(_) | Value::Real(_) => 1,
            Value::Text(_) => 2,
            Value::Blob(_) => 3,
        }
    }
    let num = |v: &Value| match v {
        Value::Integer(i) => *i as f64,
        Value::Real(r) => *r,
        _ => 0.0,
    };
    class(a).cmp(&class(b)).then_with(|| match (a, b) {
        (Value::Text(x), Value::Text(y)) => x.cmp(y),
        (Value::Blob(x), Value::Blob(y)) => x.cmp(y),
        _ => num(a).partial_cmp(&num(b)).unwrap_or(Ordering::Equal),
    })
}

/// The `-- name:` and SQL of every ```sql block of the page.
fn doc_queries() -> Vec<(String, String)> {
    let path = rsxtrace_testkit::workspace!().root().join("docs/index.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let mut out = Vec::new();
    let mut rest = doc.as_str();
    while let Some(start) = rest.find("```sql\n") {
        let body = &rest[start + 7..];
        let end = body.find("```").expect("closing fence");
        let sql = &body[..end];
        let name = sql
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("-- name: "))
            .unwrap_or_else(|| panic!("{}: a sql block without `-- name:`:\n{sql}", path.display()))
            .trim()
            .to_string();
        out.push((name, sql.to_string()));
        rest = &body[end + 3..];
    }
    out
}

fn run(conn: &rusqlite::Connection, sql: &str, params: &[(&str, Value)]) -> Vec<Row> {
    let mut stmt = conn.prepare(sql).unwrap_or_else(|e| panic!("{e}\n{sql}"));
    for (name, value) in params {
        let i = stmt
            .parameter_index(name)
            .unwrap()
            .unwrap_or_else(|| panic!("no parameter {name} in\n{sql}"));
        stmt.raw_bind_parameter(i, value).unwrap();
    }
    let n = stmt.column_count();
    let mut rows = stmt.raw_query();
    let mut out = Vec::new();
    while let Some(r) = rows.next().unwrap() {
        out.push((0..n).map(|i| r.get::<_, Value>(i).unwrap()).collect());
    }
    out
}

// ---- Independent readings of the programs ----

/// Whether a fragment program reads input `attr` through an operand its opcode reads.
fn fragment_reads_input(ucode: &[u8], attr: InputAttribute) -> bool {
    let Ok(p) = fragment::decode(ucode) else {
        return false;
    };
    p.instructions.iter().any(|insn| {
        insn.input == attr
            && insn.alu().is_some_and(|alu| {
                alu.sources[..insn.opcode.operands_read().min(3)]
                    .iter()
                    .any(|s| s.kind == SourceKind::Input)
            })
    })
}

/// The constant registers a draw's vertex program reads: `(direct, relative bases)`.
fn vertex_constants(draw: &Draw) -> (BTreeSet<u16>, BTreeSet<u16>) {
    let (mut direct, mut relative) = (BTreeSet::new(), BTreeSet::new());
    let Ok(p) = vertex::decode_words(draw.vertex_program_words()) else {
        return (direct, relative);
    };
    for insn in &p.instructions {
        let reads = insn.operands_read();
        for (source, read) in insn.sources.iter().zip(reads) {
            if read && source.reg_type == RegisterType::Constant {
                if insn.index_const {
                    relative.insert(insn.const_index);
                } else {
                    direct.insert(insn.const_index);
                }
            }
        }
    }
    (direct, relative)
}

/// Every enabled texture unit's content key (Err when unreadable), per draw, computed
/// directly with the texture model (no cache).
fn unit_keys(
    d: &Decoded,
) -> Vec<Vec<(u8, &rsxtrace_capture::frame::state::Texture, Option<u128>)>> {
    d.frame
        .draws
        .iter()
        .map(|draw| {
            let memory = d.frame.memory(draw.index).unwrap();
            (0u8..)
                .zip(draw.textures.iter())
                .chain((0u8..).zip(draw.vertex_textures.iter()))
                .filter(|(_, t)| t.control0.enabled)
                .map(|(unit, t)| (unit, t, content_key(unit, t, &memory).ok()))
                .collect()
        })
        .collect()
}

fn key_text(k: u128) -> String {
    format!("{k:032x}")
}

// ---- Expectations ----

struct World {
    decoded: Vec<Decoded>,
    truth: common::SceneTruth,
    level: serde_json::Value,
}

impl World {
    fn capture(&self, name: &str) -> &Decoded {
        self.decoded.iter().find(|d| d.file_name == name).unwrap()
    }
}

type Expectation = Vec<(Vec<(&'static str, Value)>, Vec<Row>)>;

fn fogc_census(w: &World) -> Expectation {
    let rows = w
        .decoded
        .iter()
        .map(|d| {
            let fogc = d
                .frame
                .draws
                .iter()
                .filter(|draw| {
                    draw.fragment_program
                        .as_ref()
                        .is_some_and(|p| fragment_reads_input(&p.ucode, InputAttribute::FOGC))
                })
                .count();
            vec![text(&d.file_name), int(d.frame.draws.len()), int(fogc)]
        })
        .collect::<Vec<_>>();
    // The scene's two colour draws read FOGC, by construction.
    let scene = rows.last().unwrap();
    assert_eq!(scene[2], int(w.truth.colour_draws));
    vec![(vec![], rows)]
}

fn draws_reading_register(w: &World) -> Expectation {
    let register = 32u16;
    let rows = w
        .decoded
        .iter()
        .filter_map(|d| {
            let reading: Vec<&Draw> = d
                .frame
                .draws
                .iter()
                .filter(|draw| vertex_constants(draw).0.contains(&register))
                .collect();
            let known = reading
                .iter()
                .filter(|draw| draw.constants.is_known(usize::from(register)))
                .count();
            (!reading.is_empty()).then(|| vec![text(&d.file_name), int(reading.len()), int(known)])
        })
        .collect();
    vec![(vec![(":register", int(register))], rows)]
}

fn constants_by_program(w: &World) -> Expectation {
    let d = w.capture("game.rrc.gz");
    /// Draws, draws where known, distinct values.
    type Seen = (usize, usize, BTreeSet<[u32; 4]>);
    let mut groups: BTreeMap<(String, u16), Seen> = BTreeMap::new();
    for draw in &d.frame.draws {
        for r in vertex_constants(draw).0 {
            let g = groups
                .entry((format!("{:016x}", draw.vp_hash), r))
                .or_default();
            g.0 += 1;
            if let Some(v) = draw.constants.get(usize::from(r)) {
                g.1 += 1;
                if v.iter().all(|c| !c.is_nan()) {
                    // -0.0 and 0.0 print alike in SQL text.
                    g.2.insert(v.map(|c| if c == 0.0 { 0 } else { c.to_bits() }));
                }
            }
        }
    }
    let rows = groups
        .into_iter()
        .map(|((key, r), (n, known, values))| {
            vec![text(&key), int(r), int(n), int(known), int(values.len())]
        })
        .collect();
    vec![(vec![(":capture", text("game.rrc.gz"))], rows)]
}

fn shadow_matrices(w: &World) -> Expectation {
    // Only the scene has a square depth-only target: the game frame, the samples and the
    // level draw into colour surfaces (their builders).
    let side = int(common::SHADOW_SIDE);
    let mut rows = Vec::new();
    for (draw, m) in w.truth.light.iter().enumerate() {
        for (register, row) in m.iter().enumerate() {
            let mut r = vec![text(common::SCENE), int(draw), side.clone(), side.clone()];
            r.push(int(register));
            r.extend(row.iter().map(|&c| real(c)));
            rows.push(r);
        }
    }
    vec![(vec![], rows)]
}

fn pass_census(w: &World) -> Expectation {
    let kinds = w.level["draws"].as_array().unwrap();
    let fog = kinds.iter().filter(|d| d["kind"] == "fog").count();
    let level = vec![
        vec![text("colour"), int(kinds.len() - fog)],
        vec![text("full_screen"), int(fog)],
    ];
    let scene = vec![
        vec![text("colour"), int(w.truth.colour_draws)],
        vec![text("shadow"), int(w.truth.light.len())],
    ];
    vec![
        (vec![(":capture", text("level.rrc.gz"))], level),
        (vec![(":capture", text(common::SCENE))], scene),
    ]
}

fn blend_by_texture(w: &World) -> Expectation {
    let mut groups: BTreeMap<Vec<ValueKey>, i64> = BTreeMap::new();
    for d in &w.decoded {
        for (draw, units) in d.frame.draws.iter().zip(unit_keys(d)) {
            let b = &draw.raster.blend;
            for (_, _, key) in units {
                let Some(key) = key else { continue };
                let k = vec![
                    ValueKey(text(&key_text(key))),
                    ValueKey(int(b.enabled)),
                    ValueKey(named(b.src_rgb)),
                    ValueKey(named(b.dst_rgb)),
                    ValueKey(named(b.equation_rgb)),
                ];
                *groups.entry(k).or_default() += 1;
            }
        }
    }
    let rows = groups
        .into_iter()
        .map(|(k, n)| {
            let mut r: Row = k.into_iter().map(|v| v.0).collect();
            r.push(int(n));
            r
        })
        .collect();
    vec![(vec![], rows)]
}

/// A value ordered as SQLite orders it, for map keys.
#[derive(Clone, Debug, PartialEq)]
struct ValueKey(Value);
impl Eq for ValueKey {}
impl PartialOrd for ValueKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for ValueKey {
    fn cmp(&self, other: &Self) -> Ordering {
        sql_cmp(&self.0, &other.0)
    }
}

fn shared_textures(w: &World) -> Expectation {
    struct Seen {
        first: (Value, Value, Value),
        captures: BTreeSet<usize>,
        draws: BTreeSet<(usize, usize)>,
    }
    let mut seen: HashMap<u128, Seen> = HashMap::new();
    for (c, d) in w.decoded.iter().enumerate() {
        for (draw, units) in unit_keys(d).into_iter().enumerate() {
            for (_, t, key) in units {
                let Some(key) = key else { continue };
                let s = seen.entry(key).or_insert_with(|| Seen {
                    first: (named(t.format.base_format), int(t.width), int(t.height)),
                    captures: BTreeSet::new(),
                    draws: BTreeSet::new(),
                });
                s.captures.insert(c);
                s.draws.insert((c, draw));
            }
        }
    }
    let mut rows: Vec<Row> = seen
        .into_iter()
        .filter(|(_, s)| s.draws.len() > 1)
        .map(|(k, s)| {
            vec![
                text(&key_text(k)),
                s.first.0,
                s.first.1,
                s.first.2,
                int(s.captures.len()),
                int(s.draws.len()),
            ]
        })
        .collect();
    rows.sort_by(|a, b| sql_cmp(&b[5], &a[5]).then_with(|| sql_cmp(&a[0], &b[0])));
    vec![(vec![], rows)]
}

fn indexed_constant_programs(w: &World) -> Expectation {
    let mut programs: BTreeMap<String, (String, usize)> = BTreeMap::new();
    for d in &w.decoded {
        for draw in &d.frame.draws {
            let (direct, relative) = vertex_constants(draw);
            if relative.is_empty() {
                continue;
            }
            let mut names: Vec<String> = direct.iter().map(|c| format!("c[{c}]")).collect();
            names.extend(relative.iter().map(|c| format!("c[A0+{c}]")));
            programs
                .entry(format!("{:016x}", draw.vp_hash))
                .or_insert((names.join(" "), 0))
                .1 += 1;
        }
    }
    // The scene's colour pass is the one such program, by construction.
    assert_eq!(programs.len(), 1, "{programs:?}");
    assert_eq!(
        programs.values().next().unwrap(),
        &(
            "c[33] c[34] c[35] c[A0+32]".to_string(),
            w.truth.colour_draws
        )
    );
    let rows = programs
        .into_iter()
        .map(|(k, (names, n))| vec![text(&k), text(&names), int(n)])
        .collect();
    vec![(vec![], rows)]
}

/// Every vertex program's matrices as rows, found here from its instructions: the absolute
/// registers DP3, DP4 or DPH read beside one non-constant operand, in runs of consecutive
/// registers per operand.
fn matrices_by_program(w: &World) -> Expectation {
    let mut rows: BTreeSet<(String, u16, u16, String)> = BTreeSet::new();
    for d in &w.decoded {
        for draw in &d.frame.draws {
            let Ok(p) = vertex::decode_from_memory(&draw.vertex_program, draw.vp_start as usize)
            else {
                continue;
            };
            let mut by_operand: BTreeMap<String, BTreeSet<u16>> = BTreeMap::new();
            for i in &p.instructions {
                let dot = matches!(
                    i.vector,
                    vertex::VectorOpcode::Dp3
                        | vertex::VectorOpcode::Dp4
                        | vertex::VectorOpcode::Dph
                );
                if !dot || i.index_const {
                    continue;
                }
                let [a, b] = [i.sources[0], i.sources[1]];
                let other = match (a.reg_type, b.reg_type) {
                    (RegisterType::Constant, t) if t != RegisterType::Constant => b,
                    (t, RegisterType::Constant) if t != RegisterType::Constant => a,
                    _ => continue,
                };
                by_operand
                    .entry(vertex::operand_text(i, &other))
                    .or_default()
                    .insert(i.const_index);
            }
            for (operand, registers) in by_operand {
                let registers: Vec<u16> = registers.into_iter().collect();
                let mut start = 0;
                for k in 1..=registers.len() {
                    if k == registers.len() || registers[k] != registers[k - 1] + 1 {
                        if k - start >= 2 {
                            rows.insert((
                                format!("{:016x}", draw.vp_hash),
                                registers[start],
                                (k - start) as u16,
                                operand.clone(),
                            ));
                        }
                        start = k;
                    }
                }
            }
        }
    }
    // Every sample's and the level's programs transform by c[32..35] at least.
    assert!(rows.len() >= 50, "{rows:?}");
    let rows = rows
        .into_iter()
        .map(|(k, first, count, operand)| vec![text(&k), int(first), int(count), text(&operand)])
        .collect();
    vec![(vec![], rows)]
}

fn wasted_binds(w: &World) -> Expectation {
    let rows = w
        .decoded
        .iter()
        .filter_map(|d| {
            let (mut units, mut draws) = (0, 0);
            for t in frame_textures(&d.frame) {
                if t.problem.is_some() {
                    continue; // the program is unknown: nothing is known about its sampling
                }
                let reachable: Vec<u8> = t
                    .sampled
                    .iter()
                    .filter(|s| s.reach != Reach::Unreachable)
                    .map(|s| s.unit)
                    .collect();
                // Enabled units with an invalid state count too: enabled, never sampled.
                let invalid = t
                    .invalid
                    .iter()
                    .filter(|i| !reachable.contains(&i.unit))
                    .count();
                let n = t.bound_unsampled.len() + invalid;
                units += n;
                draws += usize::from(n > 0);
            }
            (units > 0).then(|| vec![text(&d.file_name), int(units), int(draws)])
        })
        .collect();
    vec![(vec![], rows)]
}

fn block_by_hash(w: &World) -> Expectation {
    // The crate's index buffer, read from the level at a draw the ground truth names a crate.
    let d = w.capture("level.rrc.gz");
    let truth = w.level["draws"].as_array().unwrap();
    let whole_crate = |t: &serde_json::Value| t["mesh"] == "crate" && t["placement"] != "crate_03";
    let first = truth.iter().find(|t| whole_crate(t)).unwrap()["draw"]
        .as_u64()
        .unwrap() as usize;
    let draw = &d.frame.draws[first];
    let ib = draw.index_array.unwrap();
    let count = draw.ranges[0].count;
    let bytes = {
        use rsxtrace_capture::fetch::GuestMemory;
        d.frame
            .memory(first)
            .unwrap()
            .read(ib.location, ib.offset, count * ib.ty.size())
            .unwrap()
            .to_vec()
    };
    let hash = format!("{:016x}", xxh3_64(&bytes));
    let rows = truth
        .iter()
        .filter(|t| whole_crate(t))
        .map(|t| {
            vec![
                text("level.rrc.gz"),
                int(t["draw"].as_i64().unwrap()),
                text("index_buffer"),
                int(0),
                int(ib.offset),
                int(bytes.len()),
            ]
        })
        .collect();
    vec![(vec![(":xxh3", text(&hash))], rows)]
}

fn full_screen_constants(w: &World) -> Expectation {
    // The level's fog draw, rebuilt from the ground truth's MainInv and the level's fog
    // parameters; no other capture has a full-screen draw (their builders').
    let fog = &w.level["fog"];
    let rows_of = |v: &serde_json::Value| -> [[f32; 4]; 4] {
        let mut m = [[0f32; 4]; 4];
        for (i, row) in v.as_array().unwrap().iter().enumerate() {
            for (j, c) in row.as_array().unwrap().iter().enumerate() {
                m[i][j] = c.as_f64().unwrap() as f32;
            }
        }
        m
    };
    let program = rsxtrace_scenes::level::fog_program(
        &rows_of(&fog["main_inv"]),
        &rsxtrace_scenes::level::FOG,
    )
    .unwrap();
    let key = ProgramKey::from_ucode(&program.ucode).unwrap();
    let body = &program.ucode[key.start..];
    let mut rows = Vec::new();
    for draw in fog["draws"].as_array().unwrap() {
        for &slot in &key.constant_slots {
            let v = read_slot(body, slot).unwrap();
            let mut r = vec![text("level.rrc.gz"), int(draw.as_i64().unwrap()), int(slot)];
            r.extend(v.iter().map(|&c| real(c)));
            rows.push(r);
        }
    }
    vec![(vec![], rows)]
}

fn own_mvp(w: &World) -> Expectation {
    let level = w.level["draws"].as_array().unwrap();
    let no_constants = level.iter().filter(|d| d["kind"] == "no_constants").count();
    vec![
        // The game frame uploads every draw's model-view-projection (game_frame.rs).
        (
            vec![(":capture", text("game.rrc.gz"))],
            vec![vec![
                text("game.rrc.gz"),
                int(w.capture("game.rrc.gz").frame.draws.len()),
            ]],
        ),
        // Every level draw but the HUD uploads c32..c35 (level.rs).
        (
            vec![(":capture", text("level.rrc.gz"))],
            vec![vec![text("level.rrc.gz"), int(level.len() - no_constants)]],
        ),
        (
            vec![(":capture", text(common::SCENE))],
            vec![vec![text(common::SCENE), int(w.truth.colour_draws)]],
        ),
    ]
}

fn expectation(name: &str) -> Option<fn(&World) -> Expectation> {
    Some(match name {
        "fogc_census" => fogc_census,
        "draws_reading_register" => draws_reading_register,
        "constants_by_program" => constants_by_program,
        "shadow_matrices" => shadow_matrices,
        "pass_census" => pass_census,
        "blend_by_texture" => blend_by_texture,
        "shared_textures" => shared_textures,
        "indexed_constant_programs" => indexed_constant_programs,
        "matrices_by_program" => matrices_by_program,
        "wasted_binds" => wasted_binds,
        "block_by_hash" => block_by_hash,
        "full_screen_constants" => full_screen_constants,
        "own_mvp" => own_mvp,
        _ => return None,
    })
}

const EXPECTED_NAMES: usize = 13;

#[test]
fn every_documented_query_gives_the_independently_derived_result() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = common::database(dir.path());
    let paths = common::captures(dir.path());
    let decoded: Vec<Decoded> = paths
        .iter()
        .map(|p| {
            let capture = rsxtrace_capture::open::open_capture(p).unwrap();
            let frame = Frame::from_capture(&capture).unwrap();
            Decoded {
                file_name: p.file_name().unwrap().to_string_lossy().into_owned(),
                capture,
                frame,
            }
        })
        .collect();
    let level_dir = rsxtrace_testkit::workspace!().level_dir();
    let world = World {
        decoded,
        truth: common::scene().1,
        level: serde_json::from_str(
            &std::fs::read_to_string(level_dir.join("ground_truth.json")).unwrap(),
        )
        .unwrap(),
    };
    assert!(world.decoded.iter().all(|d| !d.capture.commands.is_empty()));

    let queries = doc_queries();
    assert!(
        queries.len() >= 10,
        "docs/index.md has {} queries",
        queries.len()
    );
    assert_eq!(
        queries.len(),
        EXPECTED_NAMES,
        "a query without an expectation, or the reverse"
    );
    for (name, sql) in &queries {
        let derive = expectation(name)
            .unwrap_or_else(|| panic!("docs/index.md query {name} has no expectation here"));
        for (params, want) in derive(&world) {
            let got = run(db.connection(), sql, &params);
            // Each expectation lists its rows in the query's ORDER BY; an empty one could
            // not catch a wrong result.
            assert!(!want.is_empty(), "{name}: the expectation is empty");
            assert_eq!(got, want, "{name} with {params:?}");
        }
    }
}
