//! This crate's integration tests, one module per file beside this one, linked into one test
//! binary: one link instead of one per file keeps a clean build's disk use and link time down
//! (a hundred and fifty test binaries of about 50 MB each filled a CI machine's disk).

mod browser;
mod conditional;
mod constants;
mod escaping;
mod overdraw;
mod statistics;
mod support;
mod targets;
mod unrenderable;
