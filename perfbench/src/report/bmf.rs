//! bmf
