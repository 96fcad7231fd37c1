//! The rsxtrace trace format: a Cap'n Proto message (schema in `traces/schema/`) holding a
//! capture losslessly, read zero-copy from a memory map.
