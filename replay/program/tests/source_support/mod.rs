//! Shared helpers of the `source_*` tests: the corpus programs in the forms RPCS3 stores them
//! (`shared/reference/rpcs3-shader-cache.md` §2), pipeline files written field by field from
//! the reference tables (§3.2, §3.3), and lookups over a `Discovery`.

#![allow(dead_code)] // each test file uses a part

use rsxtrace_program::container::Container;
use rsxtrace_program::source::{discover, Discovery, FoundProgram, Origin};
use rsxtrace_testkit::corpus::Corpus;
use std::path::{Path, PathBuf};

/// The corpus under the loud-absence rule.
pub fn corpus() -> Option<Corpus> {
    rsxtrace_testkit::workspace!().corpus()
}

/// The microcode of a corpus container as stored (`.vpo`: big-endian words; `.fpo`:
/// guest-memory bytes).
pub fn ucode(corpus: &Corpus, rel: &str) -> Vec<u8> {
    Container::parse(&corpus.read(rel))
        .unwrap_or_else(|e| panic!("{rel}: {e}"))
        .ucode()
        .to_vec()
}

/// A `.vp` file's bytes: each big-endian word stored little-endian (§2.1).
pub fn vp_file(be_ucode: &[u8]) -> Vec<u8> {
    be_ucode
        .chunks_exact(4)
        .flat_map(|w| [w[3], w[2], w[1], w[0]])
        .collect()
}

/// The key `discover` gives the corpus file `rel` read loose.
pub fn loose_key(corpus: &Corpus, rel: &str) -> u64 {
    let d = discover(&[corpus.path(rel)]);
    assert_eq!(d.programs.len(), 1, "{rel}: {:?}", d.problems);
    d.programs[0].key
}

/// Writes `bytes` to `dir/rel`, creating folders.
pub fn write(dir: &Path, rel: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(&path, bytes).expect("write");
    path
}

/// Pipeline fields the tests set; the rest stay zero.
#[derive(Debug, Clone, Copy, Default)]
pub struct Pipeline {
    pub vp_hash: u64,
    pub fp_hash: u64,
    pub vp_ctrl0: u32,
    pub vp_output_mask: u32,
    pub base: u32,
    pub entry: u32,
    pub fp_ctrl: u32,
    pub mrt_count: u8,
    /// Bits of the first instruction-mask word.
    pub mask0: u64,
}

fn put(b: &mut [u8], at: usize, v: &[u8]) {
    b[at..at + v.len()].copy_from_slice(v);
}

impl Pipeline {
    /// Layout E (v1.95, §3.2) or D (v1.94, identical but for `fp_mrt_count`), 232 bytes for
    /// OpenGL and 672 for Vulkan.
    pub fn layout_e(&self, vulkan: bool, with_mrt: bool) -> Vec<u8> {
        let mut b = vec![0u8; if vulkan { 672 } else { 232 }];
        put(&mut b, 0, &self.vp_hash.to_le_bytes());
        put(&mut b, 8, &self.fp_hash.to_le_bytes());
        put(&mut b, 24, &self.vp_ctrl0.to_le_bytes());
        put(&mut b, 28, &self.vp_output_mask.to_le_bytes());
        put(&mut b, 40, &self.mask0.to_le_bytes());
        put(&mut b, 112, &self.base.to_le_bytes());
        put(&mut b, 116, &self.entry.to_le_bytes());
        put(&mut b, 120, &[0xFF; 64]); // empty jump table
        put(&mut b, 192, &self.fp_ctrl.to_le_bytes());
        if with_mrt {
            b[216] = self.mrt_count;
        }
        b
    }

    /// Layout A (v1.91, §3.3): OpenGL 216 bytes.
    pub fn layout_a(&self) -> Vec<u8> {
        let mut b = vec![0u8; 216];
        put(&mut b, 0, &self.vp_hash.to_le_bytes());
        put(&mut b, 8, &self.fp_hash.to_le_bytes());
        put(&mut b, 24, &self.vp_output_mask.to_le_bytes());
        put(&mut b, 32, &self.mask0.to_le_bytes());
        put(&mut b, 96, &self.base.to_le_bytes());
        put(&mut b, 100, &self.entry.to_le_bytes());
        put(&mut b, 104, &[0xFF; 64]);
        put(&mut b, 168, &self.fp_ctrl.to_le_bytes());
        b
    }
}

/// The programs whose origin path ends with `suffix`.
pub fn from<'a>(d: &'a Discovery, suffix: &str) -> Vec<&'a FoundProgram> {
    d.programs
        .iter()
        .filter(|p| origin_path(&p.origin).ends_with(suffix))
        .collect()
}

/// The path of an origin.
pub fn origin_path(o: &Origin) -> &Path {
    match o {
        Origin::Loose { path, .. }
        | Origin::Rpcs3Cache { path, .. }
        | Origin::Executable { path, .. } => path,
    }
}

/// The problems about files whose path ends with `suffix`, as reasons.
pub fn problems_of(d: &Discovery, suffix: &str) -> Vec<String> {
    d.problems
        .iter()
        .filter(|p| p.path.ends_with(suffix))
        .map(|p| p.reason.clone())
        .collect()
}
