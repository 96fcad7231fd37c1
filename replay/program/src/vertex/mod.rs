//! Vertex-program microcode: decode, encode, disassemble.
