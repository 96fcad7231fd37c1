//! A capture laid out byte by byte the way RPCS3's own serializer writes it (rrc-format.md
//! sections 1.2 to 1.6 and 3.2 to 3.3), independently of rsxtrace's builder and writer, run
//! through the real `rsxtrace` binary: `draws --json` and `dump --json` must give the right
//! draws, constants and vertices.
//!
//! The file deliberately has what RPCS3's writer produces and our builder does not: map entries
//! in hash order, ids that do not start at 0x1235, an unreferenced leftover data blob, a memory
//! block id shared by two draws, batched constant uploads with continuation entries, and gzip
//! with no file name.

use serde_json::Value;
use std::io::Write;
use std::process::Command;

/// Byte writer with the `utils::serial` encodings.
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

const TILE_ID: u64 = 0x5001;
const DISPLAY_ID: u64 = 0x5002;
const BLOCK_VERTICES: u64 = 0x5010;
const BLOCK_PROGRAM: u64 = 0x5011;
const BLOCK_INDICES: u64 = 0x5012;
const DATA_VERTICES: u64 = 0x5020;
const DATA_PROGRAM: u64 = 0x5021;
const DATA_INDICES: u64 = 0x5022;
const DATA_LEFTOVER: u64 = 0x5023;

const POSITIONS: [[f32; 3]; 3] = [[0.0, 1.0, 0.5], [-1.0, -1.0, 0.25], [1.0, -0.5, -2.0]];
const COLOUR: [f32; 4] = [0.25, 0.5, 0.75, 1.0];
const INDICES: [u16; 4] = [2, 0, 1, 2];

fn mvp_rows() -> [[f32; 4]; 4] {
    [
        [1.0, 0.0, 0.0, 10.0],
        [0.0, 2.0, 0.0, 20.0],
        [0.0, 0.0, 3.0, 30.0],
        [0.0, 0.0, 1.0, 0.0],
    ]
}

/// Two vertex-program instructions (8 words); the second has D3 bit 0 (END) set. Their exact
/// meaning does not matter here, only that they are uploaded and hashed.
const VP_WORDS: [u32; 8] = [
    0x401F_9C6C,
    0x01D0_0000,
    0x8106_C083,
    0x6041_FF80, // slot 0
    0x401F_9C6C,
    0x01D0_0800,
    0x8106_C083,
    0x6041_DFA1, // slot 1, END
];

/// MOV R0, f[COL0] with END, as stored in memory (rsx-microcode.md B.1, primitives.fpo).
const FP_BYTES: [u8; 16] = [
    0x3e, 0x01, 0x01, 0x00, 0xc8, 0x01, 0x1c, 0x9d, 0xc8, 0x00, 0x00, 0x01, 0xc8, 0x00, 0x3f, 0xe1,
];

fn commands() -> (Vec<Cmd>, usize, usize) {
    let mut c = vec![Cmd(0x40, 0, vec![], TILE_ID, DISPLAY_ID)];
    c.push(method(0x1E9C, 0)); // TRANSFORM_PROGRAM_LOAD
    c.extend(batch(0x0B80, &VP_WORDS)); // TRANSFORM_PROGRAM[0..8]
    c.push(method(0x1EA0, 0)); // TRANSFORM_PROGRAM_START
    c.push(method(0x1EFC, 32)); // TRANSFORM_CONSTANT_LOAD = 32
    let words: Vec<u32> = mvp_rows()
        .iter()
        .flat_map(|r| r.iter().map(|f| f.to_bits()))
        .collect();
    c.extend(batch(0x1F00, &words)); // c32..c35
    c.push(method(0x1FF0, 0b1001)); // VERTEX_ATTRIB_INPUT_MASK: attributes 0 and 3
    c.push(method(0x1740, 2 | (3 << 4) | (12 << 8))); // ARRAY_FORMAT[0]: F, size 3, stride 12
    c.push(method(0x1680, 0x0010_0000)); // ARRAY_OFFSET[0]: local 0x100000
    for (j, v) in COLOUR.iter().enumerate() {
        c.push(method(0x1C30 + 4 * j as u32, v.to_bits())); // VERTEX_DATA4F_M[3]
    }
    c.push(method(0x08E4, 0x0020_0000 | 1)); // SHADER_PROGRAM: local 0x200000
    c.push(method(0x1D60, 0x40)); // SHADER_CONTROL: 32-bit exports
    c.push(method(0x1808, 5)); // BEGIN triangles
    c.push(method(0x1814, (3 - 1) << 24)); // DRAW_ARRAYS first 0 count 3
    let end0 = c.len();
    c.push(Cmd(
        0x1808 | (1 << 18),
        0,
        vec![BLOCK_PROGRAM, BLOCK_VERTICES],
        TILE_ID,
        DISPLAY_ID,
    ));
    // Draw 1: indexed u16 triangle strip from main memory, c33 replaced.
    c.push(method(0x181C, 0x1000)); // INDEX_ARRAY_ADDRESS
    c.push(method(0x1820, 1 | (1 << 4))); // INDEX_ARRAY_DMA: main, u16
    c.push(method(0x1EFC, 33));
    c.extend(batch(0x1F00, &[0.5f32, 0.25, 0.125, 4.0].map(f32::to_bits)));
    c.push(method(0x1808, 6)); // BEGIN triangle_strip
    c.push(method(0x1824, (4 - 1) << 24)); // DRAW_INDEX_ARRAY first 0 count 4
    let end1 = c.len();
    c.push(Cmd(
        0x1808 | (1 << 18),
        0,
        vec![BLOCK_PROGRAM, BLOCK_INDICES, BLOCK_VERTICES],
        TILE_ID,
        DISPLAY_ID,
    ));
    (c, end0, end1)
}

fn capture_bytes() -> (Vec<u8>, usize, usize) {
    let mut s = Stream::default();
    s.bytes(b"RRC\0").u32(6).u32(1);
    // tile_map: one all-zero tile_state (432 bytes), then its id.
    s.varint(1).bytes(&[0u8; 432]).u64(TILE_ID);
    // memory_map in "hash order": struct, then id.
    s.varint(3);
    s.u32(0x1000).u32(1).u64(DATA_INDICES).u64(BLOCK_INDICES);
    s.u32(0x0010_0000)
        .u32(0)
        .u64(DATA_VERTICES)
        .u64(BLOCK_VERTICES);
    s.u32(0x0020_0000)
        .u32(0)
        .u64(DATA_PROGRAM)
        .u64(BLOCK_PROGRAM);
    // memory_data_map: varint length, bytes, id; one leftover blob nobody references.
    let vertex_bytes: Vec<u8> = POSITIONS
        .iter()
        .flatten()
        .flat_map(|f| f.to_be_bytes())
        .collect();
    let index_bytes: Vec<u8> = INDICES.iter().flat_map(|i| i.to_be_bytes()).collect();
    s.varint(4);
    s.varint(5).bytes(b"stale").u64(DATA_LEFTOVER);
    s.varint(index_bytes.len() as u64)
        .bytes(&index_bytes)
        .u64(DATA_INDICES);
    s.varint(16).bytes(&FP_BYTES).u64(DATA_PROGRAM);
    s.varint(vertex_bytes.len() as u64)
        .bytes(&vertex_bytes)
        .u64(DATA_VERTICES);
    // display_buffers_map: one state (8 buffers + count) and its id.
    s.varint(1);
    for i in 0..8u32 {
        if i == 0 {
            s.u32(1280).u32(720).u32(5120).u32(0x0100_0000);
        } else {
            s.u32(0).u32(0).u32(0).u32(0);
        }
    }
    s.u32(1).u64(DISPLAY_ID);
    let (cmds, end0, end1) = commands();
    s.varint(cmds.len() as u64);
    for Cmd(first, second, mem, tile, display) in &cmds {
        s.u32(*first).u32(*second).varint(mem.len() as u64);
        for id in mem {
            s.u64(*id);
        }
        s.u64(*tile).u64(*display);
    }
    // Tail: 2176-word transform program (all zero at frame start) and 16384 registers.
    s.bytes(&vec![0u8; 8704]).bytes(&vec![0u8; 65536]);
    (s.0, end0, end1)
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(8));
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

fn rsxtrace(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_rsxtrace"))
        .args(args)
        .output()
        .expect("run rsxtrace");
    assert!(
        out.status.success(),
        "rsxtrace {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

fn approx(v: &Value, expected: f32) {
    let got = v.as_f64().expect("number") as f32;
    assert!(
        (got - expected).abs() <= 1e-6,
        "got {got}, expected {expected}"
    );
}

#[test]
fn draws_and_dump_of_a_capture_laid_out_like_rpcs3_writes_it() {
    let (raw, end0, end1) = capture_bytes();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("BLUS00000_20260101000000_capture.rrc.gz");
    std::fs::write(&path, gzip(&raw)).unwrap();
    let path = path.to_str().unwrap();

    let draws = rsxtrace(&["draws", path, "--json"]);
    let draws = draws.as_array().expect("array");
    assert_eq!(draws.len(), 2);
    let (d0, d1) = (&draws[0], &draws[1]);
    assert_eq!(d0["index"], 0);
    assert_eq!(d0["end_command"], end0);
    assert_eq!(d0["primitive"], "triangles");
    assert_eq!(d0["indexed"], false);
    assert_eq!(d0["ranges"], serde_json::json!([{"first": 0, "count": 3}]));
    assert_eq!(d0["vertex_count"], 3);
    assert_eq!(d0["vp_start"], 0);
    assert_eq!(
        d0["fp"],
        serde_json::json!({"location": "local", "offset": 0x200000})
    );
    assert!(d0["fp_hash"].is_string());
    let hash = d0["vp_hash"].as_str().expect("vp_hash string");
    assert_eq!(hash.len(), 16, "{hash}");
    for (k, row) in mvp_rows().iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            approx(&d0["mvp"][k][j], *v);
        }
    }

    assert_eq!(d1["index"], 1);
    assert_eq!(d1["end_command"], end1);
    assert_eq!(d1["primitive"], "triangle_strip");
    assert_eq!(d1["indexed"], true);
    assert_eq!(d1["ranges"], serde_json::json!([{"first": 0, "count": 4}]));
    assert_eq!(d1["vertex_count"], 4);
    assert_eq!(d1["vp_hash"], d0["vp_hash"]);
    assert_eq!(d1["fp_hash"], d0["fp_hash"]);
    for (j, v) in [0.5f32, 0.25, 0.125, 4.0].iter().enumerate() {
        approx(&d1["mvp"][1][j], *v);
    }
    approx(&d1["mvp"][0][3], 10.0);

    let dump = rsxtrace(&["dump", path, "--draw", "1", "--json"]);
    assert_eq!(dump["draw"], *d1);
    let vertices = dump["vertices"].as_array().expect("vertices");
    assert_eq!(vertices.len(), INDICES.len());
    for (vertex, &index) in vertices.iter().zip(INDICES.iter()) {
        assert_eq!(vertex["index"], index as u64);
        let attrs = vertex["attributes"].as_object().expect("attributes");
        assert_eq!(attrs.len(), 2, "attributes 0 and 3: {attrs:?}");
        let p = POSITIONS[index as usize];
        for j in 0..3 {
            approx(&attrs["0"][j], p[j]);
        }
        approx(&attrs["0"][3], 1.0);
        for j in 0..4 {
            approx(&attrs["3"][j], COLOUR[j]);
        }
    }
}

#[test]
fn the_same_capture_uncompressed_and_as_zstd_reads_the_same() {
    let (raw, _, _) = capture_bytes();
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("capture.rrc");
    let zst = dir.path().join("capture.rrc.zst");
    // A gzip file named .rrc, as RPCS3 wrote from 2023-11-09 to 2023-11-15 (rrc-format.md 2.3).
    let misnamed = dir.path().join("misnamed.rrc");
    std::fs::write(&plain, &raw).unwrap();
    std::fs::write(&zst, zstd::encode_all(&raw[..], 3).unwrap()).unwrap();
    std::fs::write(&misnamed, gzip(&raw)).unwrap();
    let reference = rsxtrace(&["draws", plain.to_str().unwrap(), "--json"]);
    assert_eq!(
        rsxtrace(&["draws", zst.to_str().unwrap(), "--json"]),
        reference
    );
    assert_eq!(
        rsxtrace(&["draws", misnamed.to_str().unwrap(), "--json"]),
        reference
    );
}
