//! This crate's integration tests, one module per file beside this one, linked into one test
//! binary: one link instead of one per file keeps a clean build's disk use and link time down
//! (a hundred and fifty test binaries of about 50 MB each filled a CI machine's disk).

#[path = "../frame/tests/stream_support/mod.rs"]
mod stream_support;

mod diff;
mod edit;
mod overview;
mod rpcs3_form;
mod trim;
