//! Tile and Z-cull regions as a game binds them, in a capture laid out as RPCS3 writes it:
//! the game sample with its tile states replaced by one that tiles its colour buffer
//! (C32_2X2) and its depth buffer (Z32_SEPSTENCIL_REGULAR) and binds a Z-cull region to the
//! depth buffer, as games do with `cellGcmSetTileInfo` and `cellGcmBindZcull`. `info`,
//! `targets`, `dump`, `index` and the report name the regions; a tile state id the capture's map lacks is a frame problem that
//! stops nothing.

use crate::cli_support;
use cli_support::*;
use rsxtrace_capture::rrc::{self, Capture, Location, TileInfo, TileRegion, ZcullRegion};

/// The game sample's colour buffer (local 0, 1280x720 A8R8G8B8) and depth buffer (local
/// 0x384000, Z24S8), as `rsxtrace targets` lists them.
const COLOR: u32 = 0;
const DEPTH: u32 = 0x38_4000;

fn tiled_game() -> Capture {
    let mut capture =
        rrc::read_file(&rsxtrace_testkit::workspace!().sample("game.rrc.gz")).expect("sample");
    let tile = |offset, size, pitch, compression, base_tag| TileRegion {
        location: Location::Local,
        offset,
        size,
        pitch,
        compression,
        base_tag,
        bank: 0,
    };
    assert!(!capture.tiles.is_empty(), "the sample carries tile states");
    for entry in &mut capture.tiles {
        let state = &mut entry.value;
        for t in &mut state.tiles {
            // Unbound, as RPCS3 writes an unbound tile.
            *t = TileInfo {
                tile: 1,
                ..TileInfo::default()
            };
        }
        // Tile regions start on 64 KiB: the depth buffer's lies from 0x380000.
        state.tiles[0] = tile(COLOR, 0x38_0000, 5120, 8, 0).pack();
        state.tiles[1] = tile(0x38_0000, 0x39_0000, 5120, 10, 0x100).pack();
        state.zculls[2] = ZcullRegion {
            offset: DEPTH,
            width: 1280,
            height: 768,
            cull_start: 0,
            depth_format: 2,
            antialias: 0,
            direction: 0,
            format: 1,
            stencil_func: 0,
            stencil_ref: 0,
            stencil_mask: 0,
        }
        .pack();
    }
    capture
}

#[test]
fn the_regions_a_game_binds_are_named_by_every_command_that_shows_surfaces() {
    let dir = tempfile::tempdir().unwrap();
    let path = scene_file(dir.path(), "tiled.rrc.gz", &tiled_game());
    let targets = json_ok(&["targets", s(&path), "--json"]);
    let targets = targets.as_array().unwrap();
    let colour = targets.iter().find(|t| t["address"] == COLOR).unwrap();
    assert_eq!(colour["tile"]["index"], 0);
    assert_eq!(colour["tile"]["compression_name"], "C32_2X2");
    assert!(colour["zcull"].is_null());
    let depth = targets.iter().find(|t| t["address"] == DEPTH).unwrap();
    assert_eq!(depth["tile"]["index"], 1);
    assert_eq!(depth["tile"]["compression_name"], "Z32_SEPSTENCIL_REGULAR");
    assert_eq!(depth["zcull"], 2);

    let text = rsxtrace(&["targets", s(&path)]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("0 C32_2X2"), "{text}");
    assert!(text.contains("Z-cull region 2"), "{text}");

    let dump = json_ok(&["dump", s(&path), "--draw", "0", "--json"]);
    let regions = &dump["regions"];
    assert_eq!(regions["tiles"].as_array().unwrap().len(), 2);
    assert_eq!(regions["tiles"][1]["offset"], 0x38_0000);
    assert_eq!(regions["tiles"][1]["size"], 0x39_0000);
    assert_eq!(regions["zculls"][0]["index"], 2);
    assert_eq!(regions["zculls"][0]["width"], 1280);
    assert_eq!(regions["surface"]["color"][0], 0);
    assert_eq!(regions["surface"]["depth"], 1);
    assert_eq!(regions["surface"]["zcull"], 2);
    let text = rsxtrace(&["dump", s(&path), "--draw", "0"]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains(
            "tile regions: colour A in tile 0 (C32_2X2), depth in tile 1 \
             (Z32_SEPSTENCIL_REGULAR), Z-cull region 2"
        ),
        "{text}"
    );

    // The index: each draw's tile regions and their compression, a query away.
    let db = dir.path().join("regions.sqlite");
    let out = rsxtrace(&["index", s(&path), "--db", s(&db), "--quiet"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let conn = rusqlite::Connection::open(&db).unwrap();
    let (draws, tiled): (i64, i64) = conn
        .query_row(
            "SELECT count(*), count(*) FILTER (WHERE color_a_compression = 'C32_2X2' \
             AND zeta_compression = 'Z32_SEPSTENCIL_REGULAR' AND color_a_tile = 0 \
             AND zeta_tile = 1 AND zcull_region = 2) FROM draws",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((draws, tiled), (2400, 2400));

    // `info` lists every region the capture binds, the same from the converted trace
    // (answered from its frame index, with the tile map read alone).
    let info = json_ok(&["info", s(&path), "--json"]);
    let regions = &info["regions"];
    assert_eq!(regions["tiles"].as_array().unwrap().len(), 2);
    assert_eq!(regions["tiles"][0]["compression"], 8);
    assert_eq!(regions["zculls"][0]["offset"], DEPTH);
    let trace = dir.path().join("tiled.rsxt");
    let out = rsxtrace(&["convert", s(&path), s(&trace), "--to", "trace"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(json_ok(&["info", s(&trace), "--json"])["regions"], *regions);
    let text = String::from_utf8(rsxtrace(&["info", s(&trace)]).stdout).unwrap();
    for fact in [
        "0: local+0x0, 0x380000 bytes, pitch 5120, C32_2X2; 1: local+0x380000, 0x390000 \
         bytes, pitch 5120, Z32_SEPSTENCIL_REGULAR",
        "2: local+0x384000, 1280x768, cull start 0x0",
    ] {
        assert!(text.contains(fact), "{fact}\n{text}");
    }

    // The report lists them on its index page (as `info`) and, per draw, under the output
    // merger.
    let site = dir.path().join("site");
    let out = rsxtrace(&[
        "report",
        s(&path),
        "--html",
        s(&site),
        "--draws",
        "0..1",
        "--cpu",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pages: String = walk(&site)
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    for fact in [
        "0: local+0x0, 0x380000 bytes, pitch 5120, C32_2X2; 1: local+0x380000, 0x390000 \
         bytes, pitch 5120, Z32_SEPSTENCIL_REGULAR",
        "tile 0: local+0x0, 0x380000 bytes, pitch 5120, C32_2X2",
        "tile 1: local+0x380000, 0x390000 bytes, pitch 5120, Z32_SEPSTENCIL_REGULAR",
        "Z-cull region 2: local+0x384000, 1280x768, cull start 0x0",
    ] {
        assert!(pages.contains(fact), "{fact}");
    }

    // A capture trimmed to a later draw keeps the regions bound there.
    let cut = dir.path().join("cut.rrc.gz");
    let out = rsxtrace(&["trim", s(&path), "--draws", "100..101", "--out", s(&cut)]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dump = json_ok(&["dump", s(&cut), "--draw", "0", "--json"]);
    let before = json_ok(&["dump", s(&path), "--draw", "100", "--json"]);
    assert_eq!(dump["regions"]["surface"]["depth"], 1);
    assert_eq!(dump["regions"], before["regions"]);

    // The sample as bundled binds no region: nothing named, no line.
    let game = rsxtrace_testkit::workspace!().sample("game.rrc.gz");
    let dump = json_ok(&["dump", s(&game), "--draw", "0", "--json"]);
    assert_eq!(dump["regions"]["tiles"].as_array().unwrap().len(), 0);
    let text = String::from_utf8(rsxtrace(&["info", s(&game)]).stdout).unwrap();
    assert!(text.contains("tile regions       none bound"), "{text}");
    assert!(dump["regions"]["surface"]["zcull"].is_null());
}

#[test]
fn an_unknown_tile_state_is_a_frame_problem_that_stops_nothing() {
    let mut capture = tiled_game();
    // The last draw's END names a tile state the map lacks: the regions stay as they were.
    let last_end = capture
        .commands
        .iter()
        .rposition(|c| c.tile_state != 0)
        .unwrap();
    capture.commands[last_end].tile_state = 0xDEAD;
    let dir = tempfile::tempdir().unwrap();
    let path = scene_file(dir.path(), "unknown.rrc.gz", &capture);
    assert_eq!(
        frame_problems(s(&path)),
        [format!(
            "command {last_end}: tile state id 0xdead is not in the tile map; the regions stay \
             as they were"
        )]
    );
    let targets = json_ok(&["targets", s(&path), "--json"]);
    assert_eq!(targets[0]["tile"]["index"], 0);
}

/// A tile region over local 0x1040000..0x1050000, where the game sample keeps two of its
/// textures (an A8R8G8B8 one from 0x1041f80, first used by draw 68, and a DXT5 one ending
/// at 0x1041f00, first used by draw 212), bound
/// at every command beside the colour and depth buffers' regions.
fn textures_tiled() -> Capture {
    let mut capture = tiled_game();
    for entry in &mut capture.tiles {
        entry.value.tiles[2] = TileRegion {
            location: Location::Local,
            offset: 0x104_0000,
            size: 0x1_0000,
            pitch: 1024,
            compression: 0,
            base_tag: 0,
            bank: 0,
        }
        .pack();
    }
    capture
}

#[test]
fn captured_bytes_read_in_a_tile_region_are_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let path = scene_file(dir.path(), "textures.rrc.gz", &textures_tiled());
    // The dump names the region of the two textures it reads there, and no other.
    let out = dir.path().join("dump");
    std::fs::create_dir(&out).unwrap();
    let index = json_ok(&["textures", s(&path), "--dump", s(&out), "--json"]);
    let tiled: Vec<(u64, u64)> = (index["textures"].as_array().unwrap().iter())
        .filter(|t| !t["tile_region"].is_null())
        .map(|t| {
            (
                t["offset"].as_u64().unwrap(),
                t["tile_region"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(tiled, [(0x104_1f80, 2), (0x103_df00, 2)]);
    let text = rsxtrace(&["textures", s(&path), "--dump", s(&out)]);
    // Warnings go to standard error.
    let text = String::from_utf8(text.stderr).unwrap();
    let warned = text
        .lines()
        .filter(|l| l.contains("lies in tile region 2"))
        .count();
    assert_eq!(warned, 2, "{text}");
    // `dump` names the reads of a draw: draw 68 is the first to sample the A8R8G8B8
    // texture; draw 0 reads nothing captured in a region.
    let dump = json_ok(&["dump", s(&path), "--draw", "68", "--json"]);
    let reads = dump["regions"]["captured_reads"].as_array().unwrap();
    assert_eq!(reads.len(), 1, "{reads:?}");
    assert!(reads[0]["use"]
        .as_str()
        .unwrap()
        .starts_with("texture unit "));
    assert_eq!(reads[0]["tile"], 2);
    assert!(reads[0]["bytes"].as_u64().unwrap() > 0);
    let dump = json_ok(&["dump", s(&path), "--draw", "0", "--json"]);
    assert_eq!(dump["regions"]["captured_reads"], serde_json::json!([]));
    let text = String::from_utf8(rsxtrace(&["dump", s(&path), "--draw", "68"]).stdout).unwrap();
    assert!(
        text.contains("captured bytes in tile region 2 linearly"),
        "{text}"
    );
    // The render warns once per texture unit reading there, naming the region; the colour
    // buffer's region (0) is cleared before it is drawn into, so it is not named.
    let png = dir.path().join("frame.png");
    let replay = json_ok(&["replay", s(&path), "--cpu", "--out", s(&png), "--json"]);
    let warnings: Vec<&str> = (replay["warnings"].as_array().unwrap().iter())
        .filter_map(|w| w["message"].as_str())
        .filter(|m| m.contains("tile region"))
        .collect();
    assert!(!warnings.is_empty());
    for w in &warnings {
        assert!(w.starts_with("texture unit "), "{w}");
        assert!(
            w.contains("tile region 2 (local+0x1040000, 0x10000 bytes"),
            "{w}"
        );
    }
}

/// Every file under `dir`.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}
