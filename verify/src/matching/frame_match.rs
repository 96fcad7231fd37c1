//! Naming a frame's programs from a [`Library`]: every draw's vertex and fragment program by
//! exact content key, and, for the unique programs without an exact match, the nearest library
//! programs of the same stage by fingerprint.
//!
//! Work is proportional to the draws plus the unique unmatched programs times the library
//! size: a draw costs two hash lookups; a unique program is decoded and searched once,
//! whatever the number of draws that use it.

use super::fingerprint::Fingerprint;
use super::library::{Library, LibraryProgram};
use super::report::{
    Candidate, DrawMatch, InlineConstantValue, LibrarySummary, MatchKind, MatchReport,
    MatchSummary, ProgramMatch, StageMatch, FORMAT_VERSION,
};
use super::similarity;
use rsxtrace_capture::frame::draw::DrawProblem;
use rsxtrace_capture::frame::{Draw, Frame};
use rsxtrace_program::container::Stage;
use std::collections::HashMap;
use std::ops::Range;

/// Candidates listed per program by default.
pub const DEFAULT_CANDIDATES: usize = 3;

/// What to match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchOptions {
    /// Draws to match (all when `None`; clamped to the frame).
    pub draws: Option<Range<usize>>,
    /// Nearest candidates listed per program without an exact match.
    pub candidates: usize,
    /// The capture's name, copied into the report.
    pub capture: String,
}

impl Default for MatchOptions {
    fn default() -> Self {
        MatchOptions {
            draws: None,
            candidates: DEFAULT_CANDIDATES,
            capture: String::new(),
        }
    }
}

/// A unique program of the frame, before it is named.
struct Captured<'f> {
    stage: Stage,
    key: u64,
    draws: usize,
    first_draw: usize,
    /// The program as the draw holds it.
    code: Code<'f>,
}

enum Code<'f> {
    Vertex(&'f [u32]),
    Fragment(&'f [u8]),
}

/// Names the programs of `frame`'s draws from `library`.
pub fn match_frame<'f>(frame: &'f Frame, library: &Library, options: &MatchOptions) -> MatchReport {
    let all = 0..frame.draws.len();
    let range = match &options.draws {
        Some(r) => r.start.min(all.end)..r.end.min(all.end),
        None => all,
    };
    let draws = &frame.draws[range];

    // Unique programs, in order of first use.
    let mut unique: Vec<Captured<'f>> = Vec::new();
    let mut index: HashMap<(Stage, u64), usize> = HashMap::new();
    let mut intern = |stage: Stage, key: u64, draw: usize, code: Code<'f>| -> usize {
        *index
            .entry((stage, key))
            .and_modify(|&mut i| unique[i].draws += 1)
            .or_insert_with(|| {
                unique.push(Captured {
                    stage,
                    key,
                    draws: 1,
                    first_draw: draw,
                    code,
                });
                unique.len() - 1
            })
    };
    let mut ids: Vec<(usize, Option<usize>)> = Vec::with_capacity(draws.len());
    for d in draws {
        let v = intern(
            Stage::Vertex,
            d.vp_hash,
            d.index,
            Code::Vertex(d.vertex_program_words()),
        );
        let f = d.fragment_program.as_deref().map(|p| {
            intern(
                Stage::Fragment,
                p.hash,
                d.index,
                Code::Fragment(p.ucode.as_slice()),
            )
        });
        ids.push((v, f));
    }

    let candidates_of = |stage: Stage| -> Vec<(&LibraryProgram, &Fingerprint)> {
        library
            .programs()
            .iter()
            .filter(|p| p.stage == stage)
            .filter_map(|p| p.fingerprint.as_ref().ok().map(|f| (p, f)))
            .collect()
    };
    let vertex_pool = candidates_of(Stage::Vertex);
    let fragment_pool = candidates_of(Stage::Fragment);

    let programs: Vec<ProgramMatch> = unique
        .iter()
        .enumerate()
        .map(|(id, c)| {
            let pool = match c.stage {
                Stage::Vertex => &vertex_pool,
                Stage::Fragment => &fragment_pool,
            };
            name_program(id, c, library, pool, options.candidates)
        })
        .collect();

    let stage_match = |id: usize| {
        let p = &programs[id];
        StageMatch {
            program: id,
            key: p.key.clone(),
            kind: p.kind,
            names: p.shown_names().to_vec(),
            score: p.score(),
        }
    };
    let draw_matches: Vec<DrawMatch> = draws
        .iter()
        .zip(&ids)
        .map(|(d, &(v, f))| DrawMatch {
            draw: d.index,
            vertex: stage_match(v),
            fragment: f.map(stage_match),
            fragment_problem: fragment_problem(d),
            inline_constants: inline_constants(d),
        })
        .collect();

    let count = |kind: MatchKind| programs.iter().filter(|p| p.kind == kind).count();
    let summary = MatchSummary {
        draws: draw_matches.len(),
        programs: programs.len(),
        exact: count(MatchKind::Exact),
        nearest: count(MatchKind::Nearest),
        unmatched: count(MatchKind::Unmatched),
        draws_all_exact: draw_matches
            .iter()
            .filter(|d| {
                d.vertex.kind == MatchKind::Exact
                    && d.fragment
                        .as_ref()
                        .is_some_and(|f| f.kind == MatchKind::Exact)
            })
            .count(),
    };
    MatchReport {
        format_version: FORMAT_VERSION,
        capture: options.capture.clone(),
        library: LibrarySummary {
            files_read: library.files_read,
            vertex_programs: library.count(Stage::Vertex),
            fragment_programs: library.count(Stage::Fragment),
            problems: library.problems.clone(),
        },
        summary,
        programs,
        draws: draw_matches,
    }
}

fn name_program(
    id: usize,
    c: &Captured<'_>,
    library: &Library,
    pool: &[(&LibraryProgram, &Fingerprint)],
    wanted: usize,
) -> ProgramMatch {
    let mut m = ProgramMatch {
        id,
        stage: c.stage,
        key: hex(c.key),
        draws: c.draws,
        first_draw: c.first_draw,
        kind: MatchKind::Exact,
        names: Vec::new(),
        sources: Vec::new(),
        candidates: Vec::new(),
        fingerprint: None,
        note: None,
    };
    if let Some(p) = library.get(c.stage, c.key) {
        m.names = p.names();
        m.sources = p.sources.clone();
        return m;
    }
    let fingerprint = match c.code {
        Code::Vertex(words) => Fingerprint::of_vertex_words(words),
        Code::Fragment(ucode) => Fingerprint::of_fragment_ucode(ucode),
    };
    let fingerprint = match fingerprint {
        Ok(f) => f,
        Err(e) => {
            m.kind = MatchKind::Unmatched;
            m.note = Some(format!("the captured {e}"));
            return m;
        }
    };
    m.candidates = nearest(&fingerprint, pool, wanted);
    if m.candidates.is_empty() {
        m.kind = MatchKind::Unmatched;
        m.note = Some(format!(
            "the library holds no decodable {} program",
            stage_name(c.stage)
        ));
    } else {
        m.kind = MatchKind::Nearest;
    }
    m.fingerprint = Some(fingerprint);
    m
}

/// The `wanted` best-scoring programs of `pool`, best first (ties: library order).
fn nearest(
    fingerprint: &Fingerprint,
    pool: &[(&LibraryProgram, &Fingerprint)],
    wanted: usize,
) -> Vec<Candidate> {
    let mut best: Vec<(f64, usize)> = Vec::with_capacity(wanted + 1);
    for (i, (_, f)) in pool.iter().enumerate() {
        let s = similarity::score(fingerprint, f);
        let at = best.partition_point(|&(b, _)| b >= s);
        if at < wanted {
            best.insert(at, (s, i));
            best.truncate(wanted);
        }
    }
    best.into_iter()
        .map(|(score, i)| {
            let (p, f) = pool[i];
            Candidate {
                key: hex(p.key),
                names: p.names(),
                sources: p.sources.clone(),
                score,
                differences: similarity::differences(fingerprint, f),
            }
        })
        .collect()
}

/// The inline constants of the draw's fragment program, as the capture holds them.
fn inline_constants(d: &Draw) -> Vec<InlineConstantValue> {
    let Some(p) = d.fragment_program.as_deref() else {
        return Vec::new();
    };
    p.constants()
        .map(|(slot, values)| InlineConstantValue { slot, values })
        .collect()
}

fn fragment_problem(d: &Draw) -> Option<String> {
    if d.fragment_program.is_some() {
        return None;
    }
    let listed = d.problems.iter().find_map(|p| match p {
        DrawProblem::FragmentProgram(_) | DrawProblem::FragmentAddress { .. } => {
            Some(p.to_string())
        }
        _ => None,
    });
    Some(listed.unwrap_or_else(|| match d.fp_address {
        None => "no valid SET_SHADER_PROGRAM".to_string(),
        Some(_) => "the fragment program could not be read".to_string(),
    }))
}

fn stage_name(stage: Stage) -> &'static str {
    match stage {
        Stage::Vertex => "vertex",
        Stage::Fragment => "fragment",
    }
}

fn hex(key: u64) -> String {
    format!("{key:016x}")
}
