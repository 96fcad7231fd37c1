//! Fragment programs to WGSL (see ABI.md).
