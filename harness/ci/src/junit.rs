//! JUnit XML of a CI run (what GitLab, Jenkins and GitHub test reporters read): one
//! `<testcase>` per trace; fail and new-without-`--update` are `<failure>`, error is `<error>`,
//! skip is `<skipped>`; the details (every path's numbers and reasons, the bisection) are the
//! element's text.

use super::report::{Outcome, Report, TraceResult};
use std::fmt::Write;

/// Escape text for XML 1.0 content and attributes; characters XML 1.0 forbids are dropped.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

/// Every line about a trace: per path status, numbers and reasons; divergence; bisection.
pub fn details(trace: &TraceResult) -> String {
    let mut text = String::new();
    for reason in &trace.reasons {
        let _ = writeln!(text, "{reason}");
    }
    for p in &trace.paths {
        let _ = write!(
            text,
            "{} ({}): {}",
            p.path.name(),
            p.backend,
            p.status.name()
        );
        if let Some(d) = &p.diff {
            let _ = write!(text, "; {}", d.summary());
        }
        if let Some(c) = &p.checksum {
            let _ = write!(text, "; checksum {c}");
        }
        text.push('\n');
        for r in &p.reasons {
            let _ = writeln!(text, "  {r}");
        }
    }
    if let Some(d) = &trace.divergence {
        let _ = writeln!(text, "divergence: {}: {}", d.status.name(), d.message);
    }
    if let Some(b) = &trace.bisect {
        let _ = writeln!(text, "bisect: {}", b.reason);
        if !b.introducing_draws.is_empty() {
            let list: Vec<String> = b.introducing_draws.iter().map(|d| d.to_string()).collect();
            let _ = writeln!(text, "draws that grew the difference: {}", list.join(", "));
        }
        if !b.commands.is_empty() {
            let _ = writeln!(text, "look closer:");
            for c in &b.commands {
                let _ = writeln!(text, "  {}    # {}", c.line, c.shows);
            }
        }
    }
    if trace.updated {
        let _ = writeln!(text, "reference written: {}", trace.reference);
    }
    text
}

/// First line of [`details`] worth a `message` attribute.
fn headline(trace: &TraceResult) -> String {
    let from_paths = trace
        .paths
        .iter()
        .filter(|p| p.status == trace.status)
        .flat_map(|p| {
            p.reasons
                .iter()
                .map(move |r| format!("{}: {r}", p.path.name()))
        })
        .next();
    trace
        .reasons
        .first()
        .cloned()
        .or(from_paths)
        .or_else(|| trace.divergence.as_ref().map(|d| d.message.clone()))
        .unwrap_or_else(|| trace.status.name().to_string())
}

fn seconds(trace: &TraceResult) -> f64 {
    // A fold from +0.0: `sum` of no f64 is -0.0, printed "-0.000".
    trace.paths.iter().fold(0.0, |total, p| total + p.seconds)
}

/// The JUnit XML document of `report`.
pub fn write(report: &Report) -> String {
    let failures = report.traces.iter().filter(|t| t.is_failure()).count();
    let errors = report
        .traces
        .iter()
        .filter(|t| t.status == Outcome::Error)
        .count();
    let skipped = report
        .traces
        .iter()
        .filter(|t| t.status == Outcome::Skip)
        .count();
    let time = report
        .traces
        .iter()
        .fold(0.0, |total, t| total + seconds(t));
    let suite = escape(&report.manifest);
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let counts = format!(
        "tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" \
         time=\"{time:.3}\"",
        report.traces.len()
    );
    let _ = writeln!(xml, "<testsuites name=\"rsxtrace ci\" {counts}>");
    let _ = writeln!(xml, "  <testsuite name=\"{suite}\" {counts}>");
    for trace in &report.traces {
        let _ = write!(
            xml,
            "    <testcase classname=\"rsxtrace.ci\" name=\"{}\" file=\"{}\" time=\"{:.3}\"",
            escape(&trace.name),
            escape(&trace.file),
            seconds(trace)
        );
        let body = escape(&details(trace));
        let message = escape(&headline(trace));
        let element = if trace.status == Outcome::Error {
            Some("error")
        } else if trace.is_failure() {
            Some("failure")
        } else if trace.status == Outcome::Skip {
            Some("skipped")
        } else {
            None
        };
        match element {
            Some(tag) => {
                let _ = writeln!(
                    xml,
                    ">\n      <{tag} message=\"{message}\" type=\"{}\">{body}</{tag}>\n    </testcase>",
                    trace.status.name()
                );
            }
            None if body.is_empty() => xml.push_str("/>\n"),
            None => {
                let _ = writeln!(
                    xml,
                    ">\n      <system-out>{body}</system-out>\n    </testcase>"
                );
            }
        }
    }
    xml.push_str("  </testsuite>\n</testsuites>\n");
    xml
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::{report, trace};
    use crate::report::{PathResult, RenderPath};

    #[test]
    fn details_end_with_the_commands_that_look_closer() {
        let mut t = trace("game", Outcome::Fail, false);
        let mut b = crate::bisect::BisectReport::unavailable("x");
        b.status = crate::bisect::BisectStatus::Found;
        b.reason = "the gpu render departs from the cpu render after draw 89".into();
        b.first_draw = Some(89);
        b.look_closer("game", "traces/samples/game.rrc.gz", 0);
        t.bisect = Some(b);
        let text = details(&t);
        let closer = text
            .split_once("look closer:\n")
            .expect("a look closer section")
            .1;
        assert!(
            closer.starts_with("  rsxtrace verify traces/samples/game.rrc.gz --draws 89    # "),
            "{text}"
        );
        assert!(closer.contains(
            "rsxtrace trim traces/samples/game.rrc.gz --draws 0..90 --out game-draw-89.rrc.gz"
        ));
    }

    #[test]
    fn escaping() {
        assert_eq!(
            escape("a<b>&\"c'\u{1}\td"),
            "a&lt;b&gt;&amp;&quot;c&apos;\td"
        );
    }

    #[test]
    fn document_counts_and_elements() {
        let mut fail = trace("fails & <breaks>", Outcome::Fail, false);
        fail.paths = vec![PathResult::without_render(
            RenderPath::Cpu,
            "cpu",
            Outcome::Fail,
            "12 pixels over 8".into(),
        )];
        let mut skip = trace("skipped", Outcome::Skip, false);
        skip.reasons = vec!["waiting for issue 3".into()];
        let r = report(vec![
            trace("ok", Outcome::Pass, false),
            fail,
            skip,
            trace("broken", Outcome::Error, false),
            trace("fresh", Outcome::New, false),
            trace("written", Outcome::New, true),
        ]);
        let xml = write(&r);
        assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"));
        assert!(xml.contains(
            "<testsuites name=\"rsxtrace ci\" tests=\"6\" failures=\"2\" errors=\"1\" skipped=\"1\""
        ));
        assert!(xml.contains(
            "<testcase classname=\"rsxtrace.ci\" name=\"ok\" file=\"ok.rrc\" time=\"0.000\"/>"
        ));
        assert!(xml.contains("name=\"fails &amp; &lt;breaks&gt;\""));
        assert!(xml.contains("<failure message=\"cpu: 12 pixels over 8\" type=\"fail\">"));
        assert!(xml.contains("<skipped message=\"waiting for issue 3\" type=\"skip\">"));
        assert!(xml.contains("<error message=\"error\" type=\"error\">"));
        assert!(xml.contains("<failure message=\"new\" type=\"new\">"));
        assert!(
            xml.contains("<system-out>reference written: references/written.png\n</system-out>")
        );
        assert_eq!(xml.matches("<testcase ").count(), 6);
        assert_eq!(
            xml.matches("</testcase>").count() + xml.matches("\"/>\n").count(),
            6
        );
    }
}
