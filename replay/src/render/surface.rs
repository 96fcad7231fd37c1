//! Surface formats, their bytes in guest memory, and the frame's surface memory.
