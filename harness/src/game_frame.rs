//! The game-scale frame in `traces/` (issue 6): thousands of draws and hundreds of thousands
//! of vertices with many distinct programs, made with the capture builder.
