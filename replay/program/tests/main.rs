//! This crate's integration tests, one module per file beside this one, linked into one test
//! binary: one link instead of one per file keeps a clean build's disk use and link time down
//! (a hundred and fifty test binaries of about 50 MB each filled a CI machine's disk).

mod source_support;

mod container_corpus;
mod container_little_endian;
mod container_malformed;
mod container_psl1ght_2011;
mod container_psl1ght_2020;
mod container_psl1ght_rewrite;
mod container_rewrite;
mod container_uniform;
mod fragment_corpus;
mod fragment_fields;
mod fragment_flow;
mod fragment_roundtrip;
mod kept_encoding;
mod source_cache;
mod source_executable;
mod source_loose;
mod source_malformed;
mod source_speed;
mod vertex_assemble;
mod vertex_corpus;
mod vertex_fields;
mod vertex_memory;
mod vertex_roundtrip;
