//! Vertex programs to WGSL (see ABI.md).
