//! The RSX method stream, the register state machine and the frame model: draws and their state.
