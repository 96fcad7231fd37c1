//! A folder of 10,000 files, a few of them bad, is read quickly and in path order whatever
//! the number of threads.

use crate::source_support;

use rsxtrace_program::source::{discover, Origin};
use source_support::{corpus, origin_path, write};
use std::time::{Duration, Instant};

const FILES: usize = 10_000;

#[test]
fn ten_thousand_files_with_a_few_bad_ones() {
    let Some(corpus) = corpus() else { return };
    let fpo = corpus.read("ps3autotests/primitives.fpo");
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut programs = 0;
    let mut bad = 0;
    for i in 0..FILES {
        let rel = format!("d{}/f{i:05}.bin", i % 37);
        let bytes = match i % 1000 {
            7 => {
                bad += 1;
                fpo[..100].to_vec() // truncated container
            }
            0..=49 => {
                programs += 1;
                fpo.clone()
            }
            _ => vec![(i % 251) as u8; 64 + i % 200],
        };
        write(tmp.path(), &rel, &bytes);
    }
    let start = Instant::now();
    let d = discover(&[tmp.path().to_path_buf()]);
    let took = start.elapsed();
    eprintln!("discover over {FILES} files: {took:?}");
    assert_eq!(d.files_read, FILES);
    assert_eq!(d.programs.len(), programs);
    assert_eq!(d.problems.len(), bad);
    let paths: Vec<_> = d.programs.iter().map(|p| origin_path(&p.origin)).collect();
    assert!(
        paths.windows(2).all(|w| w[0] < w[1]),
        "programs in path order"
    );
    assert!(d.problems.windows(2).all(|w| w[0].path < w[1].path));
    assert!(d
        .programs
        .iter()
        .all(|p| matches!(p.origin, Origin::Loose { offset: 0, .. })));
    // A generous bound (the machine is shared); the run itself takes well under a second.
    assert!(took < Duration::from_secs(10), "{took:?}");
}
