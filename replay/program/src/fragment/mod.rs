//! Fragment-program microcode: decode, encode, disassemble.
