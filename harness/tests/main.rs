//! This crate's integration tests, one module per file beside this one, linked into one test
//! binary: one link instead of one per file keeps a clean build's disk use and link time down
//! (a hundred and fifty test binaries of about 50 MB each filled a CI machine's disk).

mod cli_support;
mod texture_rules;

mod batch_cli;
mod ci_cli;
mod clause_parts_cli;
mod cli;
mod closed_pipe;
mod damaged_captures;
mod debug_cli;
mod debug_gdb;
mod diff_cli;
mod edit_cli;
mod explain_cli;
mod game_frame_current;
mod game_without_constants;
mod index_cli;
mod instanced_cli;
mod layout;
mod level_current;
mod match_cli;
mod mvp_cli;
mod primitives;
mod probe_cli;
mod program_stages_cli;
mod psl1ght_cli;
mod regions_cli;
mod replay_cli;
mod replay_shard_cli;
mod report_cli;
mod rpcs3_layout;
mod samples_current;
mod shade_fp16;
mod state_before_frame;
mod stats_cli;
mod texture_formats_capture;
mod verify_cli;
mod workbench;
