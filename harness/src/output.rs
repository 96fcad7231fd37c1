//! Writing to stdout: JSON helpers and broken-pipe handling (a closed pipe, as with
//! `rsxtrace draws x | head`, is not an error).

use std::io::{self, Write};

/// `print!` that hands a write error (a closed pipe) back to the caller with `?` instead of
/// panicking as `print!` does. Use inside functions returning `anyhow::Result`.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        write!(std::io::stdout().lock(), $($arg)*)?
    }};
}

/// `println!` that hands a write error (a closed pipe) back to the caller with `?`.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)?
    }};
}

/// Whether an error (anywhere in its chain) is a broken pipe.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
            || cause
                .downcast_ref::<serde_json::Error>()
                .is_some_and(|e| e.io_error_kind() == Some(io::ErrorKind::BrokenPipe))
    })
}

/// An error and its causes on one line, `outer: cause: root`, each cause said once: many
/// library errors carry their source's text in their own message and also give the source as
/// their cause (`cannot read F: No such file`, caused by `No such file`), which `{:#}` would
/// print twice. A cause whose text ends the message before it is left out.
pub fn error_chain(err: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if parts.last().is_some_and(|last| last.ends_with(&text)) {
            continue;
        }
        parts.push(text);
    }
    parts.join(": ")
}

/// The first `n` of `items` joined with ", ", and ", ..." when there are more: a list that
/// stays one line (draws named in a summary).
pub fn first_of(items: &[String], n: usize) -> String {
    let shown = items.get(..n).unwrap_or(items);
    let more = if items.len() > shown.len() {
        ", ..."
    } else {
        ""
    };
    format!("{}{more}", shown.join(", "))
}

/// Print a value as pretty JSON followed by a newline.
pub fn print_json<T: serde::Serialize + ?Sized>(value: &T) -> anyhow::Result<()> {
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    serde_json::to_writer_pretty(&mut out, value)?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}

/// Mesa's Vulkan and EGL drivers print "XDG_RUNTIME_DIR is invalid or not set" when the
/// variable is missing (stack-notes.md 1(b)); headless runs (CI, ssh) rarely have it. Point it
/// at a private directory before a device is created, unless the user set one.
pub fn private_runtime_dir() {
    if std::env::var_os("XDG_RUNTIME_DIR").is_some() {
        return;
    }
    let user = std::env::var("USER").unwrap_or_else(|_| "user".into());
    let dir = std::env::temp_dir().join(format!("rsxtrace-xdg-{user}"));
    let ready = {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new().mode(0o700).create(&dir).is_ok() || dir.is_dir()
    };
    if ready {
        // Single-threaded at this point: the device (and its threads) does not exist yet.
        std::env::set_var("XDG_RUNTIME_DIR", &dir);
    }
}

/// What a render skipped or warned about, on stderr: one line per skipped draw and per
/// warning (`replay` and `history`).
pub fn print_render_problems(
    skipped: &[(usize, String)],
    warnings: &[rsxtrace_replay::render::RenderWarning],
) {
    for (draw, reason) in skipped {
        eprintln!("skipped draw {draw}: {reason}");
    }
    for w in warnings {
        match w.draw {
            Some(d) => eprintln!("warning: draw {d}: {}", w.message),
            None => eprintln!("warning: {}", w.message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::error_chain;
    use std::fmt;

    /// An error that says its source's text and also gives the source as its cause.
    #[derive(Debug)]
    struct Wrapping(std::io::Error);

    impl fmt::Display for Wrapping {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "cannot read /absent: {}", self.0)
        }
    }

    impl std::error::Error for Wrapping {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn a_cause_the_message_already_says_is_said_once() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let err = anyhow::Error::new(Wrapping(io)).context("placements file /absent");
        assert_eq!(
            format!("{err:#}"),
            "placements file /absent: cannot read /absent: no such file: no such file"
        );
        assert_eq!(
            error_chain(&err),
            "placements file /absent: cannot read /absent: no such file"
        );
        // Causes the messages do not say are kept, in order.
        let plain = anyhow::anyhow!("root").context("middle").context("outer");
        assert_eq!(error_chain(&plain), "outer: middle: root");
    }
}
