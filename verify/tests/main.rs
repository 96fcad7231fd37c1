//! This crate's integration tests, one module per file beside this one, linked into one test
//! binary: one link instead of one per file keeps a clean build's disk use and link time down
//! (a hundred and fifty test binaries of about 50 MB each filled a CI machine's disk).

mod divergence_support;

mod batch_corpus;
mod divergence_negative_control;
mod divergence_samples;
mod divergence_shading;
mod divergence_substituted;
mod divergence_trilinear;
mod divergence_wrong_translation;
mod explain;
