//! Model-view-projection constants versus placements.
