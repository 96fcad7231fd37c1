//! A libgcm-like capture builder that writes genuine RRC v6 captures.
