//! bencher
