//! Mesh identity: a draw's captured vertex bytes matched to mesh files.
