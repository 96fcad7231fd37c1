//! Whether the tests run in CI: `CI=true` in the environment (what `.ci/run` runs under).
//! There a missing corpus or GPU adapter fails the test instead of skipping it.

/// `CI=true` in the environment.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}
