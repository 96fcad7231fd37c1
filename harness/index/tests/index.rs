//! Indexing behaviour: a capture indexed again replaces its rows; a truncated, corrupt or
//! undecodable capture is an error for it alone; a draw part that does not decode is a
//! warning and the rest of the capture is indexed; memory uses name the builder's buffers; a
//! new database appears whole, or not at all.

use crate::common;

use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
use rsxtrace_capture::builder::vertex_ucode::mvp_vertex_program;
use rsxtrace_capture::builder::{methods as m, CaptureBuilder, IndexType, TextureDesc};
use rsxtrace_capture::frame::{Frame, CONSTANT_COUNT};
use rsxtrace_capture::rrc::{self, Location};
use rsxtrace_index::{index_file, Database, IndexError};
use std::path::Path;

fn count(db: &Database, sql: &str) -> i64 {
    db.connection().query_row(sql, [], |r| r.get(0)).unwrap()
}

/// Rows of every per-capture table, for one capture id.
fn rows_of(db: &Database, id: i64) -> Vec<(String, i64)> {
    [
        "draws",
        "draw_rows",
        "draw_states",
        "constant_runs",
        "draw_constants",
        "fragment_constants",
        "draw_textures",
        "draw_texture_rows",
        "texture_bindings",
        "memory_blocks",
        "block_uses",
        "warnings",
        "captures",
    ]
    .iter()
    .map(|t| {
        (
            t.to_string(),
            count(
                db,
                &format!("SELECT count(*) FROM {t} WHERE capture_id = {id}"),
            ),
        )
    })
    .collect()
}

/// One `draw_constants` row: draw, register, the four components (NULL for unknown or NaN),
/// known, read, read_relative, set_in_frame, set_for_draw, set_at_command.
type ConstantRow = (
    i64,
    i64,
    [Option<f64>; 4],
    bool,
    bool,
    bool,
    bool,
    bool,
    Option<i64>,
);

/// `draw_constants` of capture `id`, by draw and register.
fn view_rows(db: &Database, id: i64) -> Vec<ConstantRow> {
    let mut stmt = db
        .connection()
        .prepare(
            "SELECT draw, register, x, y, z, w, known, read, read_relative, set_in_frame, \
             set_for_draw, set_at_command FROM draw_constants WHERE capture_id = ?1 \
             ORDER BY draw, register",
        )
        .unwrap();
    stmt.query_map([id], |r| {
        Ok((
            r.get(0)?,
            r.get(1)?,
            [r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?],
            r.get(6)?,
            r.get(7)?,
            r.get(8)?,
            r.get(9)?,
            r.get(10)?,
            r.get(11)?,
        ))
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

fn samples() -> std::path::PathBuf {
    rsxtrace_testkit::workspace!().samples_dir()
}

#[test]
fn indexing_a_capture_again_replaces_its_rows() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Database::open(&dir.path().join("i.sqlite")).unwrap();
    let basic = samples().join("basic.rrc.gz");
    let first = index_file(&mut db, &basic, &|_| {}).unwrap();
    let level = index_file(&mut db, &common::bundled()[4], &|_| {}).unwrap();
    assert!(!first.replaced);
    let before = rows_of(&db, first.capture_id);
    assert_eq!(before[0], ("draws".to_string(), 3));

    // The same bytes under another name and path: the same capture, its rows replaced.
    let copy = dir.path().join("renamed.rrc.gz");
    std::fs::copy(&basic, &copy).unwrap();
    let again = index_file(&mut db, &copy, &|_| {}).unwrap();
    assert!(again.replaced);
    assert_eq!(again.capture_id, first.capture_id);
    assert_eq!(rows_of(&db, first.capture_id), before);
    let name: String = db
        .connection()
        .query_row(
            "SELECT file_name FROM captures WHERE capture_id = ?1",
            [first.capture_id],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(name, "renamed.rrc.gz");
    // The level is untouched, and programs and textures are not duplicated.
    assert_eq!(rows_of(&db, level.capture_id)[0].1, 40);
    assert_eq!(count(&db, "SELECT count(*) FROM captures"), 2);
    let programs = count(&db, "SELECT count(*) FROM programs");
    index_file(&mut db, &basic, &|_| {}).unwrap();
    assert_eq!(count(&db, "SELECT count(*) FROM programs"), programs);

    // Other bytes under the same name: another capture.
    let other = dir.path().join("basic.rrc.gz");
    std::fs::copy(samples().join("primitives.rrc.gz"), &other).unwrap();
    let third = index_file(&mut db, &other, &|_| {}).unwrap();
    assert!(!third.replaced);
    assert_ne!(third.capture_id, first.capture_id);
    assert_eq!(count(&db, "SELECT count(*) FROM captures"), 3);
}

/// The names of the entries of `dir`, sorted.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_new_database_appears_whole_when_finished() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new.sqlite");
    let basic = samples().join("basic.rrc.gz");

    // Written aside until finished; then in place, in WAL mode, with SQLite's file mode.
    let mut db = Database::create(&path).unwrap();
    let first = index_file(&mut db, &basic, &|_| {}).unwrap();
    let aside = entries(dir.path());
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert!(
        aside[0].starts_with(".new.sqlite.") && aside[0].ends_with(".partial"),
        "{aside:?}"
    );
    db.finish().unwrap();
    assert_eq!(entries(dir.path()), ["new.sqlite"]);
    // The file format's write and read versions (header bytes 18 and 19) are 2 in WAL mode.
    let header = std::fs::read(&path).unwrap();
    assert_eq!(&header[18..20], &[2, 2]);
    let db = Database::open(&path).unwrap();
    assert_eq!(count(&db, "SELECT count(*) FROM captures"), 1);
    assert_eq!(rows_of(&db, first.capture_id)[0], ("draws".to_string(), 3));
    drop(db);
    let made_by_sqlite = dir.path().join("opened.sqlite");
    Database::open(&made_by_sqlite).unwrap();
    let permissions = |p: &Path| std::fs::metadata(p).unwrap().permissions();
    assert_eq!(permissions(&path), permissions(&made_by_sqlite));

    // An existing file is refused and left as it was.
    let before = std::fs::read(&path).unwrap();
    let err = Database::create(&path).err().unwrap();
    assert!(matches!(err, IndexError::File { .. }), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), before);

    // Dropped unfinished, it leaves nothing.
    let dropped = dir.path().join("dropped.sqlite");
    let mut db = Database::create(&dropped).unwrap();
    index_file(&mut db, &basic, &|_| {}).unwrap();
    drop(db);
    assert!(!entries(dir.path()).iter().any(|n| n.contains("dropped")));

    // A file put at the path meanwhile is not replaced; the database is not left behind.
    let raced = dir.path().join("raced.sqlite");
    let mut db = Database::create(&raced).unwrap();
    index_file(&mut db, &basic, &|_| {}).unwrap();
    std::fs::write(&raced, b"someone else's").unwrap();
    let err = db.finish().unwrap_err();
    assert!(matches!(err, IndexError::File { .. }), "{err}");
    assert_eq!(std::fs::read(&raced).unwrap(), b"someone else's");
    assert!(!entries(dir.path()).iter().any(|n| n.ends_with(".partial")));
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn a_bad_capture_is_an_error_for_it_alone() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Database::open(&dir.path().join("i.sqlite")).unwrap();
    let game = std::fs::read(samples().join("game.rrc.gz")).unwrap();
    let truncated = write(dir.path(), "truncated.rrc.gz", &game[..game.len() / 3]);
    let mut corrupt_bytes = game.clone();
    for b in &mut corrupt_bytes[1000..1400] {
        *b ^= 0x5A;
    }
    let corrupt = write(dir.path(), "corrupt.rrc.gz", &corrupt_bytes);
    let not_a_capture = write(dir.path(), "notes.txt", b"not a capture at all");
    for path in [&truncated, &corrupt, &not_a_capture] {
        let err = index_file(&mut db, path, &|_| {}).unwrap_err();
        assert!(err.is_capture_error(), "{}: {err}", path.display());
        assert!(matches!(err, IndexError::Open(_)), "{err}");
        let text = format!("{err}");
        assert!(
            text.contains(path.file_name().unwrap().to_str().unwrap()),
            "{text}"
        );
    }
    assert_eq!(count(&db, "SELECT count(*) FROM captures"), 0);
    assert_eq!(count(&db, "SELECT count(*) FROM draws"), 0);
    // A capture whose command refers to a memory block its map lacks is readable and its
    // frame decodes without that block: indexed whole, the block named in a warning.
    let mut capture =
        rrc::read_bytes(&std::fs::read(samples().join("basic.rrc.gz")).unwrap(), "x").unwrap();
    capture.commands[5].memory.push(0xDEAD_BEEF);
    let damaged = write(dir.path(), "damaged.rrc.gz", &rrc::write_v6(&capture));
    let report = index_file(&mut db, &damaged, &|_| {}).unwrap();
    assert_eq!(report.draws, 3);
    assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
    assert!(
        report.warnings[0]
            .message
            .starts_with("command 5: memory block id 0xdeadbeef is not in the memory map"),
        "{:?}",
        report.warnings
    );
    // The database goes on with the next capture.
    let level = index_file(&mut db, &common::bundled()[4], &|_| {}).unwrap();
    assert_eq!(level.draws, 40);
    assert!(level.warnings.is_empty(), "{:?}", level.warnings);
}

/// Three draws: a good one; an indexed one whose index buffer the capture lost; one whose
/// texture unit has a format the texture model does not know.
fn damaged() -> rrc::Capture {
    let mut b = CaptureBuilder::new("damaged.rrc.gz");
    let triangle: Vec<u8> = [
        0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0,
    ]
    .iter()
    .flat_map(|v| v.to_be_bytes())
    .collect();
    b.put_memory(Location::Main, 0x1000, &triangle).unwrap();
    b.put_memory(Location::Main, 0x2000, &[0, 0, 0, 1, 0, 2])
        .unwrap();
    b.put_memory(Location::Local, 0x10_0000, &[0x55; 64])
        .unwrap();
    b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, 0x1000)
        .unwrap();
    b.set_vertex_program(&mvp_vertex_program(32), 0, 0, 0b1, 0b1)
        .unwrap();
    b.set_fragment_program(Location::Local, 0x100, &FRAGMENT_MOV_COL0, 0x40)
        .unwrap();
    b.draw_arrays(5, &[(0, 3)]).unwrap();
    b.set_index_array(Location::Main, 0x2000, IndexType::U16)
        .unwrap();
    b.draw_indexed(5, &[(0, 3)]).unwrap();
    b.set_texture(
        0,
        &TextureDesc {
            offset: 0x10_0000,
            location: Location::Local,
            format: 0xA5, // A8R8G8B8, linear
            dimension: 2,
            cubemap: false,
            mipmaps: 1,
            width: 4,
            height: 4,
            depth: 1,
            pitch: 16,
            address: 0x0001_0101,
            control0: 0,
            remap: 0xAAE4,
            filter: 0x0101_0000,
            border_color: 0,
            byte_size: 64,
            border_texels: false,
        },
    )
    .unwrap();
    // Format 0x8A: no such RSX texture format (gcm_enums.h).
    b.method(m::TEXTURE_FORMAT, 0x0001_8A29).unwrap();
    b.draw_arrays(5, &[(0, 3)]).unwrap();
    let mut capture = b.finish();
    // Lose draw 1's index range: detach the block at 0x2000 from its END.
    let frame = Frame::from_capture(&capture).unwrap();
    let end = frame.draws[1].end_command;
    let blocks: Vec<(u64, u32)> = capture
        .blocks
        .iter()
        .map(|e| (e.id, e.value.offset))
        .collect();
    capture.commands[end].memory.retain(|id| {
        blocks
            .iter()
            .find(|b| b.0 == *id)
            .is_none_or(|b| b.1 != 0x2000)
    });
    capture
}

#[test]
fn a_draw_part_that_does_not_decode_is_a_warning_and_the_rest_is_indexed() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "damaged.rrc.gz", &rrc::write_v6(&damaged()));
    let mut db = Database::in_memory().unwrap();
    let report = index_file(&mut db, &path, &|_| {}).unwrap();
    assert_eq!(report.draws, 3);
    let warned: Vec<(Option<usize>, &str)> = report
        .warnings
        .iter()
        .map(|w| (w.draw, w.message.as_str()))
        .collect();
    assert_eq!(warned.len(), 2, "{warned:?}");
    assert_eq!(warned[0].0, Some(1));
    assert!(warned[0].1.contains("index range 0"), "{}", warned[0].1);
    assert_eq!(warned[1].0, Some(2));
    assert_eq!(
        warned[1].1,
        "fragment texture unit 0: unsupported texture format 0x8a"
    );
    assert_eq!(
        count(&db, "SELECT count(*) FROM warnings"),
        2,
        "the warnings are in the database"
    );
    assert_eq!(count(&db, "SELECT warnings FROM captures"), 2);
    // Draw 1 still has its row, its program and its constants; only its vertex memory is
    // missing. Draw 2's unit is listed with its problem.
    let uses = |draw: i64| {
        let mut stmt = db
            .connection()
            .prepare("SELECT role FROM block_uses WHERE draw = ?1 ORDER BY role")
            .unwrap();
        stmt.query_map([draw], |r| r.get::<_, String>(0))
            .unwrap()
            .map(Result::unwrap)
            .collect::<Vec<_>>()
    };
    assert_eq!(uses(0), vec!["attribute", "fragment_program"]);
    assert_eq!(uses(1), vec!["fragment_program"]);
    assert_eq!(uses(2), vec!["attribute", "fragment_program"]);
    let (key, problem): (Option<String>, Option<String>) = db
        .connection()
        .query_row(
            "SELECT texture_key, problem FROM draw_textures WHERE draw = 2 AND unit = 0",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(key, None);
    assert_eq!(
        problem.as_deref(),
        Some("texture unit 0: unsupported texture format 0x8a")
    );
    assert_eq!(count(&db, "SELECT count(*) FROM draws"), 3);
}

#[test]
fn memory_uses_name_the_builders_buffers() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = common::database(dir.path());
    // The scene's five draws all read the triangle at main 0x1000 (3 elements of 12 bytes)
    // as attribute 0, from one block holding exactly those bytes.
    let mut stmt = db
        .connection()
        .prepare(
            "SELECT u.draw, u.slot, b.location, b.address, u.offset, u.bytes \
             FROM block_uses u JOIN memory_blocks b USING (capture_id, block) \
             JOIN captures c USING (capture_id) \
             WHERE c.file_name = ?1 AND u.role = 'attribute' ORDER BY u.draw",
        )
        .unwrap();
    let rows: Vec<(i64, i64, String, i64, i64, i64)> = stmt
        .query_map([common::SCENE], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let want: Vec<(i64, i64, String, i64, i64, i64)> = (0..5)
        .map(|d| (d, 0, "main".to_string(), 0x1000, 0, 36))
        .collect();
    assert_eq!(rows, want);
    // Every texture binding of the texture-format sample reads its texels from blocks:
    // as many bytes as the texture holds.
    let mismatched = count(
        &db,
        "SELECT count(*) FROM draw_textures dt JOIN textures t ON t.key = dt.texture_key \
         JOIN captures c USING (capture_id) WHERE c.file_name = 'texture_formats.rrc.gz' \
         AND t.bytes != (SELECT sum(u.bytes) FROM block_uses u WHERE u.capture_id = dt.capture_id \
                         AND u.draw = dt.draw AND u.role = 'texture' AND u.slot = dt.unit)",
    );
    assert_eq!(mismatched, 0);
    assert!(
        count(
            &db,
            "SELECT count(*) FROM draw_textures dt JOIN captures c USING (capture_id) \
             WHERE c.file_name = 'texture_formats.rrc.gz' AND dt.texture_key IS NOT NULL"
        ) > 20
    );
}

/// The `draw_constants` view (made from runs) holds, for every draw, exactly the registers
/// known at the draw or read by its vertex program, with the frame model's values and writes:
/// the per-draw rule computed here from the frame directly.
#[test]
fn draw_constants_are_the_frame_models_constants_at_every_draw() {
    for path in [samples().join("game.rrc.gz"), common::bundled()[4].clone()] {
        let mut db = Database::in_memory().unwrap();
        let report = index_file(&mut db, &path, &|_| {}).unwrap();
        let capture = rsxtrace_capture::open::open_capture(&path).unwrap();
        let frame = Frame::from_capture(&capture).unwrap();
        let reads: std::collections::HashSet<(String, i64, bool)> = db
            .connection()
            .prepare("SELECT key, register, relative FROM program_constants")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let mut expected: Vec<ConstantRow> = Vec::new();
        for draw in &frame.draws {
            let key = format!("{:016x}", draw.vp_hash);
            let previous_end = draw
                .index
                .checked_sub(1)
                .map(|i| frame.draws[i].end_command);
            let c = &draw.constants;
            for r in 0..CONSTANT_COUNT {
                let read = reads.contains(&(key.clone(), r as i64, false));
                let relative = reads.contains(&(key.clone(), r as i64, true));
                if !(c.is_known(r) || read || relative) {
                    continue;
                }
                let value = c.get(r).map_or([None; 4], |v| {
                    v.map(|x| (!x.is_nan()).then_some(f64::from(x)))
                });
                let written = c.written_at(r);
                expected.push((
                    draw.index as i64,
                    r as i64,
                    value,
                    c.is_known(r),
                    read,
                    relative,
                    written.is_some(),
                    written.is_some_and(|w| previous_end.is_none_or(|p| w > p)),
                    written.map(|w| w as i64),
                ));
            }
        }
        let rows = view_rows(&db, report.capture_id);
        assert!(rows.len() > frame.draws.len(), "{}", path.display());
        assert_eq!(rows.len(), expected.len(), "{}", path.display());
        for (got, want) in rows.iter().zip(&expected) {
            assert_eq!(got, want, "{}", path.display());
        }
        // On a frame of many draws the runs are far fewer than the rows they stand for.
        let runs = count(&db, "SELECT count(*) FROM constant_runs");
        if frame.draws.len() >= 1000 {
            assert!(
                runs * 4 < rows.len() as i64,
                "{runs} runs for {} rows",
                rows.len()
            );
        }
    }
}

/// Vertex program builders for [`vertex_texture_units_have_flow_classes`].
mod vp {
    use rsxtrace_program::vertex::{
        self, ConditionUpdate, OutputRegister, RegisterType, Relation, ScalarOpcode, VectorOpcode,
        VertexInstruction, VertexProgram, WriteMask,
    };

    /// TXL R<temp> (all components) from `unit`, coordinate v[0], LOD c[0].x (the unit is
    /// D2 bits 8–9, src1's temp index bits 0–1).
    pub fn txl(unit: u8, temp: u8) -> VertexInstruction {
        let mut i = VertexInstruction::idle(0);
        i.vector = VectorOpcode::Txl;
        i.vec_dst_temp = Some(temp);
        i.vec_mask = WriteMask(0xF);
        i.sources[1].reg_type = RegisterType::Constant;
        i.sources[1].temp_index = unit;
        i
    }

    /// MOV o[reg] <- R<temp>, or v[0] without a temp.
    pub fn out(reg: u8, temp: Option<u8>) -> VertexInstruction {
        let mut i = VertexInstruction::idle(0);
        i.vector = VectorOpcode::Mov;
        i.output = Some(OutputRegister(reg));
        i.vec_result = true;
        i.vec_mask = WriteMask(0xF);
        if let Some(t) = temp {
            i.sources[0].reg_type = RegisterType::Temp;
            i.sources[0].temp_index = t;
        }
        i
    }

    /// MOV R<temp> <- v[0], updating CC0.
    pub fn test_input(temp: u8) -> VertexInstruction {
        let mut i = VertexInstruction::idle(0);
        i.vector = VectorOpcode::Mov;
        i.vec_dst_temp = Some(temp);
        i.vec_mask = WriteMask(0xF);
        i.cc_update = ConditionUpdate {
            enable_0: true,
            enable_1: true,
        };
        i
    }

    /// BRI to the absolute slot `target` under `relation` (CC0.xyzw).
    pub fn bri(relation: Relation, target: u16) -> VertexInstruction {
        let mut i = VertexInstruction::idle(0);
        i.scalar = ScalarOpcode::Bri;
        i.condition.relation = relation;
        vertex::set_branch_target(&mut i, target);
        i
    }

    pub fn end(mut i: VertexInstruction) -> VertexInstruction {
        i.end = true;
        i
    }

    /// The words of `insns` laid out from slot `first`.
    pub fn words(first: usize, insns: Vec<VertexInstruction>) -> Vec<u32> {
        vertex::encode(&VertexProgram {
            start_slot: first,
            instructions: insns
                .into_iter()
                .enumerate()
                .map(|(k, i)| VertexInstruction {
                    slot: first + k,
                    ..i
                })
                .collect(),
        })
    }
}

/// Vertex texture units get the fragment units' flow classes, over the program as it runs
/// from its start slot (branch targets are absolute): a TXL every run reaches, one a CC test
/// can skip whose texel nothing reads, and one only a never-taken branch (FL) leads to.
#[test]
fn vertex_texture_units_have_flow_classes() {
    use rsxtrace_program::vertex::Relation;
    const START: usize = 10;
    let program = vp::words(
        START,
        vec![
            vp::bri(Relation::FL, 17), // 10: never taken
            vp::txl(0, 0),             // 11: always; R0 -> o[TEX0]
            vp::test_input(1),         // 12: CC0 <- v[0]
            vp::bri(Relation::GT, 15), // 13: skips 14 when v[0] > 0
            vp::txl(1, 2),             // 14: conditional; R2 is never read
            vp::out(7, Some(0)),       // 15: o[TEX0] <- R0
            vp::end(vp::out(0, None)), // 16: o[HPOS] <- v[0]; END
            vp::end(vp::txl(2, 3)),    // 17: only the FL branch leads here
        ],
    );
    let mut b = CaptureBuilder::new("vertex-texture-flow");
    b.put_memory(Location::Main, 0x1000, &[0u8; 36]).unwrap();
    b.put_memory(Location::Local, 0x0040_0000, &[0u8; 64])
        .unwrap();
    b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, 0x1000)
        .unwrap();
    b.set_vertex_program(&program, START as u32, START as u32, 0b1, 0b1 | 1 << 7)
        .unwrap();
    b.set_fragment_program(Location::Local, 0x0080_0000, &FRAGMENT_MOV_COL0, 0x40)
        .unwrap();
    let texture = |offset| TextureDesc {
        offset,
        width: 2,
        height: 2,
        pitch: 8,
        byte_size: 16,
        ..TextureDesc::default()
    };
    // Units 0 and 3 bound: 0 is sampled, 3 is a wasted bind.
    b.set_vertex_texture(0, &texture(0x0040_0000)).unwrap();
    b.set_vertex_texture(3, &texture(0x0040_0020)).unwrap();
    b.draw_arrays(5, &[(0, 3)]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "vtf.rrc.gz", &rrc::write_v6(&b.finish()));
    let mut db = Database::in_memory().unwrap();
    index_file(&mut db, &path, &|_| {}).unwrap();
    let conn = db.connection();
    let mut stmt = conn
        .prepare(
            "SELECT unit, instructions, reach, live FROM program_textures \
             WHERE stage = 'vertex' ORDER BY unit",
        )
        .unwrap();
    let rows: Vec<(i64, i64, String, i64)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let want = [
        (0, "always", 1),
        (1, "conditional", 0),
        (2, "unreachable", 0),
    ];
    let want: Vec<(i64, i64, String, i64)> = want
        .iter()
        .map(|&(u, r, l)| (u, 1, r.to_string(), l))
        .collect();
    assert_eq!(rows, want);
    assert_eq!(
        count(
            &db,
            "SELECT flow_complete FROM programs WHERE stage = 'vertex'"
        ),
        1
    );
    let mut stmt = conn
        .prepare(
            "SELECT unit, sampled, reach, live FROM draw_textures \
             WHERE stage = 'vertex' ORDER BY unit",
        )
        .unwrap();
    let units: Vec<(i64, i64, Option<String>, Option<i64>)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        units,
        vec![
            (0, 1, Some("always".to_string()), Some(1)),
            (3, 0, None, None)
        ]
    );
}

/// A full-screen pass drawn as a grid is `full_screen` (the old check stopped at 16 vertices): a 9 × 9 grid
/// over clip space as eight triangle strips (144 vertices); the same grid short of the top
/// edge fails the box test; the grid without the two strips around y = 0 passes the box test
/// but leaves the centre uncovered; the full grid through a program four times as long is
/// more work than the check takes.
#[test]
fn a_full_screen_grid_is_a_full_screen_pass() {
    use rsxtrace_capture::builder::{SurfaceDesc, SurfaceTarget};
    // MOV o[HPOS], v[0]; END (the first slot of the ps3autotests cube program, with END set).
    const PASS_THROUGH: [u32; 4] = [0x401f_9c6c, 0x0040_000d, 0x8106_c083, 0x6041_ff81];
    /// Row `r`'s strip of a 9 × 9 grid from -1 to 1 in x and from -1 to `top` in y.
    fn strip(r: usize, top: f32) -> Vec<f32> {
        let at = |k: usize, n: usize, hi: f32| -1.0 + (hi + 1.0) * k as f32 / n as f32;
        (0..9)
            .flat_map(|i| {
                let x = at(i, 8, 1.0);
                [x, at(r, 8, top), 0.5, x, at(r + 1, 8, top), 0.5]
            })
            .collect()
    }
    let grid = |top: f32| -> Vec<u8> {
        (0..8)
            .flat_map(|r| strip(r, top))
            .flat_map(f32::to_be_bytes)
            .collect()
    };
    let mut b = CaptureBuilder::new("full-screen-grid");
    b.put_memory(Location::Main, 0x1_0000, &grid(1.0)).unwrap();
    b.put_memory(Location::Main, 0x2_0000, &grid(0.98)).unwrap();
    b.set_surface(&SurfaceDesc {
        color_format: 8,
        depth_format: 2,
        surface_type: 1,
        antialias: 0,
        log2_size: (8, 8),
        color_target: 1,
        colors: [SurfaceTarget {
            location: Location::Local,
            offset: 0x0100_0000,
            pitch: 1024,
        }; 4],
        zeta: SurfaceTarget {
            location: Location::Local,
            offset: 0x0110_0000,
            pitch: 1024,
        },
        clip: (0, 0, 256, 256),
    });
    b.set_color_mask(0x0101_0101);
    b.set_vertex_program(&PASS_THROUGH, 0, 0, 0b1, 0b1).unwrap();
    b.set_fragment_program(Location::Local, 0x0080_0000, &FRAGMENT_MOV_COL0, 0x40)
        .unwrap();
    let strips = |rows: &[u32]| -> Vec<(u32, u32)> { rows.iter().map(|r| (r * 18, 18)).collect() };
    const TRIANGLE_STRIP: u32 = 6;
    b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, 0x1_0000)
        .unwrap();
    b.draw_arrays(TRIANGLE_STRIP, &strips(&[0, 1, 2, 3, 4, 5, 6, 7]))
        .unwrap();
    b.draw_arrays(TRIANGLE_STRIP, &strips(&[0, 1, 2, 5, 6, 7]))
        .unwrap();
    b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, 0x2_0000)
        .unwrap();
    b.draw_arrays(TRIANGLE_STRIP, &strips(&[0, 1, 2, 3, 4, 5, 6, 7]))
        .unwrap();
    // The full grid through three NOPs and the MOV: 144 x 4 = 576 is more work than the
    // check takes (FULL_SCREEN_MAX_WORK), so it is not run.
    let mut padded = vp::words(
        0,
        vec![
            rsxtrace_program::vertex::VertexInstruction::idle(0),
            rsxtrace_program::vertex::VertexInstruction::idle(0),
            rsxtrace_program::vertex::VertexInstruction::idle(0),
        ],
    );
    padded.extend_from_slice(&PASS_THROUGH);
    b.set_vertex_program(&padded, 0, 0, 0b1, 0b1).unwrap();
    b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, 0x1_0000)
        .unwrap();
    b.draw_arrays(TRIANGLE_STRIP, &strips(&[0, 1, 2, 3, 4, 5, 6, 7]))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "grid.rrc.gz", &rrc::write_v6(&b.finish()));
    let mut db = Database::in_memory().unwrap();
    index_file(&mut db, &path, &|_| {}).unwrap();
    let mut stmt = db
        .connection()
        .prepare("SELECT vertex_count, pass FROM draws ORDER BY draw")
        .unwrap();
    let rows: Vec<(i64, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        rows,
        vec![
            (144, "full_screen".to_string()),
            (108, "colour".to_string()),
            (144, "colour".to_string()),
            (144, "colour".to_string())
        ]
    );
}

/// The rows of a query, each as a tuple of its columns.
fn query_rows<T: for<'r> TryFrom<&'r rusqlite::Row<'r>, Error = rusqlite::Error>>(
    db: &Database,
    sql: &str,
) -> Vec<T> {
    db.connection()
        .prepare(sql)
        .unwrap()
        .query_map([], |r| T::try_from(r))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// Rows of the table `values` of distinct values, and the distinct combinations of its value
/// columns (all but the capture and the number) seen through `view`: equal when no two
/// numbers hold equal values and no value is missing.
fn values_and_distinct(db: &Database, values: &str, view: &str) -> (i64, i64) {
    let stored = count(db, &format!("SELECT count(*) FROM {values}"));
    let columns: Vec<String> = db
        .connection()
        .prepare(&format!(
            "SELECT name FROM pragma_table_info('{values}') WHERE cid >= 2"
        ))
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let distinct = count(
        db,
        &format!(
            "SELECT count(*) FROM (SELECT DISTINCT {} FROM {view})",
            columns.join(", ")
        ),
    );
    (stored, distinct)
}

/// `draws` stores each distinct surface and raster state once (`draw_states`) and joins it back:
/// every draw reads its own state through the view, draws with equal state share a number,
/// and no two numbers hold equal state.
#[test]
fn every_draw_reads_its_own_surface_and_raster_state_through_the_view() {
    for path in [samples().join("game.rrc.gz"), common::bundled()[4].clone()] {
        let mut db = Database::in_memory().unwrap();
        index_file(&mut db, &path, &|_| {}).unwrap();
        let capture = rsxtrace_capture::open::open_capture(&path).unwrap();
        let frame = Frame::from_capture(&capture).unwrap();
        type Row = (i64, i64, i64, String, i64, f64, i64, i64);
        let rows: Vec<Row> = query_rows(
            &db,
            "SELECT state, surface_width, color_a_offset, depth_func, blend, \
             viewport_scale_y, scissor_width, stencil_ref FROM draws ORDER BY draw",
        );
        assert_eq!(rows.len(), frame.draws.len(), "{}", path.display());
        for (draw, row) in frame.draws.iter().zip(&rows) {
            let r = &draw.raster;
            let want = (
                row.0,
                i64::from(draw.surface.clip.width),
                i64::from(draw.surface.color[0].offset),
                r.depth.func.name.unwrap().to_string(),
                i64::from(r.blend.enabled),
                f64::from(r.viewport.scale[1]),
                i64::from(r.scissor.width),
                i64::from(r.stencil.front.reference),
            );
            assert_eq!(*row, want, "draw {} of {}", draw.index, path.display());
        }
        let mut revisited = false;
        for (i, a) in frame.draws.iter().enumerate() {
            for (j, b) in frame.draws.iter().enumerate().skip(i + 1) {
                if a.surface == b.surface && *a.raster == *b.raster {
                    assert_eq!(rows[i].0, rows[j].0, "draws {i} and {j}");
                    revisited |= rows[j - 1].0 != rows[i].0;
                }
            }
        }
        let (states, distinct) = values_and_distinct(&db, "draw_states", "draws");
        assert_eq!(states, distinct, "{}", path.display());
        if path.ends_with("game.rrc.gz") {
            assert!(states > 1 && states < 100, "{states} states");
            assert!(revisited, "a state comes back after another");
        }
    }
}

/// `draw_textures` stores each distinct texture and sampler state once (`texture_bindings`):
/// every enabled unit of every draw reads its own through the view, and no two numbers hold
/// equal state.
#[test]
fn every_texture_unit_reads_its_own_binding_through_the_view() {
    for path in [samples().join("game.rrc.gz"), common::bundled()[4].clone()] {
        let mut db = Database::in_memory().unwrap();
        index_file(&mut db, &path, &|_| {}).unwrap();
        let capture = rsxtrace_capture::open::open_capture(&path).unwrap();
        let frame = Frame::from_capture(&capture).unwrap();
        type Row = (i64, String, i64, i64, i64, i64, f64, i64);
        let rows: Vec<Row> = query_rows(
            &db,
            "SELECT draw, stage, unit, offset, width, border_color, lod_bias, remap \
             FROM draw_textures ORDER BY draw, stage, unit",
        );
        let mut want: Vec<Row> = Vec::new();
        for draw in &frame.draws {
            let stages = [
                ("fragment", draw.textures.as_slice()),
                ("vertex", draw.vertex_textures.as_slice()),
            ];
            for (stage, units) in stages {
                for (unit, t) in units.iter().enumerate() {
                    if t.control0.enabled {
                        want.push((
                            draw.index as i64,
                            stage.to_string(),
                            unit as i64,
                            i64::from(t.offset),
                            i64::from(t.width),
                            i64::from(t.border_color),
                            f64::from(t.filter.bias),
                            i64::from(t.remap),
                        ));
                    }
                }
            }
        }
        assert_eq!(rows, want, "{}", path.display());
        let (bindings, distinct) = values_and_distinct(&db, "texture_bindings", "draw_textures");
        assert_eq!(bindings, distinct, "{}", path.display());
        if path.ends_with("game.rrc.gz") {
            assert!(
                bindings > 1 && (bindings as usize) < rows.len() / 10,
                "{bindings}"
            );
        }
    }
}

/// `draws.zpass_pixel_count`, `report_area`, `conditional_render` and `conditional_report` on
/// the occlusion scene: its two queries' draws counted, the three flares conditional on their
/// reports, everything in the local report area; `zcull` on for every draw (the scene turns
/// it on before its first draw), off for every draw of the scene without it.
#[test]
fn occlusion_queries_and_the_draws_they_decide_are_columns() {
    use rsxtrace_capture::frame::state::REPORT_AREA_LOCAL;
    use rsxtrace_scenes::occlusion::*;
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "occlusion.rrc",
        &rrc::write_v6(&occlusion_capture()),
    );
    let mut db = Database::in_memory().unwrap();
    index_file(&mut db, &path, &|_| {}).unwrap();
    let rows: Vec<(i64, i64, i64, Option<i64>)> = query_rows(
        &db,
        "SELECT zpass_pixel_count, report_area, conditional_render, conditional_report \
         FROM draws ORDER BY draw",
    );
    let local = i64::from(REPORT_AREA_LOCAL);
    let report = |offset: u32| Some(i64::from(offset));
    assert_eq!(
        rows,
        vec![
            (0, 0, 0, None),
            (1, local, 0, None),
            (1, local, 0, None),
            (0, local, 1, report(HIDDEN_REPORT)),
            (0, local, 1, report(VISIBLE_REPORT)),
            (0, local, 1, report(UNKNOWN_REPORT)),
        ]
    );
    let zcull: Vec<(i64,)> = query_rows(&db, "SELECT zcull FROM draws ORDER BY draw");
    assert_eq!(zcull, vec![(1,); 6]);
    let off = write(
        dir.path(),
        "occlusion-zcull-off.rrc",
        &rrc::write_v6(&occlusion_capture_with(false)),
    );
    index_file(&mut db, &off, &|_| {}).unwrap();
    let zcull: Vec<(i64,)> = query_rows(
        &db,
        "SELECT d.zcull FROM draws d JOIN captures c USING (capture_id) \
         WHERE c.file_name = 'occlusion-zcull-off.rrc' ORDER BY d.draw",
    );
    assert_eq!(zcull, vec![(0,); 6]);
}
