//! Program containers: CgBinaryProgram, the Tiny3D/PSL1GHT VP container, raw microcode.
