//! `rsxtrace replay --shard K/N` and `--merge` end to end on the basic sample (CPU render):
//! three bands, each PNG transparent outside its rows and its JSON naming the rows and their
//! checksum, merged into a PNG byte for byte the whole replay's; bad shard specs and bad sets
//! of parts (a band twice, a band missing, a PNG that is not a part) are exit status 2 with a
//! message naming the rows or the file.

use crate::cli_support;
use cli_support::*;

use serde_json::Value;
use std::path::Path;
use xxhash_rust::xxh3::xxh3_64;

/// Three bands of the basic sample in `dir`: part-K.png.
fn three_parts(dir: &Path) -> Vec<Value> {
    (1..=3)
        .map(|k| {
            let part = dir.join(format!("part-{k}.png"));
            json_ok(&[
                "replay",
                &sample(),
                "--cpu",
                "--shard",
                &format!("{k}/3"),
                "--out",
                s(&part),
                "--json",
            ])
        })
        .collect()
}

#[test]
fn three_bands_merge_into_the_whole_replay() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole.png");
    let report = json_ok(&["replay", &sample(), "--cpu", "--out", s(&whole), "--json"]);
    assert_eq!(report["band"], Value::Null);
    let reports = three_parts(dir.path());
    let mut next = 0;
    for (i, r) in reports.iter().enumerate() {
        let k = i + 1;
        assert_eq!(r["shard"], format!("{k}/3"));
        let band = &r["band"];
        assert_eq!(band["refused"], Value::Null, "{band}");
        assert!(band["banded_draws"].as_u64().unwrap() > 0);
        // Rows floor((K-1)·256/3) .. floor(K·256/3).
        let rows = [
            band["rows"][0].as_u64().unwrap(),
            band["rows"][1].as_u64().unwrap(),
        ];
        assert_eq!(rows, [(k as u64 - 1) * 256 / 3, k as u64 * 256 / 3]);
        assert_eq!(rows[0], next);
        next = rows[1];
        let png = rsxtrace_testkit::image::read_rgba_png(&dir.path().join(format!("part-{k}.png")));
        assert_eq!((png.width, png.height), (256, 256));
        let row = 256 * 4;
        let (a, b) = (rows[0] as usize * row, rows[1] as usize * row);
        assert!(png.rgba[..a].iter().chain(&png.rgba[b..]).all(|&v| v == 0));
        assert_eq!(
            band["checksum"].as_str().unwrap(),
            format!("{:016x}", xxh3_64(&png.rgba[a..b]))
        );
    }
    assert_eq!(next, 256);
    let merged = dir.path().join("merged.png");
    let parts: Vec<String> = (1..=3)
        .map(|k| s(&dir.path().join(format!("part-{k}.png"))).to_string())
        .collect();
    let mut args = vec!["replay", "--merge"];
    args.extend(parts.iter().rev().map(String::as_str));
    args.extend(["--out", s(&merged), "--json"]);
    let m = json_ok(&args);
    assert_eq!(m["checksum"], report["checksum"]);
    assert_eq!(m["parts"].as_array().unwrap().len(), 3);
    assert_eq!(
        std::fs::read(&merged).unwrap(),
        std::fs::read(&whole).unwrap(),
        "the merged PNG is not the whole replay's, byte for byte"
    );
}

#[test]
fn bad_shard_specs_are_exit_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.png");
    let sample = sample();
    for (spec, message) in [
        ("0/3", "need 1 <= K <= N"),
        ("4/3", "need 1 <= K <= N"),
        ("1/0", "need 1 <= K <= N"),
        ("2", "expected K/N"),
    ] {
        let err = failure(&[
            "replay",
            &sample,
            "--cpu",
            "--shard",
            spec,
            "--out",
            s(&out),
        ]);
        assert!(err.contains(message), "{spec}: {err}");
    }
    assert!(!out.exists());
    // --merge takes no capture.
    let err = failure(&["replay", &sample, "--merge", s(&out), "--out", s(&out)]);
    assert!(err.contains("cannot be used with"), "{err}");
}

#[test]
fn merge_refuses_overlapping_missing_and_foreign_parts() {
    let dir = tempfile::tempdir().unwrap();
    three_parts(dir.path());
    let part = |k: usize| dir.path().join(format!("part-{k}.png"));
    let out = dir.path().join("merged.png");
    let err = failure(&[
        "replay",
        "--merge",
        s(&part(1)),
        s(&part(2)),
        s(&part(2)),
        s(&part(3)),
        "--out",
        s(&out),
    ]);
    assert!(err.contains("rows 85..170 are in both"), "{err}");
    let err = failure(&[
        "replay",
        "--merge",
        s(&part(1)),
        s(&part(3)),
        "--out",
        s(&out),
    ]);
    assert!(err.contains("rows 85..170 are in no part"), "{err}");
    let plain = dir.path().join("plain.png");
    json_ok(&["replay", &sample(), "--cpu", "--out", s(&plain), "--json"]);
    let err = failure(&["replay", "--merge", s(&plain), "--out", s(&out)]);
    assert!(
        err.contains("plain.png") && err.contains("not a band part"),
        "{err}"
    );
    assert!(!out.exists());
}
