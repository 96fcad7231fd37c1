//! The GPU adapter skip policy of every device test.
//!
//! Before any device opens, Mesa gets a private `XDG_RUNTIME_DIR` when none is set
//! (stack-notes.md 1(b): lavapipe prints an error without one). Then the caller's constructor
//! runs (the testkit cannot name `rsxtrace_gpu::Gpu`): a missing adapter is a loud
//! `GPU ADAPTER MISSING ... skipped` and `None`, a panic under `CI=true`; any other error
//! (the adapter refused the device, ...) panics, since the test could have run.

use std::fmt::Display;
use std::path::PathBuf;
use std::sync::OnceLock;

/// What `rsxtrace_gpu::GpuError::NoAdapter` displays first (replay/gpu/src/error.rs), which
/// the `rsxtrace` CLI prints on stderr when no adapter exists.
pub const NO_ADAPTER_MESSAGE: &str = "no GPU adapter found";

/// The `XDG_RUNTIME_DIR` devices open under: the one set in the environment, or else a
/// private directory (mode 0700) created and set once for this process.
pub fn runtime_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        if let Some(dir) = std::env::var_os("XDG_RUNTIME_DIR") {
            return PathBuf::from(dir);
        }
        let dir = std::env::temp_dir().join(format!("rsxtrace-test-xdg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create XDG_RUNTIME_DIR");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
                .expect("chmod XDG_RUNTIME_DIR");
        }
        std::env::set_var("XDG_RUNTIME_DIR", &dir);
        dir
    })
    .clone()
}

/// Reports a missing adapter for `test`: a loud line on stderr, or a panic when `ci` is set.
pub fn report_missing_adapter(test: &str, detail: &dyn Display, ci: bool) {
    assert!(!ci, "GPU ADAPTER MISSING in CI ({test}): {detail}");
    eprintln!("GPU ADAPTER MISSING: {detail}; {test} skipped");
}

/// Opens a device with `open` under the skip policy: `Some` device; `None` after a loud
/// message when `no_adapter` says the error is a missing adapter (a panic under `CI=true`);
/// a panic on any other error.
pub fn open_or_skip<D, E: Display>(
    test: &str,
    open: impl FnOnce() -> Result<D, E>,
    no_adapter: impl FnOnce(&E) -> bool,
) -> Option<D> {
    runtime_dir();
    decide(test, open(), no_adapter, crate::in_ci())
}

/// The policy itself, with the CI switch as an argument.
fn decide<D, E: Display>(
    test: &str,
    opened: Result<D, E>,
    no_adapter: impl FnOnce(&E) -> bool,
    ci: bool,
) -> Option<D> {
    match opened {
        Ok(device) => Some(device),
        Err(e) if no_adapter(&e) => {
            report_missing_adapter(test, &e, ci);
            None
        }
        Err(e) => panic!("{test}: opening the device failed: {e}"),
    }
}

/// Whether a run of the `rsxtrace` CLI stopped because no adapter exists: exit status 2 with
/// [`NO_ADAPTER_MESSAGE`] on stderr. Reports it under the policy (a panic under `CI=true`);
/// any other outcome is the test's to check.
pub fn cli_adapter_missing(test: &str, status: Option<i32>, stderr: &str) -> bool {
    cli_decide(test, status, stderr, crate::in_ci())
}

fn cli_decide(test: &str, status: Option<i32>, stderr: &str, ci: bool) -> bool {
    let missing = status == Some(2) && stderr.contains(NO_ADAPTER_MESSAGE);
    if missing {
        report_missing_adapter(test, &stderr.trim_end(), ci);
    }
    missing
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    enum Fake {
        NoAdapter,
        Refused,
    }

    impl Display for Fake {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "{self:?}")
        }
    }

    fn is_missing(e: &Fake) -> bool {
        matches!(e, Fake::NoAdapter)
    }

    #[test]
    fn a_device_is_returned() {
        assert_eq!(decide("t", Ok::<u8, Fake>(7), is_missing, true), Some(7));
    }

    #[test]
    fn a_missing_adapter_skips_without_ci() {
        assert_eq!(
            decide::<u8, _>("t", Err(Fake::NoAdapter), is_missing, false),
            None
        );
    }

    #[test]
    #[should_panic(expected = "GPU ADAPTER MISSING in CI (t)")]
    fn a_missing_adapter_fails_under_ci() {
        decide::<u8, _>("t", Err(Fake::NoAdapter), is_missing, true);
    }

    #[test]
    #[should_panic(expected = "t: opening the device failed: Refused")]
    fn other_errors_fail_even_without_ci() {
        decide::<u8, _>("t", Err(Fake::Refused), is_missing, false);
    }

    #[test]
    fn cli_skips_only_on_status_2_with_the_no_adapter_message() {
        let msg = "rsxtrace: error: cannot open a GPU device: no GPU adapter found (...)";
        assert!(cli_decide("t", Some(2), msg, false));
        assert!(!cli_decide("t", Some(1), msg, false));
        assert!(!cli_decide(
            "t",
            Some(2),
            "rsxtrace: error: adapter x refused the device",
            false
        ));
        assert!(!cli_decide("t", Some(0), "", true));
    }

    #[test]
    #[should_panic(expected = "GPU ADAPTER MISSING in CI")]
    fn cli_missing_adapter_fails_under_ci() {
        cli_decide("t", Some(2), "no GPU adapter found", true);
    }

    #[test]
    fn the_runtime_dir_is_set_once_and_kept() {
        let a = runtime_dir();
        assert_eq!(
            std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from),
            Some(a.clone())
        );
        assert_eq!(runtime_dir(), a);
    }
}
