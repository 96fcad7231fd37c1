//! The method census: the command stream's method calls by method.

use rsxtrace_capture::frame::{method_calls, methods};
use rsxtrace_capture::rrc::ReplayCommand;
use serde::Serialize;
use std::collections::HashMap;
use std::ops::Range;

/// Calls of one method.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MethodCount {
    /// The `gcm_enums.h` name, without an array index, or `<CLASS>_METHOD_0x<offset>`.
    pub method: String,
    /// Calls.
    pub calls: u64,
}

/// Method calls among `window`'s commands, by method (malformed stretches are skipped, as the
/// frame model skips them).
pub(super) fn method_census(
    commands: &[ReplayCommand],
    window: &Range<usize>,
) -> (u64, Vec<MethodCount>) {
    let mut by_reg: HashMap<u16, u64> = HashMap::new();
    let mut total = 0u64;
    for call in method_calls(commands).flatten() {
        if !window.contains(&call.command_index) {
            continue;
        }
        total += 1;
        *by_reg.entry(call.reg).or_default() += 1;
    }
    let mut by_name: HashMap<String, u64> = HashMap::new();
    for (reg, n) in by_reg {
        let name = match methods::method_def(reg) {
            Some((def, _)) => def.name.to_string(),
            None => methods::method_name(reg).into_owned(),
        };
        *by_name.entry(name).or_default() += n;
    }
    let mut methods: Vec<MethodCount> = by_name
        .into_iter()
        .map(|(method, calls)| MethodCount { method, calls })
        .collect();
    methods.sort_by(|a, b| b.calls.cmp(&a.calls).then_with(|| a.method.cmp(&b.method)));
    (total, methods)
}
