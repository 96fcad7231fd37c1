//! RSX programs: containers, vertex and fragment microcode (decode, encode, disassemble) and flow
//! analysis.
