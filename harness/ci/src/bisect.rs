//! Bisect to the draw: given the output target after each draw on two paths (the CPU reference
//! render as expected, the GPU render as actual), the first draw after which the images differ
//! beyond the tolerance, and the draws that made the difference grow.

use super::image_diff::{compare, DiffStats};
use super::manifest::Tolerance;
use rsxtrace_replay::render::DrawSnapshot;
use serde::Serialize;
use std::collections::BTreeMap;

/// Most draws listed in [`BisectReport::introducing_draws`].
pub const MAX_LISTED: usize = 50;

/// What a bisection found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BisectStatus {
    /// A draw after which the images depart.
    Found,
    /// Every draw agrees within tolerance.
    NotFound,
    /// Bisection could not run (the reason says why).
    Unavailable,
}

/// The result of a bisection.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BisectReport {
    pub status: BisectStatus,
    /// One line for people.
    pub reason: String,
    /// First draw whose snapshot departs beyond tolerance.
    pub first_draw: Option<usize>,
    /// The comparison at that draw.
    pub first_draw_diff: Option<DiffStats>,
    /// Draws after which the pixels over the threshold grew (the first departing draw first),
    /// at most [`MAX_LISTED`].
    pub introducing_draws: Vec<usize>,
    /// Draws with a snapshot on both paths.
    pub compared_draws: usize,
    /// Draws with a snapshot on one path only (a draw one renderer skipped).
    pub unpaired_draws: Vec<usize>,
    /// The `rsxtrace` commands that look closer at the first departing draw, each with what
    /// it shows ([`BisectReport::look_closer`]); empty when no draw departs.
    pub commands: Vec<Command>,
}

/// An `rsxtrace` command line and what it shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Command {
    /// The command line, e.g. `rsxtrace verify traces/game.rrc.gz --explain 89`.
    pub line: String,
    /// What it shows, one line.
    pub shows: String,
}

impl BisectReport {
    /// A bisection that could not run.
    pub fn unavailable(reason: impl Into<String>) -> BisectReport {
        BisectReport {
            status: BisectStatus::Unavailable,
            reason: reason.into(),
            first_draw: None,
            first_draw_diff: None,
            introducing_draws: Vec::new(),
            compared_draws: 0,
            unpaired_draws: Vec::new(),
            commands: Vec::new(),
        }
    }

    /// Fill [`BisectReport::commands`] for a departure found in trace `name` (capture `file`,
    /// rendered from draw `start`): the departing draw's shaders checked on the device against
    /// the interpreter (`verify`, then `verify --explain` down to the instruction), what reached
    /// the first pixel over the threshold on the reference render (`history`, from `start` as
    /// the bisection rendered it), and the trace cut to the draws up to the departure (`trim`,
    /// for a bug report or a manifest entry of its own).
    pub fn look_closer(&mut self, name: &str, file: &str, start: usize) {
        self.commands.clear();
        let (BisectStatus::Found, Some(draw)) = (self.status, self.first_draw) else {
            return;
        };
        let file = shell_word(file);
        let end = draw + 1;
        let mut add = |line: String, shows: &str| {
            self.commands.push(Command {
                line,
                shows: shows.to_string(),
            })
        };
        add(
            format!("rsxtrace verify {file} --draws {draw}"),
            "the draw's shaders recompiled on the device against the interpreter, per vertex \
             and per pixel",
        );
        add(
            format!("rsxtrace verify {file} --explain {draw}"),
            "the first instruction where the device parts from the interpreter",
        );
        if let Some([x, y]) = self.first_draw_diff.as_ref().and_then(|d| d.first_over) {
            add(
                format!("rsxtrace history {file} --pixel {x},{y} --draws {start}..{end}"),
                "every clear, transfer and fragment that reached the first pixel over the \
                 threshold, on the CPU reference render",
            );
        }
        add(
            format!(
                "rsxtrace trim {file} --draws {start}..{end} --out {}",
                shell_word(&format!("{name}-draw-{draw}.rrc.gz"))
            ),
            "the trace cut to the draws up to the departure, for a bug report",
        );
    }
}

/// `word` quoted for a POSIX shell when it holds anything but plain path characters.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:=@%".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// Compare the snapshots of `actual` with those of `expected`, draw by draw (matched by draw
/// index; a draw one side lacks is listed as unpaired and not compared).
pub fn bisect(
    expected: &[DrawSnapshot],
    actual: &[DrawSnapshot],
    tolerance: &Tolerance,
    expected_name: &str,
    actual_name: &str,
) -> BisectReport {
    let expected_by_draw: BTreeMap<usize, &DrawSnapshot> =
        expected.iter().map(|s| (s.draw, s)).collect();
    let actual_by_draw: BTreeMap<usize, &DrawSnapshot> =
        actual.iter().map(|s| (s.draw, s)).collect();
    let unpaired: Vec<usize> = expected_by_draw
        .keys()
        .filter(|d| !actual_by_draw.contains_key(d))
        .chain(
            actual_by_draw
                .keys()
                .filter(|d| !expected_by_draw.contains_key(d)),
        )
        .copied()
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut report = BisectReport {
        status: BisectStatus::NotFound,
        reason: String::new(),
        first_draw: None,
        first_draw_diff: None,
        introducing_draws: Vec::new(),
        compared_draws: 0,
        unpaired_draws: unpaired,
        commands: Vec::new(),
    };
    let mut previous_over = 0u64;
    for (draw, e) in &expected_by_draw {
        let Some(a) = actual_by_draw.get(draw) else {
            continue;
        };
        report.compared_draws += 1;
        let stats = match compare(&a.image, &e.image, tolerance.threshold) {
            Ok(stats) => stats,
            Err(err) => {
                if report.first_draw.is_none() {
                    report.first_draw = Some(*draw);
                    report.reason = format!(
                        "after draw {draw} the {actual_name} and {expected_name} targets \
                         cannot be compared: {err}"
                    );
                }
                if report.introducing_draws.len() < MAX_LISTED {
                    report.introducing_draws.push(*draw);
                }
                continue;
            }
        };
        let departs = !stats.within(tolerance);
        if departs && report.first_draw.is_none() {
            report.first_draw = Some(*draw);
            report.reason = format!(
                "the {actual_name} render departs from the {expected_name} render after draw \
                 {draw}: {}",
                stats.summary()
            );
            report.first_draw_diff = Some(stats.clone());
        }
        if report.first_draw.is_some()
            && stats.pixels_over > previous_over
            && report.introducing_draws.len() < MAX_LISTED
            && report.introducing_draws.last() != Some(draw)
        {
            report.introducing_draws.push(*draw);
        }
        previous_over = stats.pixels_over;
    }
    if report.first_draw.is_some() {
        report.status = BisectStatus::Found;
    } else if report.compared_draws == 0 {
        report.status = BisectStatus::Unavailable;
        report.reason =
            format!("no draw has a snapshot on both the {expected_name} and {actual_name} paths");
    } else {
        report.reason = format!(
            "the {actual_name} and {expected_name} renders agree within tolerance after each of \
             {} draws; the difference is in what the reference holds (outdated reference? \
             rerun with --update after checking)",
            report.compared_draws
        );
    }
    report
}

/// Bisect by prefixes when keeping a snapshot per draw would take too much memory:
/// `departs(k)` renders draws `start..k` on both paths and says whether the outputs differ
/// beyond tolerance (with the comparison). Assumes that once the renders depart they stay apart
/// (a later draw rarely repairs a difference). Costs about 2 log2(n) renders per path.
pub fn bisect_by_prefix<E>(
    draws: std::ops::Range<usize>,
    mut departs: impl FnMut(usize) -> Result<Option<DiffStats>, E>,
    expected_name: &str,
    actual_name: &str,
) -> Result<BisectReport, E> {
    let mut report = BisectReport::unavailable(String::new());
    if draws.is_empty() {
        report.reason = "no draw to bisect".into();
        return Ok(report);
    }
    let Some(last) = departs(draws.end)? else {
        report.status = BisectStatus::NotFound;
        report.compared_draws = draws.len();
        report.reason = format!(
            "the {actual_name} and {expected_name} renders agree within tolerance after the last \
             draw; the difference is in what the reference holds (outdated reference? rerun with \
             --update after checking)"
        );
        return Ok(report);
    };
    // Invariant: the prefix ending at `agree` agrees (the empty prefix does), the one ending
    // at `apart` departs.
    let (mut agree, mut apart, mut apart_stats) = (draws.start, draws.end, last);
    let mut probes = 1usize;
    while apart - agree > 1 {
        let mid = agree + (apart - agree) / 2;
        probes += 1;
        match departs(mid)? {
            Some(stats) => {
                apart = mid;
                apart_stats = stats;
            }
            None => agree = mid,
        }
    }
    let draw = apart - 1;
    report.status = BisectStatus::Found;
    report.first_draw = Some(draw);
    report.reason = format!(
        "the {actual_name} render departs from the {expected_name} render after draw {draw} \
         (found by {probes} prefix renders): {}",
        apart_stats.summary()
    );
    report.first_draw_diff = Some(apart_stats);
    report.introducing_draws = vec![draw];
    report.compared_draws = probes;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_replay::render::Rgba8Image;

    /// A 4x1 image whose first `lit` pixels are white (the rest black).
    fn snapshot(draw: usize, lit: usize) -> DrawSnapshot {
        let pixels = (0..4)
            .flat_map(|i| if i < lit { [255u8; 4] } else { [0, 0, 0, 255] })
            .collect();
        DrawSnapshot {
            draw,
            image: Rgba8Image {
                width: 4,
                height: 1,
                pixels,
            },
        }
    }

    fn exact() -> Tolerance {
        Tolerance {
            threshold: 0,
            max_pixels_over: 0,
            max_mean_error: 255.0,
        }
    }

    #[test]
    fn finds_the_first_departing_draw_and_the_growth() {
        // Expected: draws light 1, 2, 3, 4 pixels. Actual: agrees after draws 0 and 1, then
        // stays at 2 lit pixels: 1 pixel over after draw 2, 2 over after draw 3.
        let expected: Vec<_> = (0..4).map(|d| snapshot(d, d + 1)).collect();
        let actual = vec![
            snapshot(0, 1),
            snapshot(1, 2),
            snapshot(2, 2),
            snapshot(3, 2),
        ];
        let r = bisect(&expected, &actual, &exact(), "cpu", "gpu");
        assert_eq!(r.status, BisectStatus::Found);
        assert_eq!(r.first_draw, Some(2));
        assert_eq!(r.first_draw_diff.as_ref().unwrap().pixels_over, 1);
        assert_eq!(r.first_draw_diff.as_ref().unwrap().first_over, Some([2, 0]));
        assert_eq!(r.introducing_draws, [2, 3]);
        assert_eq!(r.compared_draws, 4);
        assert!(r.unpaired_draws.is_empty());
        assert!(r.reason.contains("after draw 2"), "{}", r.reason);
    }

    #[test]
    fn a_departure_names_the_commands_that_look_closer() {
        let expected: Vec<_> = (10..14).map(|d| snapshot(d, d - 9)).collect();
        let actual: Vec<_> = (10..14).map(|d| snapshot(d, 2.min(d - 9))).collect();
        let mut r = bisect(&expected, &actual, &exact(), "cpu", "gpu");
        assert_eq!(r.first_draw, Some(12));
        r.look_closer("game", "traces/samples/game.rrc.gz", 10);
        let lines: Vec<&str> = r.commands.iter().map(|c| c.line.as_str()).collect();
        assert_eq!(
            lines,
            [
                "rsxtrace verify traces/samples/game.rrc.gz --draws 12",
                "rsxtrace verify traces/samples/game.rrc.gz --explain 12",
                "rsxtrace history traces/samples/game.rrc.gz --pixel 2,0 --draws 10..13",
                "rsxtrace trim traces/samples/game.rrc.gz --draws 10..13 --out game-draw-12.rrc.gz",
            ]
        );
        assert!(r.commands.iter().all(|c| !c.shows.is_empty()));
        // A path a shell would split is quoted.
        r.look_closer("it's", "my traces/a.rrc", 10);
        assert_eq!(
            r.commands[0].line,
            "rsxtrace verify 'my traces/a.rrc' --draws 12"
        );
        assert!(r.commands[3]
            .line
            .ends_with("--out 'it'\\''s-draw-12.rrc.gz'"));
        // Nothing departs: nothing to look at.
        let mut same = bisect(&expected, &expected, &exact(), "cpu", "gpu");
        same.look_closer("game", "game.rrc.gz", 0);
        assert!(same.commands.is_empty());
        let mut none = BisectReport::unavailable("no GPU");
        none.look_closer("game", "game.rrc.gz", 0);
        assert!(none.commands.is_empty());
    }

    #[test]
    fn tolerance_is_applied_per_draw() {
        let expected: Vec<_> = (0..3).map(|d| snapshot(d, d + 1)).collect();
        let actual = vec![snapshot(0, 1), snapshot(1, 1), snapshot(2, 2)];
        let loose = Tolerance {
            max_pixels_over: 1,
            ..exact()
        };
        // One pixel over after draws 1 and 2: within a one-pixel allowance.
        let r = bisect(&expected, &actual, &loose, "cpu", "gpu");
        assert_eq!(r.status, BisectStatus::NotFound);
        assert_eq!(r.first_draw, None);
        assert!(r.introducing_draws.is_empty());
        let r = bisect(&expected, &actual, &exact(), "cpu", "gpu");
        assert_eq!(r.first_draw, Some(1));
        // The count stays 1 at draw 2: only draw 1 introduced it.
        assert_eq!(r.introducing_draws, [1]);
    }

    #[test]
    fn unpaired_and_missing_snapshots() {
        let expected = vec![snapshot(0, 1), snapshot(1, 2), snapshot(2, 3)];
        // The GPU skipped draw 1 (no snapshot) and still matches after draw 2.
        let actual = vec![snapshot(0, 1), snapshot(2, 3), snapshot(5, 0)];
        let r = bisect(&expected, &actual, &exact(), "cpu", "gpu");
        assert_eq!(r.status, BisectStatus::NotFound);
        assert_eq!(r.unpaired_draws, [1, 5]);
        assert_eq!(r.compared_draws, 2);
        let r = bisect(&[], &actual, &exact(), "cpu", "gpu");
        assert_eq!(r.status, BisectStatus::Unavailable);
    }

    #[test]
    fn size_change_is_a_departure() {
        let expected = vec![snapshot(0, 1)];
        let mut other = snapshot(0, 1);
        other.image.width = 2;
        other.image.pixels.truncate(8);
        let r = bisect(&expected, &[other], &exact(), "cpu", "gpu");
        assert_eq!(r.status, BisectStatus::Found);
        assert_eq!(r.first_draw, Some(0));
        assert!(r.reason.contains("cannot be compared"), "{}", r.reason);
    }

    #[test]
    fn prefix_bisection_finds_the_first_departing_draw() {
        let stats = |over: u64| DiffStats {
            width: 1,
            height: 1,
            max_difference: 9,
            pixels_over: over,
            pixels_different: over,
            mean_error: 1.0,
            threshold: 0,
            first_over: None,
        };
        for first in 3..20usize {
            let mut asked = Vec::new();
            let r = bisect_by_prefix(
                3..20,
                |k| {
                    asked.push(k);
                    // Draws start..k rendered: departs once draw `first` is in.
                    Ok::<_, ()>((k > first).then(|| stats(1)))
                },
                "cpu",
                "gpu",
            )
            .unwrap();
            assert_eq!(r.status, BisectStatus::Found);
            assert_eq!(r.first_draw, Some(first), "asked {asked:?}");
            assert!(asked.len() <= 6, "{asked:?}");
        }
        let r = bisect_by_prefix(0..5, |_| Ok::<_, ()>(None), "cpu", "gpu").unwrap();
        assert_eq!(r.status, BisectStatus::NotFound);
        let r = bisect_by_prefix(5..5, |_| Ok::<_, ()>(None), "cpu", "gpu").unwrap();
        assert_eq!(r.status, BisectStatus::Unavailable);
        let e = bisect_by_prefix(0..5, |_| Err::<Option<DiffStats>, _>("boom"), "cpu", "gpu");
        assert_eq!(e, Err("boom"));
    }
}
