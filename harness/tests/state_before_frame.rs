//! A capture laid out the way RPCS3's serializer writes it (rrc-format.md 1.2 to 1.6, 3.2 and
//! 3.3; the layout follows `rpcs3_layout.rs`) whose frame relies on state set before capture
//! began, which RRC does not record (rrc-format.md 3.3 "Not captured", 3.4 item 4):
//!
//! * the vertex program reads attribute 3, which has no array and no `SET_VERTEX_DATA*` write
//!   during the frame;
//! * it reads transform constant c[4], and `mvp` looks for c32..c35: none is uploaded during
//!   the frame;
//! * the surface, viewport and colour mask come from the captured register file (the tail),
//!   as RPCS3 records registers set before the frame.
//!
//! `dump`, `draws`, `exec`, `verify`, `replay` and `mvp` all go on through the real binary:
//! the unknown attribute is `null` in JSON and named in a warning in text; verify compares the
//! draw with its constants substituted (zeros and seeded random).

use rsxtrace_capture::frame::reg;
use rsxtrace_program::vertex::{
    encode, InputAttribute, OutputRegister, RegisterType, VectorOpcode, VertexInstruction,
    VertexProgram, WriteMask,
};
use serde_json::Value;
use std::io::Write;
use std::process::{Command, Output};

/// Byte writer with the `utils::serial` encodings (rrc-format.md 1.3).
#[derive(Default)]
struct Stream(Vec<u8>);

impl Stream {
    fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u64(&mut self, v: u64) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn varint(&mut self, mut v: u64) -> &mut Self {
        loop {
            let byte = (v & 0x7F) as u8;
            v >>= 7;
            if v == 0 {
                self.0.push(byte);
                return self;
            }
            self.0.push(byte | 0x80);
        }
    }
    fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.0.extend_from_slice(b);
        self
    }
}

/// A recorded command: (first, second, memory ids, tile id, display id).
struct Cmd(u32, u32, Vec<u64>, u64, u64);

/// A normal method call: the register byte offset with count 1 (rrc-format.md 3.2).
fn method(byte_offset: u32, value: u32) -> Cmd {
    Cmd(byte_offset | (1 << 18), value, vec![], 0, 0)
}

/// A batched upload: header with count N, then N-1 continuation entries whose first is 0.
fn batch(byte_offset: u32, values: &[u32]) -> Vec<Cmd> {
    let mut out = vec![Cmd(
        byte_offset | ((values.len() as u32) << 18),
        values[0],
        vec![],
        0,
        0,
    )];
    out.extend(values[1..].iter().map(|&v| Cmd(0, v, vec![], 0, 0)));
    out
}

const TILE_ID: u64 = 0x7001;
const DISPLAY_ID: u64 = 0x7002;
const BLOCK_VERTICES: u64 = 0x7010;
const BLOCK_PROGRAM: u64 = 0x7011;
const DATA_VERTICES: u64 = 0x7020;
const DATA_PROGRAM: u64 = 0x7021;

/// Surface size in pixels.
const SIZE: u32 = 64;
/// Clip-space positions of the one triangle (attribute 0, F size 4).
const POSITIONS: [[f32; 4]; 3] = [
    [-0.75, -0.75, 0.5, 1.0],
    [0.75, -0.5, 0.5, 1.0],
    [0.0, 0.75, 0.5, 1.0],
];
/// The attribute the program reads that the frame never sets.
const UNSET_ATTRIBUTE: u8 = 3;
/// The constant the program reads that the frame never uploads.
const UNSET_CONSTANT: u16 = 4;

/// `op o[output].xyzw` with every source reading the instruction's input attribute `input`,
/// except `constant_source`, which reads c[UNSET_CONSTANT].
fn instruction(
    slot: usize,
    op: VectorOpcode,
    output: u8,
    input: u8,
    constant_source: Option<usize>,
) -> VertexInstruction {
    let mut i = VertexInstruction::idle(slot);
    i.vector = op;
    i.output = Some(OutputRegister(output));
    i.vec_result = true;
    i.vec_mask = WriteMask(0xF);
    i.input = InputAttribute(input);
    i.const_index = UNSET_CONSTANT;
    if let Some(s) = constant_source {
        i.sources[s].reg_type = RegisterType::Constant;
    }
    i
}

/// slot 0: MOV o[HPOS], v[0]; slot 1: MAD o[COL0], v[3], c[4], v[3] (END). Output register 0
/// is HPOS and 1 is COL0 (rsx-microcode.md, vertex outputs).
fn vertex_program_words() -> Vec<u32> {
    let mov = instruction(0, VectorOpcode::Mov, 0, 0, None);
    let mut mad = instruction(1, VectorOpcode::Mad, 1, UNSET_ATTRIBUTE, Some(1));
    mad.end = true;
    encode(&VertexProgram {
        start_slot: 0,
        instructions: vec![mov, mad],
    })
}

/// MOV R0, f[COL0] with END, as stored in memory (rsx-microcode.md B.1, primitives.fpo).
const FP_BYTES: [u8; 16] = [
    0x3e, 0x01, 0x01, 0x00, 0xc8, 0x01, 0x1c, 0x9d, 0xc8, 0x00, 0x00, 0x01, 0xc8, 0x00, 0x3f, 0xe1,
];

/// The frame: program upload, attribute 0's array, the fragment program, one triangle. No
/// transform constant and no immediate attribute value is written.
fn commands() -> Vec<Cmd> {
    let mut c = vec![Cmd(0x40, 0, vec![], TILE_ID, DISPLAY_ID)];
    c.push(method(0x1E9C, 0)); // TRANSFORM_PROGRAM_LOAD
    c.extend(batch(0x0B80, &vertex_program_words())); // TRANSFORM_PROGRAM
    c.push(method(0x1EA0, 0)); // TRANSFORM_PROGRAM_START
    c.push(method(0x1FF0, 1 | 1 << UNSET_ATTRIBUTE)); // VERTEX_ATTRIB_INPUT_MASK
    c.push(method(0x1FF4, 1 << 1)); // VERTEX_ATTRIB_OUTPUT_MASK: COL0
    c.push(method(0x1740, 2 | (4 << 4) | (16 << 8))); // ARRAY_FORMAT[0]: F, size 4, stride 16
    c.push(method(0x1680, 0x0010_0000)); // ARRAY_OFFSET[0]: local 0x100000
    c.push(method(0x08E4, 0x0020_0000 | 1)); // SHADER_PROGRAM: local 0x200000
    c.push(method(0x1D60, 0x40)); // SHADER_CONTROL: 32-bit exports
    c.push(method(0x1808, 5)); // BEGIN triangles
    c.push(method(0x1814, (3 - 1) << 24)); // DRAW_ARRAYS first 0 count 3
    c.push(Cmd(
        0x1808 | (1 << 18),
        0,
        vec![BLOCK_PROGRAM, BLOCK_VERTICES],
        TILE_ID,
        DISPLAY_ID,
    ));
    c
}

/// The captured register file (rrc-format.md 1.6 tail): surface, viewport and colour mask
/// set before the frame. Values as `cellGcmSetSurface` / `cellGcmSetViewport` write them.
fn registers() -> Vec<u32> {
    let mut r = vec![0u32; 16384];
    let mut set = |reg: u16, v: u32| r[usize::from(reg)] = v;
    let rect = |origin: u32, size: u32| origin | size << 16;
    set(reg::SET_SURFACE_CLIP_HORIZONTAL, rect(0, SIZE));
    set(reg::SET_SURFACE_CLIP_VERTICAL, rect(0, SIZE));
    // A8R8G8B8 (8), depth Z24S8 (2), linear (1).
    set(reg::SET_SURFACE_FORMAT, 8 | 2 << 5 | 1 << 8);
    set(reg::SET_SURFACE_PITCH_A, SIZE * 4);
    set(reg::SET_SURFACE_COLOR_AOFFSET, 0x0040_0000);
    set(reg::SET_SURFACE_PITCH_Z, SIZE * 4);
    set(reg::SET_SURFACE_ZETA_OFFSET, 0x0050_0000);
    set(reg::SET_SURFACE_COLOR_TARGET, 1);
    set(reg::SET_VIEWPORT_HORIZONTAL, rect(0, SIZE));
    set(reg::SET_VIEWPORT_VERTICAL, rect(0, SIZE));
    set(reg::SET_SCISSOR_HORIZONTAL, rect(0, SIZE));
    set(reg::SET_SCISSOR_VERTICAL, rect(0, SIZE));
    set(reg::SET_CLIP_MIN, 0f32.to_bits());
    set(reg::SET_CLIP_MAX, 1f32.to_bits());
    let half = SIZE as f32 / 2.0;
    for (k, (o, s)) in [(half, half), (half, half), (0.5, 0.5), (0.0, 0.0)]
        .into_iter()
        .enumerate()
    {
        set(reg::SET_VIEWPORT_OFFSET + k as u16, f32::to_bits(o));
        set(reg::SET_VIEWPORT_SCALE + k as u16, f32::to_bits(s));
    }
    set(reg::SET_COLOR_MASK, 0x0101_0101);
    r
}

fn capture_bytes() -> Vec<u8> {
    let mut s = Stream::default();
    s.bytes(b"RRC\0").u32(6).u32(1);
    // tile_map: one all-zero tile_state (432 bytes), then its id.
    s.varint(1).bytes(&[0u8; 432]).u64(TILE_ID);
    // memory_map: (offset, location, data id), block id.
    s.varint(2);
    s.u32(0x0020_0000)
        .u32(0)
        .u64(DATA_PROGRAM)
        .u64(BLOCK_PROGRAM);
    s.u32(0x0010_0000)
        .u32(0)
        .u64(DATA_VERTICES)
        .u64(BLOCK_VERTICES);
    let vertex_bytes: Vec<u8> = POSITIONS
        .iter()
        .flatten()
        .flat_map(|f| f.to_be_bytes())
        .collect();
    s.varint(2);
    s.varint(vertex_bytes.len() as u64)
        .bytes(&vertex_bytes)
        .u64(DATA_VERTICES);
    s.varint(16).bytes(&FP_BYTES).u64(DATA_PROGRAM);
    // display_buffers_map: one state (8 buffers + count) and its id.
    s.varint(1);
    for i in 0..8u32 {
        if i == 0 {
            s.u32(SIZE).u32(SIZE).u32(SIZE * 4).u32(0x0040_0000);
        } else {
            s.u32(0).u32(0).u32(0).u32(0);
        }
    }
    s.u32(1).u64(DISPLAY_ID);
    let cmds = commands();
    s.varint(cmds.len() as u64);
    for Cmd(first, second, mem, tile, display) in &cmds {
        s.u32(*first).u32(*second).varint(mem.len() as u64);
        for id in mem {
            s.u64(*id);
        }
        s.u64(*tile).u64(*display);
    }
    // Tail: the 2176-word transform program at frame start (zero) and the register file.
    s.bytes(&vec![0u8; 8704]);
    for r in registers() {
        s.u32(r);
    }
    s.0
}

/// The capture, gzip-compressed, in a temporary directory.
fn write_capture() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("BLUS00000_20260101000000_capture.rrc.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(8));
    enc.write_all(&capture_bytes()).unwrap();
    std::fs::write(&path, enc.finish().unwrap()).unwrap();
    let path = path.to_str().unwrap().to_string();
    (dir, path)
}

fn rsxtrace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rsxtrace"))
        .args(args)
        .output()
        .expect("run rsxtrace")
}

/// Run, require exit status 0, return stdout.
fn ok(args: &[&str]) -> String {
    let out = rsxtrace(args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "rsxtrace {args:?}: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn json(args: &[&str]) -> Value {
    serde_json::from_str(&ok(args)).expect("JSON output")
}

/// What RPCS3's replay reads for an attribute with no array and no register value: its
/// zero vertex-layout descriptor decodes to (0, 0, 0, 1) (RSXDrawCommands.cpp
/// `fill_vertex_layout_state`, RSXVertexFetch.glsl `fetch_attribute`: size 0 < 4 sets w to
/// the scale of type 0, which is 1).
const RPCS3_UNSET: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

#[test]
fn draws_and_dump_go_on_with_nulls_and_warnings() {
    let (_dir, path) = write_capture();
    let draws = json(&["draws", &path, "--json"]);
    let draws = draws.as_array().expect("array");
    assert_eq!(draws.len(), 1);
    assert_eq!(draws[0]["vertex_count"], 3);
    assert!(
        draws[0]["mvp"].is_null(),
        "c32..c35 were set before the frame"
    );
    let text = ok(&["draws", &path]);
    assert!(text.contains("unknown"), "{text}");

    let dump = json(&["dump", &path, "--draw", "0", "--json"]);
    assert!(dump["fetch_error"].is_null(), "{dump}");
    assert_eq!(
        dump["unknown_attributes"],
        serde_json::json!([UNSET_ATTRIBUTE])
    );
    let vertices = dump["vertices"].as_array().expect("vertices");
    assert_eq!(vertices.len(), 3);
    for (v, p) in vertices.iter().zip(POSITIONS) {
        let attrs = v["attributes"].as_object().expect("attributes");
        assert_eq!(attrs.len(), 2, "{attrs:?}");
        let got: Vec<f64> = attrs["0"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert_eq!(got, p.map(f64::from).to_vec());
        assert!(attrs["3"].is_null(), "attribute 3 is unknown: {attrs:?}");
    }

    let text = ok(&["dump", &path, "--draw", "0"]);
    assert!(
        text.contains("warning: attribute 3 has no array and no value in the capture"),
        "{text}"
    );
    assert!(text.contains("unknown"), "{text}");
}

#[test]
fn exec_reads_the_unset_attribute_as_rpcs3_replay_does() {
    let (_dir, path) = write_capture();
    let exec = json(&[
        "exec",
        &path,
        "--draw",
        "0",
        "--json",
        "--allow-unknown-constants",
    ]);
    assert_eq!(
        exec["unknown_attributes"],
        serde_json::json!([UNSET_ATTRIBUTE])
    );
    assert_eq!(
        exec["unknown_constants"][0]["constant"],
        u64::from(UNSET_CONSTANT)
    );
    // COL0 = v3 * c4 + v3 with v3 = RPCS3's unset value and c4 read as 0.
    let col0: [f32; 4] = std::array::from_fn(|j| RPCS3_UNSET[j] * 0.0 + RPCS3_UNSET[j]);
    for (v, p) in exec["vertices"].as_array().unwrap().iter().zip(POSITIONS) {
        let out = |name: &str| -> Vec<f64> {
            let o = v["outputs"]
                .as_array()
                .unwrap()
                .iter()
                .find(|o| o["name"] == name)
                .unwrap_or_else(|| panic!("{name} written: {v}"));
            o["value"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect()
        };
        assert_eq!(out("HPOS"), p.map(f64::from).to_vec());
        assert_eq!(out("COL0"), col0.map(f64::from).to_vec());
    }
    // Without the flag too: unknown constants never stop the command.
    let text = ok(&["exec", &path, "--draw", "0"]);
    assert!(text.contains("warning: attribute 3"), "{text}");
    assert!(
        text.contains("warning: c[4] read at slot 1 is not in the capture (read as 0)"),
        "{text}"
    );
}

/// RGBA8 pixels and width of a PNG.
fn read_png(path: &std::path::Path) -> (Vec<u8>, usize) {
    let png = rsxtrace_testkit::image::read_rgba_png(path);
    (png.rgba, png.width as usize)
}

#[test]
fn textures_goes_on() {
    let (_dir, path) = write_capture();
    let report = json(&["textures", &path, "--json"]);
    assert!(report.is_object() || report.is_array(), "{report}");
}

#[test]
fn replay_on_the_cpu_renders_the_draw() {
    let (dir, path) = write_capture();
    let png = dir.path().join("frame.png");
    let report = json(&[
        "replay",
        &path,
        "--cpu",
        "--out",
        png.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(report["draws_rendered"], 1, "{report}");
    assert_eq!(report["skipped"], serde_json::json!([]), "{report}");
    assert!(png.exists());
    let warnings = report["warnings"].to_string();
    assert!(
        warnings.contains("attribute 3 has no array and no value in the capture"),
        "{warnings}"
    );
    assert!(warnings.contains("c[4]"), "{warnings}");
    // Pixel (32, 32) is window-space NDC (0, 0), inside the triangle whichever way y points;
    // COL0 there is v3 * c4 + v3 = RPCS3's (0, 0, 0, 1), written as A8R8G8B8.
    let (rgba, width) = read_png(&png);
    let at = |x: usize, y: usize| &rgba[(y * width + x) * 4..(y * width + x) * 4 + 4];
    let want: Vec<u8> = RPCS3_UNSET.iter().map(|c| (c * 255.0) as u8).collect();
    assert_eq!(at(32, 32), &want[..]);
    // Pixel (0, 0) is outside it (NDC (-1, +-1)): the triangle drew only where it covers.
    assert_ne!(at(0, 0), at(32, 32));
}

#[test]
fn replay_on_the_gpu_renders_the_draw() {
    let (dir, path) = write_capture();
    let png = dir.path().join("frame.png");
    let out = rsxtrace(&["replay", &path, "--out", png.to_str().unwrap(), "--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if rsxtrace_testkit::device::cli_adapter_missing(
        "replay_on_the_gpu_renders_the_draw",
        out.status.code(),
        &stderr,
    ) {
        return;
    }
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(report["draws_rendered"], 1, "{report}");
    let warnings = report["warnings"].to_string();
    assert!(
        warnings.contains("attribute 3 has no array and no value in the capture"),
        "{warnings}"
    );
}

#[test]
fn mvp_goes_on_and_counts_the_draw_without_constants() {
    let (dir, path) = write_capture();
    let placements = dir.path().join("placements.json");
    std::fs::write(
        &placements,
        r#"[{"id": "a", "world": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1]}]"#,
    )
    .unwrap();
    let report = json(&[
        "mvp",
        &path,
        "--placements",
        placements.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(report["summary"]["without_constants"], 1, "{report}");
    assert_eq!(report["summary"]["matched"], 0);
    assert!(report["view_projection"].is_null());
    assert_eq!(report["view_projection_source"], "unknown");
    assert!(report["convention"].is_null());
    let text = ok(&["mvp", &path, "--placements", placements.to_str().unwrap()]);
    assert!(text.contains("warning: no draw has c32..c35"), "{text}");
}

/// `rsxtrace verify ARGS`, or `None` after a loud "GPU SKIPPED" when no device opens (a
/// failure with `CI=true`).
fn verify(args: &[&str]) -> Option<Output> {
    let mut all = vec!["verify", "--quiet"];
    all.extend_from_slice(args);
    let out = rsxtrace(&all);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if rsxtrace_testkit::device::cli_adapter_missing("verify", out.status.code(), &stderr) {
        return None;
    }
    Some(out)
}

#[test]
fn verify_compares_the_draw_with_substituted_state() {
    let (dir, path) = write_capture();
    let report_path = dir.path().join("v.json");
    let html_path = dir.path().join("v.html");
    let Some(out) = verify(&[
        &path,
        "--json",
        report_path.to_str().unwrap(),
        "--html",
        html_path.to_str().unwrap(),
    ]) else {
        return;
    };
    let html = std::fs::read_to_string(&html_path).unwrap();
    assert!(
        html.contains("vertex (substituted zeros: c[4]; attributes 3)"),
        "the HTML stage cells name the substitution"
    );
    assert!(html.contains("fragment (substituted random (seed "));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("substituted: draw 0 vertex: zeros: c[4]; attributes 3"),
        "{stdout}"
    );
    let report: Value = serde_json::from_slice(&std::fs::read(&report_path).unwrap()).unwrap();
    assert_eq!(report["totals"]["skipped"], 0, "{report}");
    assert_eq!(report["totals"]["substituted"], 4);
    let stages = report["draws"][0]["stages"].as_array().expect("stages");
    // Vertex and fragment with zeros, then vertex and fragment with random constants.
    let kinds: Vec<(&str, &str)> = stages
        .iter()
        .map(|s| {
            (
                s["stage"].as_str().unwrap(),
                s["substituted"]["constants"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("vertex", "zeros"),
            ("fragment", "zeros"),
            ("vertex", "random"),
            ("fragment", "random")
        ]
    );
    for s in stages {
        assert_eq!(s["outcome"]["kind"], "clean", "{s}");
        assert!(s["elements"].as_u64().unwrap() > 0, "{s}");
        assert_eq!(
            s["substituted"]["registers"],
            serde_json::json!([UNSET_CONSTANT])
        );
        assert_eq!(
            s["substituted"]["attributes"],
            serde_json::json!([UNSET_ATTRIBUTE])
        );
    }
    assert!(stages[0]["substituted"]["seed"].is_null());
    assert!(stages[2]["substituted"]["seed"].is_u64());
}
