//! Texture units bound versus sampled.
